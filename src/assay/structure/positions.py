"""Where each call inside ``implement`` sits: unconditionally evaluated, or why not.

A call is *unconditional* when it is evaluated whenever control reaches the statement holding
it, and that statement runs whenever control reaches it: a statement at the top level of
``implement``'s body, or in the body of a top-level ``try``/``with`` (recursively), before
anything that always ends the function. Inside such a statement the call must itself be
evaluated unconditionally: the test of an ``if``/``while``, the iterable of a ``for``, the
context of a ``with``, the subject of a ``match``, the first operand of ``and``/``or``, the
first two operands of a comparison chain, the first iterable of a comprehension, the defaults of
a lambda or nested definition. Every other call gets the reason it is conditional; the outermost
reason wins.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

PositionReason = Literal[
    "helper-in-branch",
    "helper-in-loop",
    "helper-in-lambda",
    "helper-in-comprehension",
    "helper-in-short-circuit",
    "helper-in-nested-function",
    "helper-in-handler",
    "helper-in-assert",
    "helper-in-annotation",
    "helper-in-signature",
    "helper-unreachable",
    "unrecognized-guard",
]
Position = PositionReason | None
"""``None`` means unconditional."""

GuardPolicy = Literal["flat", "any"]

_CONTROL_FLOW = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.TryStar,
    ast.With,
    ast.AsyncWith,
    ast.Match,
)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def always_exits(statement: ast.stmt) -> bool:
    """True when control never passes beyond the statement: every path returns or raises (or
    loops forever: ``while True`` without a ``break`` of its own)."""
    if isinstance(statement, (ast.Return, ast.Raise)):
        return True
    if isinstance(statement, ast.If):
        return block_exits(statement.body) and block_exits(statement.orelse)
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return block_exits(statement.body)
    if isinstance(statement, (ast.Try, ast.TryStar)):
        normal = block_exits(statement.body) or block_exits(statement.orelse)
        handled = all(block_exits(handler.body) for handler in statement.handlers)
        return (normal and handled) or block_exits(statement.finalbody)
    if isinstance(statement, ast.While):
        endless = isinstance(statement.test, ast.Constant) and bool(statement.test.value)
        return endless and not _breaks_out(statement.body)
    return False


def _breaks_out(statements: Sequence[ast.stmt]) -> bool:
    """True when a ``break`` among the statements leaves the loop that holds them."""
    for statement in statements:
        if isinstance(statement, ast.Break):
            return True
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            if _breaks_out(statement.orelse):
                return True
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(statement, ast.Match):
            if any(_breaks_out(case.body) for case in statement.cases):
                return True
            continue
        if isinstance(statement, (ast.Try, ast.TryStar)):
            handlers = [s for h in statement.handlers for s in h.body]
            blocks = [statement.body, handlers, statement.orelse, statement.finalbody]
            if any(_breaks_out(block) for block in blocks):
                return True
            continue
        nested = [getattr(statement, name, []) for name in ("body", "orelse")]
        if any(isinstance(block, list) and _breaks_out(block) for block in nested):
            return True
    return False


def block_exits(statements: Sequence[ast.stmt]) -> bool:
    return any(always_exits(statement) for statement in statements)


def is_flat_guard(statement: ast.stmt) -> bool:
    """``if <test>:`` without ``else`` whose body only returns or raises (v5's guard)."""
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and all(isinstance(s, (ast.Return, ast.Raise)) for s in statement.body)
    )


Part = tuple[ast.AST | None, Position]


def _evaluated_parts(node: ast.AST) -> list[Part]:
    """The children of an unconditionally evaluated node, each with its own position."""
    if isinstance(node, ast.BoolOp):
        first, *rest = node.values
        return [(first, None), *_lazy(rest, "helper-in-short-circuit")]
    if isinstance(node, ast.Compare):
        later = _lazy(node.comparators[1:], "helper-in-short-circuit")
        return [(node.left, None), (node.comparators[0], None), *later]
    if isinstance(node, ast.IfExp):
        return [(node.test, None), *_lazy([node.body, node.orelse], "helper-in-branch")]
    if isinstance(node, ast.Lambda):
        defaults: list[Part] = [(d, None) for d in [*node.args.defaults, *node.args.kw_defaults]]
        return [*defaults, (node.body, "helper-in-lambda")]
    if isinstance(node, _COMPREHENSIONS):
        generator, *later_generators = node.generators
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        lazy = [*elements, generator.target, *generator.ifs, *later_generators]
        return [(generator.iter, None), *_lazy(lazy, "helper-in-comprehension")]
    return [(child, None) for child in ast.iter_child_nodes(node)]


