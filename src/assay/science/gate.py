"""The source gate: the seed's restriction on generated source, applied before any evaluator.

A candidate module may hold an optional leading docstring, import statements, and exactly one
undecorated ``def implement``. Imports cannot replace the repository helper. A refusal is a
value (``GateResult(accepted=False, reason=...)``); :func:`check_source` never raises, whatever
bytes it is given.

Refusal reasons, checked in this order (the per-statement reasons walk the module's statements
in source order, and the first offending statement decides):

=======================  ==================================================================
``not-utf8``             bytes that are not UTF-8 (a UTF-8 BOM is allowed), or text with
                         lone surrogates
``syntax-error``         the text does not parse (null bytes included)
``too-complex``          the parser gave up on the nesting
``module-statement``     a module-level statement that is neither the leading docstring, an
                         import nor a definition
``star-import``          ``from m import *``: it could bind the helper's name invisibly
``helper-replaced``      a module-level import binds the helper's name to something other
                         than the helper (see :func:`import_replaces_helper`)
``extra-definition``     a definition other than ``implement``, or a second ``implement``
``async-implement``      ``implement`` is ``async def``
``decorated``            ``implement`` has decorators
``no-implement``         no ``def implement`` at all
``unsupported-annotation``  policy ``simple`` and an annotation inside ``implement`` that is
                         not a bare name, a dotted name, a string or ``None``
=======================  ==================================================================

The helper's origin decides what "replacing" means. With ``helper_module=None`` the helper is
defined in the target file the candidate is appended to, so any module-level import binding its
name replaces it. With ``helper_module="pkg.mod"`` the name may only be bound by
``from pkg.mod import helper``; binding it from any other module (relative imports included)
replaces it, while an exact import under another name (``as h``) binds ``h`` and is fine.
"""

from __future__ import annotations

import ast
import threading
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from assay.core.records import Frozen

AnnotationPolicy = Literal["simple", "any"]

GateRefusal = Literal[
    "not-utf8",
    "syntax-error",
    "too-complex",
    "module-statement",
    "star-import",
    "helper-replaced",
    "extra-definition",
    "async-implement",
    "decorated",
    "unsupported-annotation",
    "no-implement",
]

IMPLEMENT = "implement"

_BOM = b"\xef\xbb\xbf"


class GateResult(Frozen):
    accepted: bool
    reason: GateRefusal | None = None


ACCEPTED = GateResult(accepted=True)


@dataclass(frozen=True, slots=True)
class Admitted:
    """An accepted candidate: its parsed module, its ``implement`` and every node of it."""

    tree: ast.Module
    implement: ast.FunctionDef
    nodes: tuple[ast.AST, ...]
    """Every node of ``implement``, itself included (one walk shared by the evaluator)."""


@dataclass(frozen=True, slots=True)
class Refused:
    reason: GateRefusal


def decode_source(source: str | bytes) -> str | None:
    """The source as text, or ``None`` when it is not valid UTF-8."""
    if isinstance(source, str):
        try:
            source.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return source
    raw = bytes(source)
    raw = raw.removeprefix(_BOM)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def parse_module(text: str) -> ast.Module | GateRefusal:
    """Parse text into a module, or the refusal reason when it cannot be parsed.

    The parse runs on a thread of its own: CPython limits the depth of the tree it builds by
    the caller's remaining recursion budget, so parsing at the bottom of a fresh stack gives
    every caller (the structure stage, bundle verification, a test) the same answer for the same
    text. The parser's own warnings (an invalid escape sequence, ``is`` with a literal) are
    ignored, so that the verdict never depends on the process's warning filters (under
    ``-W error`` they would turn valid code into a ``SyntaxError``). A parser that gives up on
    the input's depth or size (``RecursionError``, ``MemoryError``, ``OverflowError``, or
    CPython's ``SystemError`` on pathological input) is ``too-complex``."""
    outcome: list[ast.Module | GateRefusal] = []
    worker = threading.Thread(target=lambda: outcome.append(_parse(text)), name="assay-parse")
    worker.start()
    worker.join()
    return outcome[0] if outcome else "too-complex"


