"""An answer's code against the repository its prompt showed: what it repeats, what it changes,
what it adds (extraction version 3, :mod:`assay.science.extract`).

Chat models often print the target file again and append ``implement`` to it. Every top-level
statement of one block of code is compared, by its syntax tree, with the statements of the
target file *as the prompt showed it* (at chain steps 2-5 the target holds the model's earlier
steps) and with the definitions of the other files the prompt showed. Trees ignore quotes,
whitespace, line breaks and comments; docstrings are ignored too (a reworded docstring changes
nothing the code does), and a leading docstring counts as the target's own when the target opens
with one. Each statement is one of:

=============  ============================================================================
``echo``       equal to a statement of the target file: dropped (an echoed import is kept
               when the statements kept read a name it binds: the imports the code needs;
               an import printed twice is kept once)
``import``     an import the target does not hold: kept
``other-file`` a definition equal to one of another shown file (and not of the target): the
               answer reprints another file of the repository, which is not where
               ``implement`` goes, or copies that file's code into the target
``changed``    none of those, and binds a name the target binds (a definition, an
               assignment; an imported name too): the answer changes the given module
``own``        anything else: the code the answer adds, kept as it is
=============  ============================================================================
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from assay.science.gate import is_docstring

StatementKind = Literal["echo", "import", "changed", "other-file", "own"]
BlockKind = Literal["code", "reprint", "changed", "other-file", "unparsed"]


@dataclass(frozen=True)
class Repository:
    """What the prompt showed: the target file (as the model saw it) and the other files."""

    target: str
    others: Mapping[str, str] = field(default_factory=dict)
    """Every other file the prompt showed, by path (none for a prompt showing the target
    alone, as the v1 profile does)."""


@dataclass(frozen=True)
class Block:
    """One block of code compared with the repository."""

    kind: BlockKind
    """``code``: it adds code, with every repeated statement dropped (``source``);
    ``reprint``: it only repeats the repository (an import it adds aside); ``changed``: it
    changes the target; ``other-file``: it mixes another file's definitions with its own code;
    ``unparsed``: it does not parse, so nothing can be compared (``source`` is the text)."""
    source: str


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None


def shape(node: ast.stmt) -> str:
    """The statement's tree without positions, field names or docstrings: equal for two
    statements that differ only in layout, quotes, comments or docstrings."""
    stripped: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, list[ast.stmt]]]
    stripped = []
    for inner in ast.walk(node):  # docstrings set aside while the tree is printed, then back
        if (
            isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and inner.body
            and is_docstring(inner.body[0])
        ):
            stripped.append((inner, inner.body))
            inner.body = inner.body[1:] or [ast.Pass()]
    try:
        return ast.dump(node, annotate_fields=False)
    except RecursionError:
        return repr(id(node))  # too deep to print: equal to nothing else
    finally:
        for inner, body in stripped:
            inner.body = body


def bound_names(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds other than by import."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        targets = [node.target]
    elif isinstance(node, ast.With | ast.AsyncWith):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    return {
        name.id
        for target in targets
        for name in ast.walk(target)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)
    }


def _imported_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    return {(alias.asname or alias.name).split(".")[0] for alias in node.names}


def _read_names(nodes: Iterable[ast.stmt]) -> set[str]:
    return {
        name.id
        for node in nodes
        for name in ast.walk(node)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load)
    }


@dataclass(frozen=True)
class _Known:
    """The repository as the comparison needs it."""

    target_shapes: frozenset[str]
    target_names: frozenset[str]
    target_docstring: bool
    other_definitions: frozenset[str]

    @classmethod
    def of(cls, repository: Repository) -> _Known:
        return _known(repository.target, tuple(sorted(repository.others.items())))

    @classmethod
    def build(cls, target_text: str, other_files: tuple[tuple[str, str], ...]) -> _Known:
        target = _parse(target_text)
        body = target.body if target is not None else []
        names: set[str] = set()
        for node in body:
            names |= bound_names(node)
            if isinstance(node, ast.Import | ast.ImportFrom):
                names |= _imported_names(node)
        others: set[str] = set().union(*(_definitions(text) for _, text in other_files))
        return cls(
            target_shapes=frozenset(shape(node) for node in body),
            target_names=frozenset(names),
            target_docstring=bool(body) and is_docstring(body[0]),
            other_definitions=frozenset(others - {shape(node) for node in body}),
        )


@functools.lru_cache(maxsize=4096)
def _definitions(text: str) -> frozenset[str]:
    """The shapes of one file's top-level definitions, once per distinct text: the repositories
    of one scenario (its arms, a chain's later steps) show mostly the same other files."""
    tree = _parse(text)
    if tree is None:
        return frozenset()
    return frozenset(
        shape(node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )


@functools.lru_cache(maxsize=256)
def _known(target: str, others: tuple[tuple[str, str], ...]) -> _Known:
    """One repository's comparison material, once per repository (every cell of an arm, every
    extraction of a run, compares with the same few)."""
    return _Known.build(target, others)


def _kind(node: ast.stmt, index: int, known: _Known) -> StatementKind:
    if shape(node) in known.target_shapes or (
        index == 0 and known.target_docstring and is_docstring(node)
    ):
        return "echo"
    if isinstance(node, ast.Import | ast.ImportFrom):
        return "import"
    if shape(node) in known.other_definitions:
        return "other-file"
    if bound_names(node) & known.target_names:
        return "changed"
    return "own"


def _first_line(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _spans(source: str, nodes: list[ast.stmt], kept: list[bool]) -> Iterator[str]:
    """The source of every kept statement, with the comment lines right above it."""
    lines = source.split("\n")
    for node, keep in zip(nodes, kept, strict=True):
        if not keep:
            continue
        start = _first_line(node) - 1
        while start > 0 and lines[start - 1].lstrip().startswith("#"):
            start -= 1
        end = node.end_lineno or node.lineno
        yield "\n".join(lines[start:end])


def _shares_lines(nodes: list[ast.stmt]) -> bool:
    ends = [(_first_line(n), n.end_lineno or n.lineno) for n in nodes]
    return any(later[0] <= earlier[1] for earlier, later in itertools.pairwise(ends))


def _joined(source: str, nodes: list[ast.stmt], kept: list[bool]) -> str:
    chosen = [node for node, keep in zip(nodes, kept, strict=True) if keep]
    if _shares_lines(nodes):  # `import a; x = 1`: lines cannot be cut apart
        texts = [ast.unparse(node) for node in chosen]
    else:
        texts = list(_spans(source, nodes, kept))
    parts: list[str] = []
    for position, (node, text) in enumerate(zip(chosen, texts, strict=True)):
        if position:
            both_imports = isinstance(node, ast.Import | ast.ImportFrom) and isinstance(
                chosen[position - 1], ast.Import | ast.ImportFrom
            )
            parts.append("\n" if both_imports else "\n\n\n")
        parts.append(text)
    return "".join(parts) + "\n"


def compare(source: str, repository: Repository) -> Block:
    """Compare one block of code with the repository (see the module docstring)."""
    tree = _parse(source)
    if tree is None:
        return Block(kind="unparsed", source=source)
    known = _Known.of(repository)
    nodes = tree.body
    kinds = [_kind(node, index, known) for index, node in enumerate(nodes)]
    if "changed" in kinds:
        return Block(kind="changed", source=source)
    added = [n for n, k in zip(nodes, kinds, strict=True) if k == "own"]
    if "other-file" in kinds and added:
        return Block(kind="other-file", source=source)
    repeated = any(k in ("echo", "other-file") for k in kinds)
    imports_only = all(isinstance(n, ast.Import | ast.ImportFrom) for n in nodes)
    if not repeated or imports_only:  # nothing repeated, or the imports the answer gives
        return Block(kind="code", source=source)
    if not added:
        own_imports = [k == "import" for k in kinds]
        text = _joined(source, nodes, own_imports) if any(own_imports) else ""
        return Block(kind="reprint", source=text)
    needed = _read_names(added)
    kept: list[bool] = []
    imported: set[str] = set()
    for node, kind in zip(nodes, kinds, strict=True):
        if isinstance(node, ast.Import | ast.ImportFrom):
            # the target's import where the code reads a name of it; any import only once
            keep = (kind == "import" or bool(_imported_names(node) & needed)) and (
                shape(node) not in imported
            )
            imported.add(shape(node))
        else:
            keep = kind == "own"
        kept.append(keep)
    return Block(kind="code", source=_joined(source, nodes, kept))
