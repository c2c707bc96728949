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
from typing import Literal, cast

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
    "helper-in-callback",
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
    loops forever: ``while True`` without a ``break`` of its own).

    Decided bottom-up over the nested statements with an explicit stack, so no depth of
    nesting (an ``elif`` chain of any length) can exhaust the recursion limit."""
    exits: dict[int, bool] = {}
    for node in reversed(_exit_relevant(statement)):
        exits[id(node)] = _exits_given(node, exits)
    return exits[id(statement)]


def _exit_blocks(statement: ast.stmt) -> list[Sequence[ast.stmt]]:
    """The blocks whose statements decide whether ``statement`` always exits."""
    if isinstance(statement, ast.If):
        return [statement.body, statement.orelse]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [statement.body]
    if isinstance(statement, (ast.Try, ast.TryStar)):
        handlers = [handler.body for handler in statement.handlers]
        return [statement.body, statement.orelse, *handlers, statement.finalbody]
    return []


def _exit_relevant(statement: ast.stmt) -> list[ast.stmt]:
    """``statement`` and every statement nested in the blocks that decide its exit, parents
    before their children."""
    order: list[ast.stmt] = []
    stack = [statement]
    while stack:
        node = stack.pop()
        order.append(node)
        for block in _exit_blocks(node):
            stack.extend(block)
    return order


def _exits_given(statement: ast.stmt, exits: dict[int, bool]) -> bool:
    """:func:`always_exits` of one statement, its nested statements already decided."""

    def block(statements: Sequence[ast.stmt]) -> bool:
        return any(exits[id(s)] for s in statements)

    if isinstance(statement, (ast.Return, ast.Raise)):
        return True
    if isinstance(statement, ast.If):
        return block(statement.body) and block(statement.orelse)
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return block(statement.body)
    if isinstance(statement, (ast.Try, ast.TryStar)):
        normal = block(statement.body) or block(statement.orelse)
        handled = all(block(handler.body) for handler in statement.handlers)
        return (normal and handled) or block(statement.finalbody)
    if isinstance(statement, ast.While):
        endless = isinstance(statement.test, ast.Constant) and bool(statement.test.value)
        return endless and not _breaks_out(statement.body)
    return False


def _breaks_out(statements: Sequence[ast.stmt]) -> bool:
    """True when a ``break`` among the statements leaves the loop that holds them (a nested
    loop's own body, a nested definition and a class body are not searched)."""
    stack = list(statements)
    while stack:
        statement = stack.pop()
        if isinstance(statement, ast.Break):
            return True
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(statement.orelse)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        elif isinstance(statement, ast.Match):
            stack.extend(s for case in statement.cases for s in case.body)
        elif isinstance(statement, (ast.Try, ast.TryStar)):
            stack.extend(s for h in statement.handlers for s in h.body)
            stack.extend([*statement.body, *statement.orelse, *statement.finalbody])
        else:
            for name in ("body", "orelse"):
                block = getattr(statement, name, [])
                if isinstance(block, list):
                    stack.extend(block)
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
_Task = tuple[Literal["body", "conditionals"], Sequence[ast.AST], Position]
"""A statement sequence still to walk: a spine under what blocks it, or conditional nodes."""


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
        """Walk a statement sequence on the unconditional spine, tracking what blocks it.
        Nested spines (the bodies of ``try`` and ``with``) go on an explicit stack, walked in
        source order, so no nesting depth can exhaust the recursion limit."""
        stack: list[_Task] = [("body", statements, reason)]
        while stack:
            kind, nodes, position = stack.pop()
            if kind == "conditionals":
                if position is not None:
                    self.conditionals(nodes, position)
                continue
            blocked = position
            for index, statement in enumerate(cast("Sequence[ast.stmt]", nodes)):
                nested = self.statement(statement, blocked)
                blocked = self._after(statement, blocked)
                if nested:  # a nested spine first; the rest of this one waits on the stack
                    stack.extend(reversed([*nested, ("body", nodes[index + 1 :], blocked)]))
                    break

    def _after(self, statement: ast.stmt, blocked: Position) -> Position:
        """What blocks the statements after ``statement`` on a spine blocked by ``blocked``."""
        if blocked in (None, "unrecognized-guard") and always_exits(statement):
            return "helper-unreachable"
        if (
            blocked is None
            and self.guards == "flat"
            and isinstance(statement, _CONTROL_FLOW)
            and not is_flat_guard(statement)
        ):
            return "unrecognized-guard"
        return blocked

    def statement(self, node: ast.stmt, reason: Position) -> list[_Task]:
        """Classify the calls of one statement; the nested spines it holds come back as
        tasks, to be walked in order after it."""
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
            handled = [*node.handlers, *node.orelse, *node.finalbody]
            return [("body", node.body, None), ("conditionals", handled, "helper-in-handler")]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expressions([item.context_expr, item.optional_vars])
            return [("body", node.body, None)]
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
        return []


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
