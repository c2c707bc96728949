"""The structural evaluator: did ``implement`` reuse the repository helper?

``score(source, helper=…, helper_module=…, primitives=…, version=…, earlier=…)`` gates the candidate
(:mod:`assay.science.gate`), then applies the version's rules (:mod:`assay.structure.rules`) and returns
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
              ``helper-in-callback`` (v8), ``same-name-other-module`` (v6+),
              ``earlier-step-undecided`` (v8), ``helper-not-called``,
              ``no-helper-no-primitive``
rejected      the gate's refusal reason (``syntax-error``, ``module-statement``, …)
============  =================================================================================

The versions and their differences are in one table: :mod:`assay.structure.versions`.

``earlier`` holds the verdicts of the same cell's earlier chain steps under the same version
(v8 decides a call of the model's own earlier step by them); :func:`verdicts_in_step_order`
scores a cell's steps in order and passes them on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Required, TypedDict, TypeVar, Unpack

from assay.core.records import Frozen, Verdict
from assay.evidence.rows import CandidateRow
from assay.science.gate import GateRefusal, Refused, admit
from assay.structure.calls import HelperSpec, parse_primitives
from assay.structure.higher_order import aliases, derived_calls
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
    "verdicts_in_step_order",
]

NO_EARLIER: Mapping[int, Verdict | None] = MappingProxyType({})

StructuralReason = RuleReason | PositionReason | GateRefusal


class StructuralResult(Frozen):
    verdict: Verdict
    reason: StructuralReason
    evaluator_version: int


class GateArguments(TypedDict, total=False):
    """What :func:`gated_candidate` takes besides the source (the task's helper and
    primitives, the evaluator version, the verdicts of the cell's earlier chain steps)."""

    helper: Required[str]
    helper_module: Required[str | None]
    primitives: Required[Sequence[str]]
    version: int
    earlier: Mapping[int, Verdict | None]


def score(source: str | bytes, **arguments: Unpack[GateArguments]) -> StructuralResult:
    """The structural verdict of one candidate source under one evaluator version."""
    version = arguments.get("version", DEFAULT_VERSION)
    return judge(gated_candidate(source, **arguments), version)


def judge(candidate: Candidate | Refused, version: int) -> StructuralResult:
    """The verdict of a candidate :func:`gated_candidate` returned under ``version``."""
    if isinstance(candidate, Refused):
        return StructuralResult(
            verdict="rejected", reason=candidate.reason, evaluator_version=version
        )
    verdict, reason = decide(candidate)
    return StructuralResult(verdict=verdict, reason=reason, evaluator_version=version)


def verdict_for(
    c: CandidateRow,
    helper: str,
    helper_module: str | None,
    primitives: Sequence[str],
    version: int,
    earlier: Mapping[int, Verdict | None] = NO_EARLIER,
) -> tuple[Verdict | None, str]:
    """One candidate's verdict and reason (``None`` and why, when there was no candidate)."""
    if c.source is None:
        return None, c.missing_reason
    result = score(
        c.source,
        helper=helper,
        helper_module=helper_module,
        primitives=primitives,
        version=version,
        earlier=earlier,
    )
    return result.verdict, result.reason


Scored = TypeVar("Scored")


def verdicts_in_step_order(
    candidates: Iterable[CandidateRow],
    score_one: Callable[[CandidateRow, Mapping[int, Verdict | None]], Scored],
    verdict_of: Callable[[Scored], Verdict | None],
) -> list[Scored]:
    """``score_one(candidate, earlier)`` for every candidate, in the given order, each cell's
    steps scored in ascending order so that ``earlier`` holds the verdicts of that cell's
    steps before it (a step without a row is absent, as is every step outside a chain)."""
    rows = list(candidates)
    by_cell: dict[str, dict[int, Verdict | None]] = {}
    results: dict[int, Scored] = {}
    for index in sorted(range(len(rows)), key=lambda i: rows[i].step):
        row = rows[index]
        steps = by_cell.setdefault(row.cell_id, {})
        earlier = MappingProxyType({k: v for k, v in steps.items() if k < row.step})
        results[index] = score_one(row, earlier)
        steps[row.step] = verdict_of(results[index])
    return [results[index] for index in range(len(rows))]


def gated_candidate(
    source: str | bytes,
    *,
    helper: str,
    helper_module: str | None,
    primitives: Sequence[str],
    version: int = DEFAULT_VERSION,
    earlier: Mapping[int, Verdict | None] = NO_EARLIER,
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
    positions = call_positions(implement, spec.guards_before_helper)
    direct = [
        CallSite(call=call, callee=scope.resolve(call.func), position=position)
        for call, position in positions
    ]
    sites = tuple(direct)
    if spec.higher_order_calls:
        after: dict[int, list[CallSite]] = {}
        for index, derived in derived_calls(positions, scope, aliases(admission.nodes, bindings)):
            site = CallSite(derived.call, derived.callee, derived.position, derived.via)
            after.setdefault(index, []).append(site)
        sites = tuple(s for i, d in enumerate(direct) for s in (d, *after.get(i, ())))
    return Candidate(
        implement=implement,
        nodes=admission.nodes,
        scope=scope,
        bindings=bindings,
        sites=sites,
        helper=HelperSpec(name=helper, module=helper_module),
        primitives=declared,
        version=spec,
        earlier=earlier if spec.own_steps_by_verdict else NO_EARLIER,
    )
