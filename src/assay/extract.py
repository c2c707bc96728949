"""Response text → candidate source: the first fenced Python block, else the whole text.

An empty answer (or a call that produced no completion) is recorded as an outcome, never
guessed at. Extraction never changes a response; a change here never re-runs ``execute``.
"""

from __future__ import annotations

import re
from typing import Literal

from assay.records import Frozen

ExtractStatus = Literal["code", "no-code", "not-executed"]

_FENCE = re.compile(
    r"^[ \t]*```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE
)
PYTHON_TAGS = frozenset({"python", "py", "python3"})


class Extraction(Frozen):
    status: ExtractStatus
    source: str | None = None


def extract_candidate(text: str | None) -> Extraction:
    if text is None:
        return Extraction(status="not-executed")
    for match in _FENCE.finditer(text):
        if match.group(1).lower() in PYTHON_TAGS:
            return _code(match.group(2))
    return _code(text)


def _code(source: str) -> Extraction:
    if not source.strip():
        return Extraction(status="no-code")
    return Extraction(status="code", source=source.strip("\n") + "\n")
