"""Why a candidate got its structural verdict: the rule that decided, the helper calls and the
primitive calls found, each with its line in the candidate source.

It reads the same gated candidate the verdict comes from (:func:`assay.structure.gated_candidate`)
and the same first-decision order (:func:`assay.structure.rules.decide_with_rule`); it never
decides anything itself.
"""

from __future__ import annotations

from assay.core.records import Frozen
from assay.science.gate import Refused
from assay.structure.names import Callee
from assay.structure.rules import Candidate, decide_with_rule

RULE_TEXT = {
    "gate": "the source gate refused the module before any rule ran",
    "single_return_body": "rule 1 (v4): the body of implement is not one `return <expr>`",
    "local_rebinding": "rule 2: implement binds the helper's name itself",
    "unconditional_helper_call": (
        "rule 3: a helper call runs whenever control reaches it (mixed when any primitive is "
        "called anywhere in implement)"
    ),
    "conditional_helper_call": "rule 4: helper calls exist, all in conditional positions",
    "earlier_step_undecided": (
        "rule 4b (v8): the answer calls the model's own earlier chain step, whose verdict was "
        "neither reused, mixed nor duplicated"
    ),
    "same_name_call": "rule 5 (v6+): a same-named function of another module or object is called",
    "helper_named_not_called": "rule 6: the helper is named but never called",
    "primitive_only": "rule 7: the helper is never called and a declared primitive is",
    "neither": "rule 8: neither the helper nor a declared primitive is called",
}
"""Each rule's name (as stored in the ``rule`` column) and what it means."""


class Explanation(Frozen):
    rule: str
    """The rule that decided (a key of :data:`RULE_TEXT`)."""
    helper_call_lines: tuple[int, ...] = ()
    helper_call_positions: tuple[str, ...] = ()
    """``unconditional`` or the conditional position (``helper-in-branch`` …) of each call."""
    primitive_calls: tuple[str, ...] = ()
    """The declared primitive each primitive call matched."""
    primitive_call_lines: tuple[int, ...] = ()
    same_name_call_lines: tuple[int, ...] = ()


def callee_text(callee: Callee) -> str:
    return callee.path or callee.terminal or "?"


def explain(candidate: Candidate | Refused) -> Explanation:
    """Why the candidate :func:`assay.structure.gated_candidate` returned got its verdict."""
    if isinstance(candidate, Refused):
        return Explanation(rule="gate")
    _, rule = decide_with_rule(candidate)
    helper_sites = [s for s in candidate.sites if candidate.counts_as_helper(s)]
    primitive_hits = [
        (declared, site.call.lineno)
        for site in candidate.sites
        for declared in candidate.primitives_called(site)
    ]
    same_name = [
        s.call.lineno
        for s in candidate.sites
        if candidate.calls_same_name(s) and not candidate.counts_as_helper(s)
    ]
    return Explanation(
        rule=rule,
        helper_call_lines=tuple(s.call.lineno for s in helper_sites),
        helper_call_positions=tuple(s.position or "unconditional" for s in helper_sites),
        primitive_calls=tuple(name for name, _ in primitive_hits),
        primitive_call_lines=tuple(line for _, line in primitive_hits),
        same_name_call_lines=tuple(same_name),
    )
