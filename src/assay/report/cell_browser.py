"""Every cell with what explains it, for the HTML cell browser and ``assay show RUN CELL``.

One record per provider call from the ``cell_details`` view (prompt, raw response, extracted
candidate, verdict with the deciding rule and the helper and primitive calls with their lines,
correctness per case, cost) plus the cell's metric deltas from ``metrics``.

What the page carries is publishable: per case only the columns of
``evidence.PUBLISHED_CASE_COLUMNS`` (index, outcome, exception type name). ``local=True`` (``assay
show``, on the machine that holds ``data/``) adds ``evidence.LOCAL_CASE_COLUMNS``: the hidden
vector's input and expected value, the value returned and the exception message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

import duckdb
from pydantic import SerializeAsAny

from assay.core.records import CellKey, Frozen
from assay.evidence.rows import LOCAL_CASE_COLUMNS, CorrectnessRow
from assay.report.query import rows
from assay.structure.explain import RULE_TEXT

SUMMARY_COLUMNS = (
    "run", "cell_id", "subject", "arm", "repeat", "step", "status", "outcome", "verdict_reason",
    "correctness_outcome", "cost_usd",
)  # fmt: skip
"""The browser table's columns, in order."""
DETAIL_COLUMNS = (
    "scenario", "model", "simulated", "verdict", "missing", "correctness", "status_reason",
    "detail", "reservation_usd", "extract_status", "evaluator_version", "correctness_reason",
    "prompt", "prompt_digest", "response", "candidate",
)  # fmt: skip
"""The other ``cell_details`` columns a cell record carries as they are."""


class CellDetail(CellKey):
    """``cell_details``: one provider call with everything that explains its outcome."""

    scenario: str
    model: str
    simulated: bool
    status: str
    status_reason: str | None
    detail: str | None
    reservation_usd: float | None
    cost_usd: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    prompt: str | None
    prompt_digest: str | None
    response: str | None
    extract_status: str | None
    candidate: str | None
    verdict: str | None
    verdict_reason: str | None
    evaluator_version: int | None
    rule: str | None
    outcome: str | None
    missing: str | None
    helper_call_lines: tuple[int, ...] | None
    helper_call_positions: tuple[str, ...] | None
    primitive_calls: tuple[str, ...] | None
    primitive_call_lines: tuple[int, ...] | None
    same_name_call_lines: tuple[int, ...] | None
    helper: str | None
    helper_module: str | None
    primitives: tuple[str, ...] | None
    correctness: str | None
    correctness_reason: str | None
    correctness_outcome: str | None
    case_indexes: tuple[int | None, ...] | None
    case_outcomes: tuple[str | None, ...] | None
    case_exception_types: tuple[str | None, ...] | None


class MetricDelta(Frozen):
    """One metric of a cell's candidate: before, after and the change (or why it is missing)."""

    tool: str
    metric: str
    before: float | None
    after: float | None
    delta: float | None
    missing_reason: str | None


class CellMetric(MetricDelta):
    """``metrics``: a metric with the cell it measures."""

    run: str
    cell_id: str


class Case(Frozen):
    """One correctness case as the page may publish it."""

    index: int | None
    outcome: str | None
    exception_type: str | None


class LocalCase(Case):
    """A case with its hidden vector and generated output (``assay show`` only)."""

    input: str | None
    expected: str | None
    actual: str | None
    exception_message: str | None


class HelperCall(Frozen):
    line: int
    position: str


class PrimitiveCall(Frozen):
    line: int
    primitive: str


class Explanation(Frozen):
    """Why the structural evaluator decided as it did: its rule and the calls it saw."""

    rule: str | None
    rule_text: str
    helper: str | None
    helper_calls: tuple[HelperCall, ...]
    primitive_calls: tuple[PrimitiveCall, ...]
    same_name_call_lines: tuple[int, ...]
    declared_primitives: tuple[str, ...]


