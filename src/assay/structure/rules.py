"""The structural rules, one per function, applied in order to a gated candidate.

Each rule returns a decision (verdict and reason) or ``None`` to pass the candidate on; the
first decision wins. The order is the precedence:

1. ``not-single-return`` (v4 only): the body is not one ``return <expr>``.
2. ``local-rebinding``: ``implement`` binds the helper's name itself.
3. ``helper-call`` / ``helper-and-primitive``: a helper call in an unconditional position,
   reused or mixed (mixed when any primitive is called anywhere in ``implement``).
4. ``helper-in-…`` / ``unrecognized-guard``: helper calls exist, all conditional; the first one
   in walk order names the position.
4b. ``earlier-step-undecided`` (v8, chain steps 2-5): the answer calls the model's own earlier
   step, whose verdict was neither reused, mixed nor duplicated.
5. ``same-name-other-module`` (v6+): a same-named function of another module or object is called
   (v8: unless the call resolves to a declared primitive, whatever name it is bound to).
6. ``helper-not-called``: the helper is named but never called.
7. ``primitive-only``: duplicated.
8. ``no-helper-no-primitive``: ambiguous.

A call of the model's own earlier chain step (``implement_step_<k>``, v8) counts by that step's
verdict: a helper call when it was reused, a primitive call when duplicated, both when mixed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from assay.core.records import Verdict
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
    "earlier-step-undecided",
    "helper-not-called",
    "no-helper-no-primitive",
]


OWN_STEP = re.compile(r"implement_step_([1-9][0-9]*)")
"""How a chain merges the model's earlier answers into the target (``fixtures.chain``)."""
HELPER_LIKE_STEP: frozenset[Verdict | None] = frozenset({"reused", "mixed"})
PRIMITIVE_LIKE_STEP: frozenset[Verdict | None] = frozenset({"duplicated", "mixed"})


@dataclass(frozen=True, slots=True)
class CallSite:
    call: ast.Call
    callee: Callee
    position: Position
    via: Literal["call", "callback"] = "call"
    """``callback``: the callee is passed to ``call`` (v8's higher-order use), not called."""


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
    earlier: Mapping[int, Verdict | None]
    """The verdicts of this cell's earlier chain steps (empty outside a chain)."""

    def own_step(self, site: CallSite) -> int | None:
        """The earlier chain step the site calls (v8), or ``None``."""
        callee = site.callee
        if not self.version.own_steps_by_verdict or callee.origin != "global":
            return None
        match = OWN_STEP.fullmatch(callee.path or "") if not callee.is_attribute else None
        step = int(match.group(1)) if match else None
        return step if step in self.earlier else None

    def counts_as_helper(self, site: CallSite) -> bool:
        if self.helper.is_helper(site.callee):
            return True
        step = self.own_step(site)
        if step is not None:
            return self.earlier[step] in HELPER_LIKE_STEP
        if site.via == "callback":
            return False
        return self.version.same_name_calls_are_helper and self.helper.is_same_name(site.callee)

    def primitives_called(self, site: CallSite) -> list[str]:
        """The declared primitives (or the duplicating earlier step) the site calls."""
        if site.via == "callback":
            return []
        step = self.own_step(site)
        if step is not None:
            return [f"implement_step_{step}"] if self.earlier[step] in PRIMITIVE_LIKE_STEP else []
        return [p.declared for p in self.primitives if p.matches(site.callee)]

    def calls_primitive(self) -> bool:
        return any(self.primitives_called(site) for site in self.sites)

    def calls_same_name(self, site: CallSite) -> bool:
        """A same-named function of another module or object (v8: not a declared primitive)."""
        if site.via == "callback" or not self.helper.is_same_name(site.callee):
            return False
        if self.version.primitives_by_binding:
            return not any(p.matches(site.callee) for p in self.primitives)
        return True


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


def earlier_step_undecided(candidate: Candidate) -> Decision | None:
    for site in candidate.sites:
        step = candidate.own_step(site)
        if (
            step is not None
            and candidate.earlier[step] not in HELPER_LIKE_STEP | PRIMITIVE_LIKE_STEP
        ):
            return ("ambiguous", "earlier-step-undecided")
    return None


def same_name_call(candidate: Candidate) -> Decision | None:
    if any(candidate.calls_same_name(site) for site in candidate.sites):
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
    earlier_step_undecided,
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
