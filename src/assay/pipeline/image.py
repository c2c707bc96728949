"""``image`` stage: build (or reuse) the sandbox images, record their ids, keep the images.

Writes ``data/image/<kind>.json`` (kind, image_id, python_version, recipe_digest) and
``data/image/<kind>.tar``, the ``docker save`` of exactly that id, which DVC caches: a stage that
finds the engine without the pinned id loads it back (:func:`assay.sandbox.image.ensure_loaded`)
instead of rebuilding an image with another id. An image already in the engine for the same recipe
is reused, so a re-run after ``git clean`` records the same id.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from assay import evidence
from assay.evidence import ImageRecord
from assay.sandbox.image import ensure_image, ensure_loaded, save_archive


def run(kinds: Sequence[str]) -> list[ImageRecord]:
    records = []
    for kind in kinds:
        record = ensure_image(kind, evidence.image_record(kind))  # type: ignore[arg-type]
        save_archive(record, evidence.image_archive(kind))
        records.append(record)
    return records


def load_pinned(image_id: str, kind: str) -> None:
    """Before a stage's sandbox work: the pinned image in the engine, loaded from the image
    stage's archive when the engine lacks it; a warning line when it cannot be."""
    if not image_id:
        return  # no image pinned: every arm skips correctness (chain)
    problem = ensure_loaded(image_id, evidence.image_archive(kind))
    if problem is not None:
        print(f"warning: {problem}", file=sys.stderr)
