"""The structural evaluator: did ``implement`` reuse the repository helper?

``score(source, helper=…, helper_module=…, primitives=…, version=…)`` gates the candidate
(:mod:`assay.gate`), then applies the version's rules (:mod:`assay.structure.rules`) and returns
a :class:`StructuralResult`: one verdict and a short machine-readable reason. It never raises on
any source; an unknown version or a malformed primitive is a caller error (``ValueError``).

Verdicts and reasons:

============  =================================================================================
reused        ``helper-call``: the helper is called in a statement that runs whenever control
              reaches it
mixed         ``helper-and-primitive``: as reused, and a primitive is called anywhere
duplicated    ``primitive-only``: the helper is never named, a primitive is called
ambiguous     ``not-single-return`` (v4), ``local-rebinding``, ``helper-in-branch``,
              ``helper-in-loop``, ``helper-in-lambda``, ``helper-in-comprehension``,
              ``helper-in-short-circuit``, ``helper-in-nested-function``, ``helper-in-handler``,
              ``helper-in-assert``, ``helper-in-annotation``, ``helper-in-signature``,
              ``helper-unreachable``, ``unrecognized-guard`` (v4, v5),
              ``same-name-other-module`` (v6+), ``helper-not-called``,
              ``no-helper-no-primitive``
rejected      the gate's refusal reason (``syntax-error``, ``module-statement``, …)
============  =================================================================================

The versions and their differences are in one table: :mod:`assay.structure.versions`.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.evidence.rows import CandidateRow
from assay.gate import GateRefusal, Refused, admit
from assay.records import Frozen, Verdict
from assay.structure.calls import HelperSpec, parse_primitives
from assay.structure.names import build_scope, local_bindings
from assay.structure.positions import PositionReason, call_positions
from assay.structure.rules import CallSite, Candidate, RuleReason, decide
from assay.structure.versions import (
    DEFAULT_VERSION,
    EVALUATOR_VERSIONS,
    EvaluatorVersion,
    evaluator_version,
)

__all__ = [
    "DEFAULT_VERSION",
    "EVALUATOR_VERSIONS",
    "EvaluatorVersion",
    "StructuralReason",
    "StructuralResult",
    "gated_candidate",
    "judge",
    "score",
    "verdict_for",
]

StructuralReason = RuleReason | PositionReason | GateRefusal


class StructuralResult(Frozen):
    verdict: Verdict
    reason: StructuralReason
    evaluator_version: int


def score(
    source: str | bytes,
    *,
    helper: str,
    helper_module: str | None,
    primitives: Sequence[str],
    version: int = DEFAULT_VERSION,
) -> StructuralResult:
    """The structural verdict of one candidate source under one evaluator version."""
    candidate = gated_candidate(
        source, helper=helper, helper_module=helper_module, primitives=primitives, version=version
    )
    return judge(candidate, version)


def judge(candidate: Candidate | Refused, version: int) -> StructuralResult:
    """The verdict of a candidate :func:`gated_candidate` returned under ``version``."""
    if isinstance(candidate, Refused):
        return StructuralResult(
            verdict="rejected", reason=candidate.reason, evaluator_version=version
        )
    verdict, reason = decide(candidate)
    return StructuralResult(verdict=verdict, reason=reason, evaluator_version=version)


def verdict_for(
    c: CandidateRow, helper: str, helper_module: str | None, primitives: Sequence[str], version: int
) -> tuple[Verdict | None, str]:
    """One candidate's verdict and reason (``None`` and why, when there was no candidate)."""
    if c.source is None:
        return None, c.missing_reason
    result = score(
        c.source, helper=helper, helper_module=helper_module, primitives=primitives, version=version
    )
    return result.verdict, result.reason


def gated_candidate(
    source: str | bytes,
    *,
    helper: str,
    helper_module: str | None,
    primitives: Sequence[str],
    version: int = DEFAULT_VERSION,
) -> Candidate | Refused:
    """The gate's refusal, or the candidate with everything the rules look at."""
    spec = evaluator_version(version)
    declared = parse_primitives(tuple(primitives))
    admission = admit(
        source, helper=helper, helper_module=helper_module, annotations=spec.annotations
    )
    if isinstance(admission, Refused):
        return admission
    implement = admission.implement
    bindings = local_bindings(implement, admission.nodes)
    scope = build_scope(admission.tree, bindings)
    sites = tuple(
        CallSite(call=call, callee=scope.resolve(call.func), position=position)
        for call, position in call_positions(implement, spec.guards_before_helper)
    )
    return Candidate(
        implement=implement,
        nodes=admission.nodes,
        scope=scope,
        bindings=bindings,
        sites=sites,
        helper=HelperSpec(name=helper, module=helper_module),
        primitives=declared,
        version=spec,
    )
