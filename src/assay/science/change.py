"""A candidate as a change to its arm's repository, placed the way a developer would place it.

The candidate's top-level imports join the target file's import block: an import the target
already has is not repeated, ``from m import a`` is merged into an existing ``from m import b``,
``from __future__`` imports go right after the module docstring, and any other new import goes
after the last statement of the leading import block. Everything else the candidate defines is
appended to the end of the target. A module docstring of the candidate is dropped: it would
describe the candidate file, which does not survive as a file.

Unparseable input (the target or the candidate) is a :class:`ChangeError`.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from assay.core.errors import AssayError
from assay.core.records import Frozen
from assay.science.gate import is_docstring


class ChangeError(AssayError, ValueError):
    """The change cannot be made: the target or the candidate does not parse."""


class Change(Frozen):
    """The after-repository and where the change landed in its target file."""

    files: dict[str, str]
    target: str
    changed_lines: tuple[int, ...]
    """1-based lines of the after-target that are new or modified (difflib against the before)."""
    definition_lines: tuple[int, int]
    """First and last line of the appended definition in the after-target (inclusive)."""


@dataclass
class _Block:
    """The target's leading import block, as line numbers into the target."""

    insert_after: int
    """Line after which new ordinary imports go (0: top of file)."""
    future_after: int
    """Line after which new ``__future__`` imports go."""
    statements: list[ast.Import | ast.ImportFrom]


def apply_change(files: Mapping[str, str], target: str, candidate: str) -> dict[str, str]:
    """The after-repository: ``files`` with ``candidate`` merged into ``files[target]``."""
    return describe_change(files, target, candidate).files


def describe_change(files: Mapping[str, str], target: str, candidate: str) -> Change:
    """Apply the change and say which target lines it added or modified."""
    before = files[target]
    after = merge_into(before, candidate)
    definition_lines = _appended_span(
        after, _definition_text(_parse(candidate, "candidate"), candidate)
    )
    new_files = dict(files)
    new_files[target] = after
    return Change(
        files=new_files,
        target=target,
        changed_lines=changed_lines(before, after),
        definition_lines=definition_lines,
    )


def merge_into(target_text: str, candidate: str) -> str:
    """The target text with the candidate's imports merged and its definitions appended."""
    target_tree = _parse(target_text, "target")
    candidate_tree = _parse(candidate, "candidate")
    block = _import_block(target_tree)
    merged: dict[int, ast.ImportFrom] = {}
    future_lines: list[str] = []
    plain_lines: list[str] = []
    for statement in _imports_of(candidate_tree):
        remaining = _not_yet_imported(statement, target_tree)
        if remaining is None:
            continue
        if isinstance(remaining, ast.ImportFrom):
            existing = _mergeable(remaining, block)
            if existing is not None:
                existing.names = existing.names + remaining.names
                merged[existing.lineno] = existing
                continue
        text = ast.unparse(remaining)
        if isinstance(remaining, ast.ImportFrom) and remaining.module == "__future__":
            future_lines.append(text)
        else:
            plain_lines.append(text)
    lines = target_text.splitlines()
    if not block.statements and plain_lines:
        # A new import block: a blank line after a docstring, blank lines before the code.
        before = [""] if block.insert_after > 0 else []
        follows_blank = block.insert_after < len(lines) and not lines[block.insert_after].strip()
        plain_lines = before + plain_lines + ([] if follows_blank else ["", ""])
    edits = [(block.insert_after, block.insert_after, plain_lines)]
    edits.append((block.future_after, block.future_after, future_lines))
    for statement in merged.values():
        edits.append((statement.lineno - 1, _end(statement), [_rewritten(statement, lines)]))
    for start, stop, replacement in sorted(edits, key=lambda edit: edit[0], reverse=True):
        lines[start:stop] = replacement
    body = "\n".join(lines).rstrip("\n")
    definition = _definition_text(candidate_tree, candidate)
    if not definition:
        return body + "\n"
    separator = "\n\n\n" if body else ""
    return body + separator + definition + "\n"


def changed_lines(before: str, after: str) -> tuple[int, ...]:
    """1-based lines of ``after`` that difflib finds inserted or replaced relative to ``before``."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    new: list[int] = []
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            new.extend(range(j1 + 1, j2 + 1))
    return tuple(new)


def _parse(text: str, role: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise ChangeError(f"{role} does not parse: {exc.msg} (line {exc.lineno})") from None


def _import_block(tree: ast.Module) -> _Block:
    body = list(tree.body)
    docstring_end = 0
    if body and is_docstring(body[0]):
        docstring_end = _end(body.pop(0))
    future_after = docstring_end
    statements: list[ast.Import | ast.ImportFrom] = []
    for statement in body:
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            break
        statements.append(statement)
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            future_after = _end(statement)
    insert_after = _end(statements[-1]) if statements else future_after
    return _Block(insert_after=insert_after, future_after=future_after, statements=statements)


def _end(statement: ast.stmt) -> int:
    return statement.end_lineno if statement.end_lineno is not None else statement.lineno


def _imports_of(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    return [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]


def _alias_key(alias: ast.alias) -> tuple[str, str | None]:
    return (alias.name, alias.asname)


def _not_yet_imported(
    statement: ast.Import | ast.ImportFrom, target: ast.Module
) -> ast.Import | ast.ImportFrom | None:
    """The part of ``statement`` the target's top level does not import yet (``None``: all of it is there)."""
    if isinstance(statement, ast.Import):
        have = {_alias_key(a) for s in target.body if isinstance(s, ast.Import) for a in s.names}
        names = [a for a in statement.names if _alias_key(a) not in have]
        return ast.Import(names=names) if names else None
    have = {
        _alias_key(a)
        for s in target.body
        if isinstance(s, ast.ImportFrom)
        and (s.module, s.level) == (statement.module, statement.level)
        for a in s.names
    }
    names = [a for a in statement.names if _alias_key(a) not in have]
    if not names:
        return None
    return ast.ImportFrom(module=statement.module, names=names, level=statement.level)


def _mergeable(statement: ast.ImportFrom, block: _Block) -> ast.ImportFrom | None:
    """An existing ``from`` import of the same module in the block, to add the names to."""
    for existing in block.statements:
        if not isinstance(existing, ast.ImportFrom):
            continue
        if (existing.module, existing.level) != (statement.module, statement.level):
            continue
        if any(a.name == "*" for a in existing.names + statement.names):
            continue
        return existing
    return None


def _rewritten(statement: ast.ImportFrom, lines: list[str]) -> str:
    """The merged statement on one line, keeping a trailing comment of its last line."""
    last = lines[_end(statement) - 1]
    trailing = last[statement.end_col_offset :] if statement.end_col_offset is not None else ""
    return ast.unparse(statement) + trailing


def _definition_text(tree: ast.Module, source: str) -> str:
    """The candidate's source without its top-level imports and module docstring."""
    drop: set[int] = set()
    body = list(tree.body)
    if body and is_docstring(body[0]) and len(body) > 1:
        drop.update(range(body[0].lineno, _end(body[0]) + 1))
    for statement in _imports_of(tree):
        drop.update(range(statement.lineno, _end(statement) + 1))
    kept = [line for number, line in enumerate(source.splitlines(), start=1) if number not in drop]
    return "\n".join(kept).strip("\n")


def _appended_span(after: str, definition: str) -> tuple[int, int]:
    total = len(after.splitlines())
    size = len(definition.splitlines())
    return (total - size + 1, total) if size else (total + 1, total)