def _lazy(nodes: Sequence[ast.AST | None], reason: PositionReason) -> list[Part]:
    return [(node, reason) for node in nodes]


@dataclass
class _Walker:
    guards: GuardPolicy
    sites: list[tuple[ast.Call, Position]] = field(default_factory=list)

    def conditional(self, node: ast.AST | None, reason: PositionReason) -> None:
        if node is None:
            return
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                self.sites.append((inner, reason))

    def conditionals(self, nodes: Sequence[ast.AST | None], reason: PositionReason) -> None:
        for node in nodes:
            self.conditional(node, reason)

    def expression(self, root: ast.AST | None) -> None:
        """Walk a node evaluated unconditionally, classifying the calls inside it in source
        order. Iterative, so no expression nesting can exhaust the recursion limit."""
        stack: list[Part] = [(root, None)]
        while stack:
            node, reason = stack.pop()
            if node is None:
                continue
            if reason is not None:
                self.conditional(node, reason)
                continue
            if isinstance(node, ast.Call):
                self.sites.append((node, None))
            stack.extend(reversed(_evaluated_parts(node)))

    def expressions(self, nodes: Sequence[ast.AST | None]) -> None:
        for node in nodes:
            self.expression(node)

    def body(self, statements: Sequence[ast.stmt], reason: Position) -> None:
        """Walk a statement sequence on the unconditional spine, tracking what blocks it."""
        blocked = reason
        for statement in statements:
            self.statement(statement, blocked)
            if blocked in (None, "unrecognized-guard") and always_exits(statement):
                blocked = "helper-unreachable"
            elif (
                blocked is None
                and self.guards == "flat"
                and isinstance(statement, _CONTROL_FLOW)
                and not is_flat_guard(statement)
            ):
                blocked = "unrecognized-guard"

    def statement(self, node: ast.stmt, reason: Position) -> None:
        if reason is not None:
            self.conditional(node, reason)
        elif isinstance(node, ast.If):
            self.expression(node.test)
            self.conditionals([*node.body, *node.orelse], "helper-in-branch")
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.expression(node.iter)
            self.conditionals([node.target, *node.body, *node.orelse], "helper-in-loop")
        elif isinstance(node, ast.While):
            self.expression(node.test)
            self.conditionals([*node.body, *node.orelse], "helper-in-loop")
        elif isinstance(node, (ast.Try, ast.TryStar)):
            self.body(node.body, None)
            self.conditionals([*node.handlers, *node.orelse, *node.finalbody], "helper-in-handler")
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expressions([item.context_expr, item.optional_vars])
            self.body(node.body, None)
        elif isinstance(node, ast.Match):
            self.expression(node.subject)
            self.conditionals(node.cases, "helper-in-branch")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.expressions([*node.decorator_list, *node.args.defaults, *node.args.kw_defaults])
            self.conditionals([*node.body, node.returns], "helper-in-nested-function")
            self.conditionals(_argument_annotations(node.args), "helper-in-nested-function")
        elif isinstance(node, ast.ClassDef):
            self.expressions([*node.decorator_list, *node.bases, *node.keywords])
            self.conditionals(node.body, "helper-in-nested-function")
        elif isinstance(node, ast.Assert):
            self.conditionals([node.test, node.msg], "helper-in-assert")
        elif isinstance(node, ast.AnnAssign):
            self.expressions([node.target, node.value])
            self.conditional(node.annotation, "helper-in-annotation")
        else:
            self.expressions(list(ast.iter_child_nodes(node)))


def _argument_annotations(arguments: ast.arguments) -> list[ast.expr | None]:
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    return [a.annotation for a in every if a is not None]


def call_positions(
    function: ast.FunctionDef, guards: GuardPolicy
) -> list[tuple[ast.Call, Position]]:
    """Every call in the function (signature included) with its position, in walk order."""
    walker = _Walker(guards=guards)
    walker.body(function.body, None)
    signature = [
        *function.args.defaults,
        *function.args.kw_defaults,
        *_argument_annotations(function.args),
        function.returns,
        *function.decorator_list,
    ]
    walker.conditionals(signature, "helper-in-signature")
    return walker.sites
