"""The structural rules, one per function, applied in order to a gated candidate.

Each rule returns a decision (verdict and reason) or ``None`` to pass the candidate on; the
first decision wins. The order is the precedence:

1. ``not-single-return`` (v4 only): the body is not one ``return <expr>``.
2. ``local-rebinding``: ``implement`` binds the helper's name itself.
3. ``helper-call`` / ``helper-and-primitive``: a helper call in an unconditional position,
   reused or mixed (mixed when any primitive is called anywhere in ``implement``).
4. ``helper-in-…`` / ``unrecognized-guard``: helper calls exist, all conditional; the first one
   in walk order names the position.
5. ``same-name-other-module`` (v6+): a same-named function of another module or object is called.
6. ``helper-not-called``: the helper is named but never called.
7. ``primitive-only``: duplicated.
8. ``no-helper-no-primitive``: ambiguous.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from assay.records import Verdict
from assay.structure.calls import HelperSpec, Primitive
from assay.structure.names import Callee, ImportBinding, LocalBinding, Scope
from assay.structure.positions import Position, PositionReason
from assay.structure.versions import EvaluatorVersion

RuleReason = Literal[
    "helper-call",
    "helper-and-primitive",
    "primitive-only",
    "not-single-return",
    "local-rebinding",
    "same-name-other-module",
    "helper-not-called",
    "no-helper-no-primitive",
]


@dataclass(frozen=True, slots=True)
class CallSite:
    call: ast.Call
    callee: Callee
    position: Position


@dataclass(frozen=True, slots=True)
class Candidate:
    """A gated candidate with everything the rules look at, computed once."""

    implement: ast.FunctionDef
    nodes: Sequence[ast.AST]
    """Every node of ``implement``."""
    scope: Scope
    bindings: Sequence[LocalBinding]
    sites: Sequence[CallSite]
    helper: HelperSpec
    primitives: Sequence[Primitive]
    version: EvaluatorVersion

    def counts_as_helper(self, site: CallSite) -> bool:
        if self.helper.is_helper(site.callee):
            return True
        return self.version.same_name_calls_are_helper and self.helper.is_same_name(site.callee)

    def calls_primitive(self) -> bool:
        return any(p.matches(site.callee) for site in self.sites for p in self.primitives)


Decision = tuple[Verdict, RuleReason | PositionReason]
Rule = Callable[[Candidate], Decision | None]


def single_return_body(candidate: Candidate) -> Decision | None:
    if not candidate.version.single_return_body:
        return None
    body = candidate.implement.body
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return None
    return ("ambiguous", "not-single-return")


def local_rebinding(candidate: Candidate) -> Decision | None:
    helper = candidate.helper
    exact = ImportBinding(module=helper.module, symbol=helper.name) if helper.module else None
    for binding in candidate.bindings:
        is_exact_import = (
            binding.kind == "import" and exact is not None and binding.binding == exact
        )
        if is_exact_import and not candidate.version.local_exact_import_is_helper:
            return ("ambiguous", "local-rebinding")
        if binding.name == helper.name and not is_exact_import:
            return ("ambiguous", "local-rebinding")
    return None


def unconditional_helper_call(candidate: Candidate) -> Decision | None:
    for site in candidate.sites:
        if site.position is None and candidate.counts_as_helper(site):
            if candidate.calls_primitive():
                return ("mixed", "helper-and-primitive")
            return ("reused", "helper-call")
    return None


def conditional_helper_call(candidate: Candidate) -> Decision | None:
    for site in candidate.sites:
        if site.position is not None and candidate.counts_as_helper(site):
            return ("ambiguous", site.position)
    return None


def same_name_call(candidate: Candidate) -> Decision | None:
    if any(candidate.helper.is_same_name(site.callee) for site in candidate.sites):
        return ("ambiguous", "same-name-other-module")
    return None


def helper_named_not_called(candidate: Candidate) -> Decision | None:
    callees = {id(site.call.func) for site in candidate.sites}
    for node in candidate.nodes:
        if id(node) in callees or not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        if isinstance(node.ctx, ast.Load) and candidate.helper.is_helper(
            candidate.scope.resolve(node)
        ):
            return ("ambiguous", "helper-not-called")
    return None


def primitive_only(candidate: Candidate) -> Decision | None:
    return ("duplicated", "primitive-only") if candidate.calls_primitive() else None


def neither(candidate: Candidate) -> Decision:
    return ("ambiguous", "no-helper-no-primitive")


RULES: tuple[Rule, ...] = (
    single_return_body,
    local_rebinding,
    unconditional_helper_call,
    conditional_helper_call,
    same_name_call,
    helper_named_not_called,
    primitive_only,
)


def decide_with_rule(candidate: Candidate) -> tuple[Decision, str]:
    """The first rule's decision, and that rule's name (``neither`` when none decided)."""
    for rule in RULES:
        decision = rule(candidate)
        if decision is not None:
            return decision, rule.__name__
    return neither(candidate), neither.__name__


def decide(candidate: Candidate) -> Decision:
    return decide_with_rule(candidate)[0]
