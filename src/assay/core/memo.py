"""Results remembered by the digest of everything that decides them, across stages and runs.

A sandbox evaluation is a function of its request (the repository files, the candidate, the
cases and expected values, the run profile, the image id), the sandbox policy version and the
Docker engine; a unit's code metrics are a function of its files, the change's lines and the
tools' versions. The code that computes them is part of every key too (:func:`code_digest`). Evaluating the same inputs again gives the same rows, so a result stored under
the sha256 of the canonical JSON of those inputs is used instead of computing it again: the
simulated runs' answers are the references the self-test already ran, a second fresh run of a
plan repeats the first one's answers, and an experiment that changes one parameter re-evaluates
only what it changed.

Only verdicts are remembered: a sandbox result that is ``correct`` or ``incorrect``, metrics
that every tool produced. Missing evidence (an evaluator failure, a tool that failed) is never
remembered, so it is computed again next time. The rows say nothing of where a result came
from (they are byte-identical either way); the correctness stage's ``placements.parquet`` says
``memo`` for a remembered one.

The memo lives in ``<cache>/assay/memo/<kind>/`` (``$XDG_CACHE_HOME`` or ``~/.cache``), one
JSON file per result, written atomically; a file that cannot be read is a miss.
``ASSAY_MEMO_DIR`` moves it; ``ASSAY_MEMO=off`` turns it off.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from assay.core.cache import cache_dir
from assay.core.digest import canonical_json, sha256_hex

OFF = "off"


def memo_root() -> Path | None:
    if os.environ.get("ASSAY_MEMO", "").lower() == OFF:
        return None
    configured = os.environ.get("ASSAY_MEMO_DIR")
    if configured:
        return Path(configured)
    return cache_dir("memo")


@functools.cache
def code_digest(*places: Path) -> str:
    """The digest of the code that computes a kind of result (each file given, every file under
    each folder given): part of its key, so a changed evaluator never answers from a result of
    the old one."""
    lines = []
    for place in places:
        files = [place] if place.is_file() else sorted(place.rglob("*"))
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts:
                name = path.relative_to(place.parent).as_posix()
                lines.append(f"{name}\0{sha256_hex(path.read_bytes())}\n")
    return sha256_hex("".join(lines))


def key_of(inputs: Any) -> str:
    """The digest a result is remembered under: sha256 of the inputs' canonical JSON."""
    return sha256_hex(canonical_json(inputs))


class Memo:
    """One kind of remembered result (``sandbox``, ``metrics``)."""

    def __init__(self, kind: str) -> None:
        root = memo_root()
        self.folder = None if root is None else root / kind

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def _path(self, key: str) -> Path | None:
        return None if self.folder is None else self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            return json.loads(path.read_bytes())
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: Any) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                dir=path.parent, suffix=".partial", delete=False
            ) as out:
                out.write(canonical_json(value))
            os.replace(out.name, path)
        except OSError:
            pass  # a memo that cannot be written costs time, never a result
