"""DVC stage ``image``: ensure the sandbox images are in the daemon; record their ids.

    python stages/image.py [KIND ...]     (kinds: standard, packages; default: standard)

Writes ``data/image/<kind>.json`` (kind, image_id, python_version, recipe_digest). A record is
rewritten only when its image had to be (re)built, so an unchanged image leaves it
byte-identical and downstream stages are not re-run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import get_args

from assay.sandbox.image import ImageBuildError, ImageKind, ensure_image

OUT = Path("data/image")


def main(argv: list[str]) -> int:
    kinds = argv or ["standard"]
    unknown = [kind for kind in kinds if kind not in get_args(ImageKind)]
    if unknown:
        print(f"image: unknown kind(s) {unknown}; known: {get_args(ImageKind)}", file=sys.stderr)
        return 2
    for kind in kinds:
        try:
            record = ensure_image(kind, OUT / f"{kind}.json")  # type: ignore[arg-type]
        except ImageBuildError as exc:
            print(f"image: building the {kind} sandbox image failed: {exc}", file=sys.stderr)
            return 1
        except Exception as exc:
            # the Docker SDK is loaded only when the cheap socket check could not decide
            from docker.errors import DockerException

            if not isinstance(exc, DockerException):
                raise
            print(
                f"image: the Docker engine is unreachable ({exc}). Start it with networking "
                "disabled: dockerd --bridge=none --iptables=false --ip-forward=false --ip-masq=false",
                file=sys.stderr,
            )
            return 1
        print(f"image {kind} {record.image_id} python {record.python_version}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
