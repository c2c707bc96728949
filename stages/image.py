"""DVC stage ``image``: ensure the standard sandbox image is in the daemon; record its id.

Writes ``data/image/standard.json`` (kind, image_id, python_version, recipe_digest). The
record is rewritten only when the image had to be (re)built, so an unchanged image leaves it
byte-identical and downstream stages are not re-run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from assay.sandbox.image import ensure_image

RECORD = Path("data/image/standard.json")


def main() -> int:
    record = ensure_image("standard", RECORD)
    print(f"image standard {record.image_id} python {record.python_version}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
