"""Higher-order use of a callable (v8): the calls a candidate makes through something other
than the callable's own name.

* **Alias**: a name ``implement`` binds exactly once, by ``name = <expression>``, stands for
  that expression: ``parse = urllib.parse.urlparse`` then ``parse(u)`` calls
  ``urllib.parse.urlparse``; ``fmt = helper`` then ``fmt(x)`` calls the helper.
* **Partial application**: ``functools.partial(f, …)`` is ``f`` with arguments bound; calling
  it calls ``f`` at the position of that call (``partial(helper, sep)(value)``, or through an
  alias). A partial that is never called or passed on calls nothing.
* **Mapping of callables**: ``{"a": f, "b": g}[key](x)`` (a dict, list or tuple display, or a
  name bound once to one) calls one of its values: each value is a callee of the call, at the
  call's position when every value is the same callable, else in a branch
  (``helper-in-branch``): which one runs depends on the key, as in an ``if`` chain.
* **Callback**: the helper (or an alias or partial of it) passed as an argument to another
  call (``map(helper, xs)``, ``sorted(xs, key=helper)``, ``re.sub(p, helper, s)``) runs as
  often as that callee decides, zero or more times, like a loop body: a helper call at
  ``helper-in-callback``. Only the helper-like callees count this way; a primitive passed as an
  argument is not a primitive call (``isinstance(x, int)`` does not call ``int``).

Each becomes a :class:`DerivedCall`, which :mod:`assay.structure` turns into a call site beside
the direct ones; the rules then treat it as any other call.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from assay.structure.names import Callee, LocalBinding, Scope
from assay.structure.positions import Position

PARTIAL = "functools.partial"
_MAX_INDIRECTION = 20
"""Aliases of aliases and partials of partials followed at most this deep (a cycle stops)."""

_DISPLAYS = (ast.Dict, ast.List, ast.Tuple)


@dataclass(frozen=True, slots=True)
class DerivedCall:
    call: ast.Call
    callee: Callee
    position: Position
    via: Literal["call", "callback"]


def aliases(nodes: Sequence[ast.AST], bindings: Sequence[LocalBinding]) -> dict[str, ast.expr]:
    """Names bound exactly once inside ``implement``, by a plain ``name = <expression>``."""
    counts: dict[str, int] = {}
    for binding in bindings:
        counts[binding.name] = counts.get(binding.name, 0) + 1
    found: dict[str, ast.expr] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and counts.get(target.id) == 1:
                found[target.id] = node.value
    return found


@dataclass(frozen=True, slots=True)
class _Resolver:
    scope: Scope
    aliases: Mapping[str, ast.expr]

    def is_partial(self, expression: ast.expr) -> bool:
        callee = self.scope.resolve(expression)
        return callee.path == PARTIAL or (
            callee.origin == "global" and not callee.is_attribute and callee.path == "partial"
        )

    def targets(self, expression: ast.expr, depth: int = 0) -> tuple[list[Callee], bool]:
        """The callables ``expression`` may stand for, and whether it is a choice among
        several (a mapping of callables); none when it is not a reference to one."""
        if depth > _MAX_INDIRECTION:
            return [], False
        if isinstance(expression, ast.Name) and expression.id in self.aliases:
            return self.targets(self.aliases[expression.id], depth + 1)
        if isinstance(expression, (ast.Name, ast.Attribute)):
            callee = self.scope.resolve(expression)
            return ([callee], False) if callee.origin in ("import", "global") else ([], False)
        if isinstance(expression, ast.Call) and self.is_partial(expression.func):
            first = expression.args[0] if expression.args else None
            if first is None or isinstance(first, ast.Starred):
                return [], False
            return self.targets(first, depth + 1)
        if isinstance(expression, ast.Subscript):
            values = self.display_values(expression.value, depth + 1)
            if values is None:
                return [], False
            found = [c for value in values for c in self.targets(value, depth + 1)[0]]
            distinct = {(c.origin, c.path, c.terminal) for c in found}
            return found, len(distinct) > 1 or len(found) < len(values)
        return [], False

    def display_values(self, expression: ast.expr, depth: int) -> list[ast.expr] | None:
        """The values of a dict, list or tuple display (directly or through an alias)."""
        if depth > _MAX_INDIRECTION:
            return None
        if isinstance(expression, ast.Name) and expression.id in self.aliases:
            return self.display_values(self.aliases[expression.id], depth + 1)
        if isinstance(expression, ast.Dict):
            return list(expression.values)
        if isinstance(expression, (ast.List, ast.Tuple)):
            return [e for e in expression.elts if not isinstance(e, ast.Starred)]
        return None

    def is_direct(self, func: ast.expr) -> bool:
        """A callee the direct resolution already names (a name or attribute chain, not an
        alias)."""
        if isinstance(func, ast.Name):
            return func.id not in self.aliases
        return isinstance(func, ast.Attribute)


def derived_calls(
    sites: Sequence[tuple[ast.Call, Position]],
    scope: Scope,
    alias_values: Mapping[str, ast.expr],
) -> Iterator[tuple[int, DerivedCall]]:
    """Every higher-order call, with the index of the direct site it belongs after."""
    resolver = _Resolver(scope, alias_values)
    for index, (call, position) in enumerate(sites):
        if not resolver.is_direct(call.func):
            callees, choice = resolver.targets(call.func)
            where: Position = position or ("helper-in-branch" if choice else None)
            for callee in callees:
                yield index, DerivedCall(call, callee, where, "call")
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if resolver.is_partial(call.func) and call.args:
            arguments = arguments[1:]  # partial's own callable runs only when it is called
        for argument in arguments:
            value = argument.value if isinstance(argument, ast.Starred) else argument
            if isinstance(value, _DISPLAYS):
                continue
            callees, _ = resolver.targets(value)
            for callee in callees:
                yield index, DerivedCall(call, callee, position or "helper-in-callback", "callback")
