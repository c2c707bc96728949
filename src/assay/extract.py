"""Response text → candidate source, by versioned, preregistered extraction rules.

The plan preregisters one extraction version (``analysis.extraction``); the ``extract`` stage
runs the version in ``evaluators.extraction``. Changing it re-runs ``extract`` and what reads
candidates, never ``execute``. A version, once published, never changes: a new rule is a new
version.

Version 1 (the first pilot's rule): the first fenced block tagged ``python``/``py``/
``python3``; otherwise the whole text.

Version 2 (robust to how real models answer):

1. No completion → ``not-executed``. Line endings are normalised to ``\\n``.
2. Fenced blocks open with three or more backticks or tildes (indented up to three spaces,
   or inside a list item) and close with the same fence; an unclosed last block (a reply cut
   off at the token limit) runs to the end of the text. A block's *tag* is the first word of
   its info string, lowercased.
3. Candidate blocks are the fenced blocks tagged ``python``, ``py``, ``python3``, ``py3`` or
   not tagged at all (a bare fence). Blocks in any other language are never candidates.
4. Among the candidate blocks, those that define ``implement`` at the start of a line
   (``def implement(`` or ``async def implement(``) decide:

   - exactly one, or several identical ones → that block;
   - several that differ → ``ambiguous-extraction`` (no source: missing evidence);
   - none, and exactly one candidate block → that block (the gate then says why it fails);
   - none, and several → ``ambiguous-extraction``.

   Candidate blocks that hold nothing but import statements (the imports given in their own
   block) are prepended to the chosen block, in the order they appear.
5. No fenced block at all: the whole text when it parses as Python; otherwise the span from
   the first line that starts a definition or an import (``def``, ``async def``, ``class``,
   ``import``, ``from``, ``@``) to the last line after which it still parses (trailing prose
   dropped); when no such span parses, the whole text (the gate rejects it).
6. Fenced blocks but no candidate among them (only other languages), or a chosen block or
   text with nothing but whitespace → ``no-code``.

The case table ``tests/cases/extract_v2.yaml`` holds real-looking responses for each rule.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from assay.records import ExtractStatus, Frozen

PYTHON_TAGS = frozenset({"python", "py", "python3", "py3"})
CURRENT_VERSION = 2
"""The newest extraction version (the default of ``analysis`` and ``evaluators``)."""


class Extraction(Frozen):
    status: ExtractStatus
    source: str | None = None


def extract_candidate(text: str | None, version: int = CURRENT_VERSION) -> Extraction:
    """The candidate source of one response under extraction ``version``."""
    try:
        rule = VERSIONS[version]
    except KeyError:
        raise ValueError(
            f"unknown extraction version {version!r} (known: {sorted(VERSIONS)})"
        ) from None
    if text is None:
        return Extraction(status="not-executed")
    return rule(text)


def _code(source: str) -> Extraction:
    if not source.strip():
        return Extraction(status="no-code")
    return Extraction(status="code", source=source.strip("\n") + "\n")


# --- version 1 -----------------------------------------------------------------------------

_FENCE_V1 = re.compile(
    r"^[ \t]*```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE
)


def _extract_v1(text: str) -> Extraction:
    for match in _FENCE_V1.finditer(text):
        if match.group(1).lower() in {"python", "py", "python3"}:
            return _code(match.group(2))
    return _code(text)


# --- version 2 -----------------------------------------------------------------------------

_OPEN = re.compile(
    r"^(?P<indent>[ \t]*(?:[-*+]|\d+[.)])?[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$"
)
_DEFINES_IMPLEMENT = re.compile(r"^(?:async[ \t]+)?def[ \t]+implement[ \t]*\(", re.MULTILINE)
_CODE_START = re.compile(r"^(?:async[ \t]+def|def|class|import|from|@)\b")


@dataclass(frozen=True)
class Block:
    tag: str
    body: str


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of ``text`` in order (an unclosed last block runs to the end)."""
    lines = text.split("\n")
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _OPEN.match(lines[index])
        if not opening or (opening.group("fence")[0] == "`" and "`" in opening.group("info")):
            index += 1
            continue
        fence = opening.group("fence")
        tag = opening.group("info").strip().split(" ")[0].split(":")[0].lower()
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        index += 1
        while index < len(lines) and not close.match(lines[index]):
            body.append(lines[index])
            index += 1
        index += 1  # past the closing fence (or the end)
        blocks.append(Block(tag=tag, body=textwrap.dedent("\n".join(body))))
    return blocks


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _imports_only(source: str) -> bool:
    if not source.strip() or not _parses(source):
        return False
    return all(isinstance(s, ast.Import | ast.ImportFrom) for s in ast.parse(source).body)


def _unfenced(text: str) -> Extraction:
    if _parses(text):
        return _code(text)
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), None)
    if start is not None:
        for end in range(len(lines), start, -1):
            span = "\n".join(lines[start:end])
            if _parses(span):
                return _code(span)
    return _code(text)


def _extract_v2(text: str) -> Extraction:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = fenced_blocks(text)
    if not blocks:
        return _unfenced(text)
    candidates = [b.body for b in blocks if b.tag in PYTHON_TAGS or b.tag == ""]
    if not candidates:
        return Extraction(status="no-code")
    imports = [body for body in candidates if _imports_only(body)]
    defining = [body for body in candidates if _DEFINES_IMPLEMENT.search(body)]
    if defining:
        distinct = {body.strip() for body in defining}
        if len(distinct) > 1:
            return Extraction(status="ambiguous-extraction")
        chosen = defining[0]
    else:
        rest = [body for body in candidates if body not in imports] or candidates
        if len(rest) > 1:
            return Extraction(status="ambiguous-extraction")
        chosen = rest[0]
        if chosen in imports:
            return _code(chosen)
    return _code("\n".join([*(body.strip("\n") for body in imports), chosen.strip("\n")]))


VERSIONS: dict[int, Callable[[str], Extraction]] = {1: _extract_v1, 2: _extract_v2}
"""Every published extraction version. Never change one: add the next."""
