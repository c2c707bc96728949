"""``image`` stage: ensure the sandbox images are in the daemon; record their ids.

Writes ``data/image/<kind>.json`` (kind, image_id, python_version, recipe_digest). A record is
rewritten only when its image had to be (re)built, so an unchanged image leaves it
byte-identical and downstream stages are not re-run.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay import evidence
from assay.evidence import ImageRecord
from assay.sandbox.image import ensure_image


def run(kinds: Sequence[str]) -> list[ImageRecord]:
    return [ensure_image(kind, evidence.image_record(kind)) for kind in kinds]  # type: ignore[arg-type]