class CellRecord(CellKey):
    """One cell for the cell browser and ``assay show``."""

    status: str
    outcome: str | None
    verdict_reason: str | None
    correctness_outcome: str | None
    cost_usd: float | None
    scenario: str
    model: str
    simulated: bool
    verdict: str | None
    missing: str | None
    correctness: str | None
    status_reason: str | None
    detail: str | None
    reservation_usd: float | None
    tokens: tuple[int | None, int | None]
    """Prompt and completion tokens."""
    extract_status: str | None
    evaluator_version: int | None
    correctness_reason: str | None
    prompt: str | None
    prompt_digest: str | None
    response: str | None
    candidate: str | None
    explanation: Explanation
    cases: tuple[SerializeAsAny[Case], ...]
    metrics: tuple[MetricDelta, ...]


T = TypeVar("T")


def _padded(values: Sequence[T] | None, length: int) -> list[T | None]:
    listed: list[T | None] = list(values or ())
    return listed + [None] * (length - len(listed))


def cases(row: CellDetail, local: CorrectnessRow | None = None) -> list[Case]:
    """Correctness per case: index, outcome and exception type name; with ``local`` (the
    call's ``correctness`` row) also input, expected, actual and exception message from its
    ``LOCAL_CASE_COLUMNS``."""
    count = len(row.case_outcomes or ())
    published = zip(
        _padded(row.case_indexes, count),
        _padded(row.case_outcomes, count),
        _padded(row.case_exception_types, count),
        strict=True,
    )
    if local is None:
        return [Case(index=i, outcome=o, exception_type=e) for i, o, e in published]
    hidden = zip(
        *(_padded(getattr(local, name), count) for name in LOCAL_CASE_COLUMNS), strict=True
    )
    return [
        LocalCase(
            index=i, outcome=o, exception_type=e, input=v, expected=x, actual=a, exception_message=m
        )
        for (i, o, e), (v, x, a, m) in zip(published, hidden, strict=True)
    ]


def explanation(row: CellDetail) -> Explanation:
    rule = row.rule
    return Explanation(
        rule=rule,
        rule_text=RULE_TEXT.get(rule, "") if rule else "not scored: no candidate source",
        helper=row.helper if not row.helper_module else f"{row.helper_module}.{row.helper}",
        helper_calls=tuple(
            HelperCall(line=line, position=position)
            for line, position in zip(
                row.helper_call_lines or (), row.helper_call_positions or (), strict=False
            )
        ),
        primitive_calls=tuple(
            PrimitiveCall(line=line, primitive=name)
            for line, name in zip(
                row.primitive_call_lines or (), row.primitive_calls or (), strict=False
            )
        ),
        same_name_call_lines=row.same_name_call_lines or (),
        declared_primitives=row.primitives or (),
    )


