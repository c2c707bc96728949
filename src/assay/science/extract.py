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

Version 3 (version 2 for answers that print the target file again, as chat models do): it
needs the repository the prompt showed (:class:`~assay.science.reprint.Repository`: the target file as
the model saw it, at chain steps 2-5 with its earlier steps appended, and the other files shown).

1. Steps 1-3 of version 2 find the fenced blocks and the candidate blocks; an answer with no
   fence is one block, the code version 2's step 5 finds in it.
2. Every candidate block that parses is compared, statement by statement and by syntax tree
   (quotes, layout, comments and docstrings do not count), with the repository
   (:mod:`assay.science.reprint`): statements equal to one of the target file's are dropped, an echoed
   import only when the code kept reads none of its names; what the answer adds stays, in its
   order. A block with nothing else changes as version 2 would see it: not at all.
3. Any candidate block that binds a name of the target (a definition, an assignment) with
   another body, signature, annotation or value → ``module-changed``: the answer changes the
   module it was given, so what it adds cannot be scored as an addition to it.
4. A block that holds a definition equal to one of *another* file the prompt showed, beside
   code of its own → ``other-file-reprinted``: the answer prints a file that is not the
   target (or copies that file's code into it). A block that only repeats shown files, and
   the blocks in other languages, are context, never candidates.
5. Among the blocks left, version 2's step 4 decides (an import a repeating block adds counts
   as a block of imports); when nothing is left but repetitions of the repository →
   ``reprint-only`` (the answer adds no code).
6. A block that does not parse is taken as it is (the gate then says why it fails).

The case table ``tests/cases/extract_v3.yaml`` holds real chat answers and real-looking ones,
each with the target module it answered and the expected candidate or status.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from assay.core.records import ExtractStatus, Frozen
from assay.science.reprint import Repository, compare, shape

PYTHON_TAGS = frozenset({"python", "py", "python3", "py3"})
CURRENT_VERSION = 3
"""The newest extraction version. ``analysis.extraction`` and ``evaluators.extraction`` default
to 2 when params.yaml leaves them out (plans that preregistered it keep their hash); the
default study sets both to 3."""


class Extraction(Frozen):
    status: ExtractStatus
    source: str | None = None


def extract_candidate(
    text: str | None, version: int = CURRENT_VERSION, *, repository: Repository | None = None
) -> Extraction:
    """The candidate source of one response under extraction ``version``; version 3 needs the
    ``repository`` the prompt showed (a caller error, ``ValueError``, without it)."""
    try:
        rule = VERSIONS[version]
    except KeyError:
        raise ValueError(
            f"unknown extraction version {version!r} (known: {sorted(VERSIONS)})"
        ) from None
    if text is None:
        return Extraction(status="not-executed")
    return rule(text, repository)


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


def _normalised(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _stripped(body: str) -> str:
    return body.strip()


def _choose(candidates: list[str], same: Callable[[str], str] = _stripped) -> Extraction:
    """Version 2's step 4 over the candidate blocks (``same``: when two blocks are one)."""
    imports = [body for body in candidates if _imports_only(body)]
    defining = [body for body in candidates if _DEFINES_IMPLEMENT.search(body)]
    if defining:
        distinct = {same(body) for body in defining}
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


def _extract_v2(text: str) -> Extraction:
    text = _normalised(text)
    blocks = fenced_blocks(text)
    if not blocks:
        return _unfenced(text)
    candidates = [b.body for b in blocks if b.tag in PYTHON_TAGS or b.tag == ""]
    if not candidates:
        return Extraction(status="no-code")
    return _choose(candidates)


# --- version 3 -----------------------------------------------------------------------------


def _tree_key(body: str) -> str:
    """Two blocks are one when their trees are equal (else when their texts are)."""
    try:
        return "\n".join(shape(node) for node in ast.parse(body).body)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return body.strip()


def _extract_v3(text: str, repository: Repository) -> Extraction:
    text = _normalised(text)
    blocks = fenced_blocks(text)
    if blocks:
        bodies = [b.body for b in blocks if b.tag in PYTHON_TAGS or b.tag == ""]
        if not bodies:
            return Extraction(status="no-code")
    else:
        found = _unfenced(text)
        if found.source is None:
            return found
        bodies = [found.source]
    compared = [compare(body, repository) for body in bodies]
    kinds = {block.kind for block in compared}
    if "changed" in kinds:
        return Extraction(status="module-changed")
    if "other-file" in kinds:
        return Extraction(status="other-file-reprinted")
    kept = [b.source for b in compared if b.kind != "reprint" or b.source.strip()]
    if not kept:
        return Extraction(status="reprint-only")
    if not blocks:
        return _code(kept[0])
    return _choose(kept, same=_tree_key)


Rule = Callable[[str, Repository | None], Extraction]


def _needs_repository(version: int, rule: Callable[[str, Repository], Extraction]) -> Rule:
    def run(text: str, repository: Repository | None) -> Extraction:
        if repository is None:
            raise ValueError(
                f"extraction v{version} compares the answer with the repository its prompt "
                "showed: pass repository="
            )
        return rule(text, repository)

    return run


def _text_only(rule: Callable[[str], Extraction]) -> Rule:
    return lambda text, _repository: rule(text)


VERSIONS: dict[int, Rule] = {
    1: _text_only(_extract_v1),
    2: _text_only(_extract_v2),
    3: _needs_repository(3, _extract_v3),
}
"""Every published extraction version. Never change one: add the next."""
