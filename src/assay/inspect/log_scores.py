"""The two scores of a cell's Inspect sample, and the eval's results: the reuse rate per arm.

``structure``: the verdict, or the cell's missing state when it has none (``not-run``,
``excluded``, ``halted``, ``no-candidate``, ``evaluator-failure``: :data:`assay.core.records
.MissingState`), explained as the page explains it (the rule that decided, the helper and
primitive calls with their lines), with the extracted candidate as its answer. ``correctness``:
the outcome and, per case, only what the page publishes: index, outcome, exception type name
(``evidence.PUBLISHED_CASE_COLUMNS``); never a hidden vector, an expected value or a generated
value. A chain cell's scores hold one value per step (``step 1`` … ``step 5``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from inspect_ai.log import EvalMetric, EvalResults, EvalScore
from inspect_ai.scorer import Score

from assay.core.records import ORDINAL_VERDICTS
from assay.inspect.log_evidence import CellEvidence, RunEvidence
from assay.report.cell_browser import CellRecord

STRUCTURE = "structure"
CORRECTNESS = "correctness"
NOT_EVALUATED = "not-evaluated"
"""A call without a correctness row (nothing of it reached the correctness stage)."""


def structure_text(record: CellRecord) -> str:
    """The verdict and why, as the page and ``assay show`` say it."""
    e = record.explanation
    head = (
        f"{record.verdict} ({record.verdict_reason}), evaluator v{record.evaluator_version}"
        if record.verdict is not None
        else f"none: {record.missing} ({record.status_reason or record.verdict_reason})"
    )
    helper_calls = ", ".join(f"line {c.line} ({c.position})" for c in e.helper_calls)
    primitive_calls = ", ".join(f"{c.primitive} line {c.line}" for c in e.primitive_calls)
    declared = ", ".join(e.declared_primitives)
    lines = [
        head,
        f"decided by: {e.rule or '-'}: {e.rule_text}",
        f"helper {e.helper}: {helper_calls or 'no call'}",
        f"primitives called: {primitive_calls or 'none'} (declared: {declared})",
    ]
    if e.same_name_call_lines:
        lines.append(
            "same-named calls elsewhere: lines " + ", ".join(map(str, e.same_name_call_lines))
        )
    return "\n".join(lines)


def structure_detail(record: CellRecord) -> dict[str, Any]:
    return {
        "step": record.step,
        "verdict": record.verdict,
        "missing": record.missing,
        "reason": record.verdict_reason,
        "evaluator_version": record.evaluator_version,
        "explanation": record.explanation.model_dump(mode="json"),
    }


def correctness_outcome(record: CellRecord) -> str:
    return record.correctness_outcome or NOT_EVALUATED


def correctness_text(record: CellRecord) -> str:
    lines = [f"{correctness_outcome(record)} ({record.correctness_reason or 'no correctness row'})"]
    for case in record.cases:
        raised = f", raised {case.exception_type}" if case.exception_type else ""
        lines.append(f"case {case.index}: {case.outcome}{raised}")
    return "\n".join(lines)


def correctness_detail(record: CellRecord) -> dict[str, Any]:
    """The correctness evidence the page publishes: status, reason, and per case only its index,
    outcome and exception type name (``evidence.PUBLISHED_CASE_COLUMNS``)."""
    return {
        "step": record.step,
        "status": record.correctness,
        "reason": record.correctness_reason,
        "cases": [
            {"index": c.index, "outcome": c.outcome, "exception_type": c.exception_type}
            for c in record.cases
        ],
    }


def _score(
    records: Sequence[CellRecord],
    value: Callable[[CellRecord], str],
    text: Callable[[CellRecord], str],
    detail: Callable[[CellRecord], dict[str, Any]],
    answer_of: Callable[[CellRecord], str | None],
) -> Score:
    """One value, explanation and metadata per call; a chain cell's per step (``step K``)."""
    if len(records) == 1:
        (record,) = records
        return Score(
            value=value(record),
            answer=answer_of(record),
            explanation=text(record),
            metadata=detail(record),
        )
    return Score(
        value={f"step {r.step}": value(r) for r in records},
        explanation="\n\n".join(f"step {r.step}: {text(r)}" for r in records),
        metadata={"steps": [detail(r) for r in records]},
    )


def scores(cell: CellEvidence) -> dict[str, Score]:
    records = [c.record for c in cell.calls]
    if not records:
        return {}
    return {
        STRUCTURE: _score(
            records,
            lambda r: r.outcome or "missing",
            structure_text,
            structure_detail,
            lambda r: r.candidate,
        ),
        CORRECTNESS: _score(
            records, correctness_outcome, correctness_text, correctness_detail, lambda r: None
        ),
    }


def _rate_metrics(
    evidence: RunEvidence, name: str, counted: Callable[[CellRecord], bool | None]
) -> tuple[dict[str, EvalMetric], dict[str, Any]]:
    """``name[arm]`` (``name[arm, step K]`` for a chain): the share of an arm's judged calls
    that ``counted`` says yes to (``None``: not judged). An arm with none judged has no
    metric; the counts say so."""
    steps = max((c.planned.steps for c in evidence.cells), default=1)
    metrics: dict[str, EvalMetric] = {}
    counts: dict[str, Any] = {}
    for arm in evidence.plan.arms:
        for step in range(1, steps + 1):
            label = arm if steps == 1 else f"{arm}, step {step}"
            judged = [
                counted(call.record)
                for cell in evidence.cells
                if cell.planned.arm == arm
                for call in cell.calls
                if call.record.step == step
            ]
            yes = sum(1 for j in judged if j)
            scored = sum(1 for j in judged if j is not None)
            counts[label] = {"yes": yes, "judged": scored, "calls": len(judged)}
            if scored:
                metric = f"{name}[{label}]"
                metrics[metric] = EvalMetric(name=metric, value=round(yes / scored, 4))
    return metrics, counts


def _reused(record: CellRecord) -> bool | None:
    return record.verdict == "reused" if record.verdict in ORDINAL_VERDICTS else None


def _correct(record: CellRecord) -> bool | None:
    outcome = record.correctness_outcome
    return outcome == "correct" if outcome in ("correct", "incorrect") else None


def results(evidence: RunEvidence) -> EvalResults:
    reuse, reuse_counts = _rate_metrics(evidence, "reuse_rate", _reused)
    correct, correct_counts = _rate_metrics(evidence, "correct_rate", _correct)
    cells = evidence.cells
    return EvalResults(
        total_samples=len(cells),
        completed_samples=sum(
            1 for c in cells if c.calls and all(x.record.status == "completed" for x in c.calls)
        ),
        scores=[
            EvalScore(
                name=STRUCTURE,
                scorer=STRUCTURE,
                metrics=reuse,
                metadata={
                    "reuse_rate": "reused / (reused + mixed + duplicated) calls of the arm",
                    "counts": reuse_counts,
                },
            ),
            EvalScore(
                name=CORRECTNESS,
                scorer=CORRECTNESS,
                metrics=correct,
                metadata={
                    "correct_rate": "correct / (correct + incorrect) calls of the arm",
                    "counts": correct_counts,
                },
            ),
        ],
    )