def _parse(text: str) -> ast.Module | GateRefusal:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename="<candidate>", type_comments=False)
    except (SyntaxError, ValueError):
        return "syntax-error"
    except (RecursionError, MemoryError, OverflowError, SystemError):
        return "too-complex"


def flatten(root: ast.AST) -> tuple[ast.AST, ...]:
    """Every node under ``root``, itself included, without recursion."""
    nodes: list[ast.AST] = [root]
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                nodes.append(value)
                stack.append(value)
            elif isinstance(value, list):
                children = [item for item in value if isinstance(item, ast.AST)]
                nodes.extend(children)
                stack.extend(children)
    return tuple(nodes)


def is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def bound_name(alias: ast.alias) -> str:
    """The name an import alias binds: ``import a.b`` binds ``a``; ``as x`` binds ``x``."""
    return alias.asname or alias.name.split(".")[0]


def imported_module(statement: ast.ImportFrom) -> str:
    """The module of a from-import, relative ones keeping their leading dots."""
    return "." * statement.level + (statement.module or "")


def import_replaces_helper(
    statement: ast.Import | ast.ImportFrom, helper: str, helper_module: str | None
) -> bool:
    """True when the import binds the helper's name to anything but the repository helper."""
    for alias in statement.names:
        if bound_name(alias) != helper:
            continue
        exact = (
            helper_module is not None
            and isinstance(statement, ast.ImportFrom)
            and imported_module(statement) == helper_module
            and alias.name == helper
        )
        if not exact:
            return True
    return False


def is_simple_annotation(annotation: ast.expr) -> bool:
    """A bare name, a dotted name, a string constant or ``None``."""
    node = annotation
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Name):
        return True
    return (
        node is annotation
        and isinstance(node, ast.Constant)
        and (node.value is None or isinstance(node.value, str))
    )


def annotations_within(nodes: Iterable[ast.AST]) -> Iterator[ast.expr]:
    """Every annotation among the nodes: signatures, nested signatures, annotated names."""
    for node in nodes:
        if isinstance(node, ast.arg) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


def module_refusal(
    tree: ast.Module, helper: str, helper_module: str | None
) -> GateRefusal | ast.FunctionDef:
    """Check the module's statements in order; the single ``implement`` or the first refusal."""
    implement: ast.FunctionDef | None = None
    for index, statement in enumerate(tree.body):
        if index == 0 and is_docstring(statement):
            continue
        if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
            return "star-import"
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            if import_replaces_helper(statement, helper, helper_module):
                return "helper-replaced"
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name != IMPLEMENT or implement is not None:
                return "extra-definition"
            if isinstance(statement, ast.ClassDef):
                return "extra-definition"
            if isinstance(statement, ast.AsyncFunctionDef):
                return "async-implement"
            if statement.decorator_list:
                return "decorated"
            implement = statement
            continue
        return "module-statement"
    if implement is None:
        return "no-implement"
    return implement


def admit(
    source: str | bytes,
    *,
    helper: str,
    helper_module: str | None,
    annotations: AnnotationPolicy = "any",
) -> Admitted | Refused:
    """Decode, parse and check a candidate; the parsed tree comes back when it is accepted."""
    text = decode_source(source)
    if text is None:
        return Refused("not-utf8")
    parsed = parse_module(text)
    if isinstance(parsed, str):
        return Refused(parsed)
    checked = module_refusal(parsed, helper, helper_module)
    if isinstance(checked, str):
        return Refused(checked)
    nodes = flatten(checked)
    if annotations == "simple" and not all(
        is_simple_annotation(a) for a in annotations_within(nodes)
    ):
        return Refused("unsupported-annotation")
    return Admitted(tree=parsed, implement=checked, nodes=nodes)


def check_source(
    source: str | bytes,
    *,
    helper: str,
    helper_module: str | None,
    annotations: AnnotationPolicy = "any",
) -> GateResult:
    """Accept or refuse a candidate module under the seed's source restriction."""
    admission = admit(source, helper=helper, helper_module=helper_module, annotations=annotations)
    if isinstance(admission, Refused):
        return GateResult(accepted=False, reason=admission.reason)
    return ACCEPTED