def cell_records(
    con: duckdb.DuckDBPyConnection,
    run: str | None = None,
    cell_id: str | None = None,
    *,
    local: bool = False,
) -> list[CellRecord]:
    """Every cell (optionally one run or one cell), ordered by run, cell and step: what may be
    published, or with ``local`` also each case's hidden vector and generated output."""
    where, params = [], []
    for column, value in (("run", run), ("cell_id", cell_id)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    details = rows(
        con,
        f"SELECT * FROM cell_details {clause} ORDER BY run, cell_id, step",
        CellDetail,
        query="cell_details",
        parameters=params,
    )
    metrics: dict[tuple[str, str], list[MetricDelta]] = {}
    for m in rows(
        con,
        "SELECT run, cell_id, tool, metric, before, after, delta, missing_reason FROM metrics "
        f"{clause} ORDER BY run, cell_id, tool, metric",
        CellMetric,
        query="metrics",
        parameters=params,
    ):
        metrics.setdefault((m.run, m.cell_id), []).append(
            MetricDelta.model_validate(m.model_dump(exclude={"run", "cell_id"}))
        )
    local_cases: Mapping[tuple[str, str, int], CorrectnessRow] = {}
    if local:
        local_cases = {
            (c.run, c.cell_id, c.step): c
            for c in rows(
                con,
                f"SELECT * FROM correctness {clause}",
                CorrectnessRow,
                query="correctness",
                parameters=params,
            )
        }
    return [
        CellRecord(
            **row.model_dump(include={*SUMMARY_COLUMNS, *DETAIL_COLUMNS}),
            tokens=(row.prompt_tokens, row.completion_tokens),
            explanation=explanation(row),
            # a call without a correctness row has no cases, published or local
            cases=tuple(cases(row, local_cases.get((row.run, row.cell_id, row.step)))),
            metrics=tuple(metrics.get((row.run, row.cell_id), [])) if row.step == 1 else (),
        )
        for row in details
    ]


def _block(title: str, text: str | None, numbered: bool = False) -> list[str]:
    if text is None:
        return [f"## {title}", "  (none)", ""]
    lines = text.rstrip("\n").splitlines() or [""]
    if numbered:
        width = len(str(len(lines)))
        lines = [f"{n:>{width}} | {line}" for n, line in enumerate(lines, start=1)]
    return [f"## {title}", *("  " + line for line in lines), ""]


def _verdict_line(r: CellRecord) -> str:
    if r.verdict is not None:
        return f"## Verdict: {r.verdict} ({r.verdict_reason}), evaluator v{r.evaluator_version}"
    why = r.status_reason or r.verdict_reason
    return f"## Verdict: none, {r.missing} ({why})"


def render_text(record: CellRecord, *, prompt: bool = True) -> str:
    """One cell for the terminal: the same content as the cell page of the HTML report."""
    r = record
    e = r.explanation
    head = [
        f"# {r.run}  {r.cell_id}  step {r.step}"
        + ("  [SIMULATED MODEL: not evidence]" if r.simulated else ""),
        (
            f"model {r.model}, scenario {r.scenario}, subject {r.subject}, arm {r.arm}, "
            f"repeat {r.repeat}"
        ),
        f"call: {r.status}"
        + (f" ({r.status_reason})" if r.status_reason else "")
        + (f", cost ${r.cost_usd:.6f}" if r.cost_usd is not None else "")
        + f", reserved ${r.reservation_usd or 0.0:.4f}",
        "",
        _verdict_line(r),
        f"  decided by: {e.rule or '-'}: {e.rule_text}",
        f"  helper {e.helper}: "
        + (", ".join(f"line {c.line} ({c.position})" for c in e.helper_calls) or "no call"),
        "  primitives called: "
        + (", ".join(f"{c.primitive} line {c.line}" for c in e.primitive_calls) or "none")
        + f" (declared: {', '.join(e.declared_primitives)})",
    ]
    if e.same_name_call_lines:
        head.append(
            "  same-named calls elsewhere: lines " + ", ".join(map(str, e.same_name_call_lines))
        )
    head.append("")
    correctness = [f"## Correctness (secondary): {r.correctness_outcome} ({r.correctness_reason})"]
    for case in r.cases:
        line = f"  case {case.index}: {case.outcome}"
        if isinstance(case, LocalCase):
            line += f"  input {case.input}  expected {case.expected}"
            if case.actual is not None:
                line += f"  actual {case.actual}"
        if case.exception_type:
            line += f"  raised {case.exception_type}"
            if isinstance(case, LocalCase) and case.exception_message:
                line += f": {case.exception_message}"
        correctness.append(line)
    correctness.append("")
    metrics = ["## Metric deltas (after - before)"]
    metrics += [
        f"  {m.tool:<11} {m.metric:<32} "
        + (f"{m.before} -> {m.after} ({m.delta:+g})" if m.delta is not None
           else f"missing: {m.missing_reason}")
        for m in r.metrics
    ] or ["  (not measured)"]  # fmt: skip
    metrics.append("")
    parts = head + correctness + metrics
    parts += _block("Candidate (extracted)", r.candidate, numbered=True)
    parts += _block("Raw response", r.response)
    if prompt:
        sent = f" sent (sha256 {r.prompt_digest})" if r.prompt_digest else ""
        parts += _block("Prompt" + sent, r.prompt)
    return "\n".join(parts)
