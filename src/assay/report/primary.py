"""Per-run reports from the SQL in ``queries/``: the primary abstraction report and, beside it
(never inside it), the secondary correctness report.

Each has: the simulated banner, the authorization state, what happened to every call, outcome
counts per arm, per-subject cells with lower medians, and the paired sign test of the reference
arm against every other arm (descriptive-only below the minimum inference set).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

import duckdb
from pydantic import BaseModel

from assay.core.records import SEND_REFUSED, Frozen
from assay.report.database import query_text
from assay.report.denominators import (
    arm_rates,
    descriptive_text,
    differential_missingness,
    missingness_line,
)
from assay.report.effects import (
    CONTROLLED_PROBES,
    EFFECT_COLUMNS,
    EFFECT_NOTE,
    RatePair,
    effect_cells,
    effects_by_comparison,
)
from assay.report.kinds import ABSTRACTION, CORRECTNESS, KINDS, ReportKind
from assay.report.query import rows, rows_by_run
from assay.report.run_records import (
    Adjudicated,
    Agreement,
    AgreementRow,
    Comparison,
    Excluded,
    ExecutionCount,
    FirstFailure,
    LabelledRun,
    OutcomeCount,
    ReportedRun,
    Reproduction,
    Retry,
    RunReport,
    ShownRate,
    SignTest,
    StopCause,
    Stopped,
    SubjectCells,
    preregistration_of,
)
from assay.report.verdict_sets import NOTHING_TO_TEST
from assay.science.effect import SignFlipEffect
from assay.science.stats import Inference, decide, holm

SIMULATED_BANNER = (
    "> **SIMULATED MODEL.** These answers come from assay's seeded stand-in, not from a language "
    "model. They test the pipeline and are not evidence about any model."
)
LOCAL_BANNER = (
    "> **REAL LOCAL MODEL.** These answers come from {label}: a real open-weight language "
    "model, run on this machine by assay's local provider, free and offline. It is tiny next to "
    "the models the seed studies, so the results are evidence about this model only."
)
INSPECT_LOG_BANNER = (
    "> **ANSWERS FROM AN INSPECT LOG.** These answers come from {label}. They were made outside "
    "assay, which sent no request and did not control their spend (nor the model's settings or "
    "any retries: the log records them); assay read them from the log and scored them as any "
    "run's."
)
QUALIFICATION_BANNER = (
    "> **QUALIFICATION RUN.** {label}: a small paid run that shows the route answers as "
    "declared before a study on it may be authorized (docs/paid-runs.md). Its cells are too "
    "few for its sign tests to decide anything: it is not a study."
)
TEST_COLUMNS = [
    "step", "reference_arm", "arm", "complete_subjects", "incomplete_subjects",
    "favouring_reference", "favouring_arm", "ties", "p_value", "p_holm", "significant",
    "descriptive_only", "note",
]  # fmt: skip
SECONDARY_NOTE = (
    "Correctness is a secondary diagnostic, not a second confirmatory hypothesis: these sign "
    "tests describe the arms and are never called significant. Passing finite cases is not "
    "evidence of reuse, and reuse is not evidence of correctness."
)


R = TypeVar("R", bound=Frozen)
B = TypeVar("B", bound=BaseModel)

Reports = dict[str, RunReport]
"""One kind's reports, by run."""


def _query(
    con: duckdb.DuckDBPyConnection, name: str, row: type[R], kind: ReportKind
) -> dict[str, list[R]]:
    return rows_by_run(con, query_text(name, kind), row, query=f"queries/{name}")


class CountedTest(Protocol):
    """A report query's row of one paired sign test: its plan's alpha and minimum inference set,
    and the subjects whose medians tie."""

    alpha: float
    ties: int
    minimum_subjects: int


def published_decision(
    p_value: float, test: CountedTest, *, non_tied: int, complete_subjects: int
) -> tuple[float, Inference]:
    """``p_value`` as the reports publish it (10 decimals) and the decision on it
    (:func:`assay.science.stats.decide`)."""
    p = round(p_value, 10)
    inference = decide(
        p,
        test.alpha,
        non_tied=non_tied,
        ties=test.ties,
        complete_subjects=complete_subjects,
        minimum_subjects=test.minimum_subjects,
    )
    return p, inference


def sign_test_rows(
    comparisons: Iterable[Comparison],
    kind: ReportKind = ABSTRACTION,
    effects: Mapping[tuple[int, str], SignFlipEffect | None] | None = None,
) -> list[SignTest]:
    """Each comparison with ``significant``, ``descriptive_only`` and ``note`` from
    :func:`assay.science.stats.decide` (the one place they are decided), and its effect size from
    ``effects`` (by step and arm; never part of the decision); a secondary report's rows are
    never significant."""
    tests = []
    for c in comparisons:
        effect = (effects or {}).get((c.step, c.arm))
        if not c.complete_subjects:
            tests.append(
                SignTest(
                    **c.model_dump(exclude={"p_value"}),
                    p_value=None,
                    **NOTHING_TO_TEST.model_dump(),
                    effect=effect,
                )
            )
            continue
        p, inference = published_decision(
            c.p_value or 0.0,  # a comparison with a complete subject has a p-value
            c,
            non_tied=c.favouring_reference + c.favouring_arm,
            complete_subjects=c.complete_subjects,
        )
        decided = inference.model_dump()
        if not kind.confirmatory:
            decided["significant"] = None
            decided["note"] = "secondary diagnostic (descriptive): " + inference.note
        tests.append(SignTest(**{**c.model_dump(), "p_value": p, **decided}, effect=effect))
    return with_holm(tests)


def with_holm(tests: list[SignTest]) -> list[SignTest]:
    """Each test with ``p_holm``: its p adjusted by Holm's method over the arms compared with
    the reference at the same step (the preregistered ``p_value`` stays the decision); a
    significant result that does not survive the adjustment says so in its note."""
    steps: dict[int, list[int]] = {}
    for index, test in enumerate(tests):
        steps.setdefault(test.step, []).append(index)
    adjusted: dict[int, float | None] = {}
    for indexes in steps.values():
        family = holm([tests[i].p_value for i in indexes])
        adjusted |= {
            i: None if p is None else round(p, 10) for i, p in zip(indexes, family, strict=True)
        }
    held = []
    for index, test in enumerate(tests):
        p_holm = adjusted[index]
        note = test.note
        if test.significant and p_holm is not None and p_holm >= test.alpha:
            note += f"; not significant after Holm adjustment over the {len(steps[test.step])} arms"
        held.append(test.model_copy(update={"p_holm": p_holm, "note": note}))
    return held


class RunVersions(Frozen):
    run: str
    versions: tuple[int, ...]


def versions_by_run(
    con: duckdb.DuckDBPyConnection, column: str, table: str
) -> dict[str, tuple[int, ...]]:
    """Per run, the distinct ``column`` values of ``table`` (an evaluator or extraction
    version), in order."""
    listed = rows(
        con,
        f"SELECT run, list(DISTINCT {column} ORDER BY {column}) AS versions FROM {table} "
        "GROUP BY run",
        RunVersions,
        query=f"{column} of {table}",
    )
    return {row.run: row.versions for row in listed}


def build_reports(
    con: duckdb.DuckDBPyConnection,
    kind: ReportKind = ABSTRACTION,
    *,
    reproduction: Mapping[str, Sequence[Reproduction]] | None = None,
    rescoring: Mapping[str, Sequence[str]] | None = None,
    adjudication: Mapping[str, Adjudicated] | None = None,
) -> Reports:
    """One report of ``kind`` per planned run, with what other evidence says about it, by run
    (``reproduction``: other fresh runs of its plan; ``rescoring``: other evaluator versions'
    headlines; ``adjudication``: the human decisions): each only where there is some."""
    runs = rows(con, "SELECT * FROM runs ORDER BY run", LabelledRun, query="runs")
    comparisons = _query(con, "comparisons.sql", Comparison, kind)
    effects = {
        run: effects_by_comparison(pairs)
        for run, pairs in _query(con, "rate_differences.sql", RatePair, kind).items()
    }
    counts = _query(con, "verdict_counts.sql", OutcomeCount, kind)
    subjects = _query(con, "subject_table.sql", SubjectCells, kind)
    execution = _query(con, "execution.sql", ExecutionCount, kind)
    excluded = _query(con, "scenario_excluded.sql", Excluded, kind)
    stops = _query(con, "stops.sql", StopCause, kind)
    halts = {
        run: first for run, (first, *_) in _query(con, "halts.sql", FirstFailure, kind).items()
    }
    retries = _query(con, "retries.sql", Retry, kind)
    agreement = {
        run: [Agreement(**row.model_dump(exclude={"arm_order"})) for row in grouped]
        for run, grouped in _query(con, "repeat_agreement.sql", AgreementRow, kind).items()
    }
    # only the abstraction report reads verdicts (the correctness bundle holds none)
    scored_with = (
        versions_by_run(con, "evaluator_version", "verdicts") if kind == ABSTRACTION else {}
    )
    extracted_with = versions_by_run(con, "extraction_version", "candidates")
    built = {}
    for labelled in runs:
        name = labelled.run
        run = ReportedRun(
            **labelled.model_dump(),
            structure_evaluator=scored_with.get(name, ()),
            extraction=extracted_with.get(name, ()),
        )
        outcome_counts = counts.get(name, [])
        rates = arm_rates(outcome_counts, run.arms, kind)
        built[name] = RunReport(
            report=kind.name,
            scale=kind.scale,
            scope=CONTROLLED_PROBES if kind.confirmatory else None,
            run=run,
            execution=tuple(execution.get(name, [])),
            excluded=tuple(excluded.get(name, [])),
            stopped=stopped(
                execution.get(name, []),
                stops.get(name, []),
                halts.get(name),
                retries.get(name, []),
                free=run.authorization == "free",
            ),
            outcome_counts=tuple(outcome_counts),
            subjects=tuple(subjects.get(name, [])),
            sign_tests=tuple(sign_test_rows(comparisons.get(name, []), kind, effects.get(name))),
            repeat_agreement=tuple(agreement.get(name, [])),
            rates=tuple(
                ShownRate(
                    **rate.model_dump(), unscored=rate.unscored, rate=rate.rate, text=rate.text()
                )
                for rate in rates
            ),
            missingness=tuple(differential_missingness(rates, run.reference_arm, run.alpha)),
            reproduction=tuple(reproduction[name])
            if reproduction and name in reproduction
            else None,
            rescoring=tuple(rescoring[name]) if rescoring and name in rescoring else None,
            adjudication=(adjudication or {}).get(name),
        )
    return built


def stopped(
    execution: Sequence[ExecutionCount],
    causes: Sequence[StopCause],
    first: FirstFailure | None,
    retried: Sequence[Retry],
    *,
    free: bool = False,
) -> Stopped:
    """Why a run stopped, in words: the halt, the first failing call and its cause, what comes
    next (a free run's next ``dvc repro`` sends what was not answered; a paid run is never
    resumed), the calls counted by cause, the retried calls, and reported spend above what was
    reserved."""
    return Stopped(
        summary=_summary(execution, causes, first, free=free),
        first_failure=first,
        causes=tuple(causes),
        retried=tuple(retried),
        overspend=_overspend(execution),
    )


def _summary(
    execution: Sequence[ExecutionCount],
    causes: Sequence[StopCause],
    first: FirstFailure | None,
    *,
    free: bool,
) -> str:
    """Why the run stopped and what comes next, in a sentence or three."""
    calls = sum(row.calls for row in execution)
    completed = sum(row.calls for row in execution if row.status == "completed")
    ceiling = next((c for c in causes if c.cause == "ceiling-reached"), None)
    if first is not None and first.halted:
        summary = (
            f"Halted after call `{first.cell_id}` step {first.step} "
            f"(`{first.reason}`): {first.detail or first.status}. Every later call was "
            "not sent."
        )
        if free:  # no budget was involved
            summary += (
                " A free run costs nothing to retry: the next `uv run dvc repro` sends the "
                "calls not answered again (a call that failed three times is final)."
            )
        else:
            summary += (
                " A paid run is never resumed: find the cause, then plan and authorize a fresh "
                "run (a new run id) with its own budget."
            )
    elif any(c.cause == SEND_REFUSED for c in causes):
        why = (
            f": {first.reason.removeprefix(SEND_REFUSED + ': ')}"
            if first is not None and first.reason and first.reason.startswith(SEND_REFUSED)
            else " (each call's reason says why; the send stage printed it)"
        )
        summary = (
            f"Nothing was sent this time: a check before sending refused the run{why}. Fix the "
            "cause; the next `dvc repro` tries again."
        )
    elif ceiling is not None:
        summary = (
            f"Stopped at the ceiling: {ceiling.calls} calls were not sent because "
            "reserving one more request would pass the ceiling."
        )
    elif any(c.cause == "awaiting-authorization" for c in causes):
        summary = "Awaiting authorization: nothing was sent."
    elif any(c.status == "interrupted" for c in causes):
        summary = (
            "The process ended mid-request; a paid run is never resumed, so the calls after it "
            "were not sent."
        )
    elif completed == calls:
        summary = "Every call completed."
    else:
        summary = f"{completed} of {calls} calls completed."
    return summary


def _overspend(execution: Sequence[ExecutionCount]) -> str | None:
    """A billing anomaly: the provider reported more spend than was reserved."""
    reserved = sum(row.reserved_usd or 0 for row in execution)
    reported = sum(row.reported_usd or 0 for row in execution)
    if reported > reserved + 1e-9 and reserved > 0:
        return (
            f"The provider reported ${reported:.6f}, more than the ${reserved:.6f} reserved: a "
            "billing anomaly. Check the charges in the provider's console."
        )
    return None


def _stopped_markdown(stop: Stopped) -> list[str]:
    parts = ["## Why the run stopped\n", stop.summary + "\n"]
    if stop.overspend:
        parts.append(f"**{stop.overspend}**\n")
    first = stop.first_failure
    if first is not None and not first.halted and first.status != "not-run":
        parts.append(
            f"First failing call: `{first.cell_id}` step {first.step} "
            f"(`{first.reason}`): {first.detail or first.status}.\n"
        )
    if stop.causes:
        parts.append("Calls not completed (or halting), by cause:\n")
        parts.append(markdown_table(stop.causes, ["status", "cause", "calls", "example"]))
    if stop.retried:
        parts.append("Calls that took more than one attempt (every other call took one):\n")
        parts.append(markdown_table(stop.retried, ["cell_id", "step", "status", "attempts"]))
    return parts


def markdown_grid(columns: Sequence[str], cells: Iterable[Sequence[object]]) -> str:
    """A Markdown table of ``cells`` (one sequence per row, in ``columns`` order); ``None`` is
    shown as ``—`` and an empty table as ``_none_``."""
    lines = [
        "| " + " | ".join("—" if value is None else str(value) for value in row) + " |"
        for row in cells
    ]
    if not lines:
        return "_none_\n"
    header = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return "\n".join(header + lines) + "\n"


def markdown_table(rows: Iterable[BaseModel], columns: Sequence[str]) -> str:
    """A Markdown table of the records' ``columns`` (their field names)."""
    return markdown_grid(columns, ([getattr(row, c) for c in columns] for row in rows))


def _header(report: RunReport) -> list[str]:
    run = report.run
    parts = []
    if run.simulated:
        parts.append(SIMULATED_BANNER + "\n")
    if run.local_model:
        parts.append(LOCAL_BANNER.format(label=run.local_model) + "\n")
    if run.answers_source:
        parts.append(INSPECT_LOG_BANNER.format(label=run.answers_source) + "\n")
    if run.qualification:
        parts.append(QUALIFICATION_BANNER.format(label=run.qualification) + "\n")
    scored = ", ".join(f"v{v}" for v in run.structure_evaluator) or "none"
    parts.append(mode_line(run) + "\n")
    parts.append(
        f"Model `{run.model}` ({run.provider}), scenario `{run.scenario}`, {run.repeats} "
        f"repeats, plan `{run.plan_hash}`"
        + (f", structural evaluator {scored}.\n" if report.report == ABSTRACTION.name else ".\n")
    )
    parts.append(f"**Preregistered analysis:** {preregistration_of(run).text()}.\n")
    if report.replanned is not None:
        parts.append(f"**Planned anew after it began:** {report.replanned.text()}.\n")
    for row in report.excluded:
        cells = "1 cell" if row.cells == 1 else f"{row.cells} cells"
        parts.append(
            f"**Excluded by the plan:** {cells} at {row.arm}, never sent ({row.reason}); "
            "they are missing evidence.\n"
        )
    preregistered = run.preregistered_structure_evaluator
    if report.report == ABSTRACTION.name and run.structure_evaluator not in ((), (preregistered,)):
        parts.append(
            f"**Deviation from the plan:** scored with evaluator {scored}; the plan preregistered "
            f"v{preregistered}. This is a rescoring, not the preregistered analysis.\n"
        )
    if run.extraction not in ((), (run.preregistered_extraction,)):
        used = ", ".join(f"v{v}" for v in run.extraction)
        parts.append(
            f"**Deviation from the plan:** candidates extracted with rules {used}; the plan "
            f"preregistered v{run.preregistered_extraction}.\n"
        )
    if run.authorization == "awaiting-authorization":
        partial = ""
        if run.admitted_requests < run.requests:
            partial = (
                f" Warning: **the ceiling admits {run.admitted_requests} of {run.requests} "
                "requests**, so the run would halt part-way (raise ceiling_usd, or authorize "
                "with --accept-partial)."
            )
        parts.append(
            f"**Awaiting authorization.** Nothing was spent. Plan hash `{run.plan_hash}`, "
            f"{run.cells} cells, {run.requests} requests, worst-case cost "
            f"${run.worst_case_usd:.2f} reserved (expected about "
            f"${run.expected_usd:.4f} from the prompts' sizes).{partial} Inspect "
            f"with `assay plan show "
            f"{run.run}`, then `assay authorize {run.run} --plan-hash HASH`.\n"
        )
    return parts


def mode_line(run: LabelledRun) -> str:
    """``**Prompting mode:** chat, answer prefilled with … (real local model).``: how the run's
    answers were asked for, which shapes them, so it stands next to every result."""
    kind = "" if run.kind == run.mode else f" ({run.kind})"
    return f"**Prompting mode:** {run.mode}{kind}."


def kind_of(report: RunReport) -> ReportKind:
    return ABSTRACTION if report.report == ABSTRACTION.name else CORRECTNESS


def render_markdown(report: RunReport) -> str:
    kind = kind_of(report)
    scale = " < ".join(kind.scale)
    parts = [f"# {kind.title}: {report.run.run}\n", *_header(report)]
    if report.scope:
        parts.append(report.scope + "\n")
    parts.append("## Provider calls\n")
    parts.append(
        markdown_table(report.execution, ["status", "calls", "reserved_usd", "reported_usd"])
    )
    parts += _stopped_markdown(report.stopped)
    parts += rates_section(report, kind)
    parts.append("## Paired sign test (reference arm against each arm)\n")
    if not kind.confirmatory:
        parts.append(SECONDARY_NOTE + "\n")
    parts.append(
        f"Lower ordinal median over repeats ({scale}); a subject with any missing cell is incomplete "
        "and leaves the comparison. `favouring_reference` = subjects where the reference arm scored "
        "higher (the other arm regressed).\n\n"
    )
    parts.append(markdown_grid(TEST_COLUMNS, (shown_test(t) for t in report.sign_tests)))
    note = multiple_arms_note(report)
    if note:
        parts.append("\n" + note + "\n")
    parts += effect_section(report)
    parts += deviation_section(report)
    parts += _rescoring_section(report) + _adjudication_section(report)
    parts += repeat_agreement_section(report, kind)
    parts += reproduction_section(report)
    parts.append("## Outcomes per arm\n")
    parts.append(markdown_table(report.outcome_counts, ["step", "arm", "outcome", "cells"]))
    parts.append("## Subjects\n")
    parts.append(
        markdown_table(
            report.subjects, ["step", "subject", "arm", "cells", "complete", "lower_median"]
        )
    )
    return "\n".join(parts)


def effect_section(report: RunReport) -> list[str]:
    """The effect size of every comparison, beside (never instead of) the sign test."""
    if not report.sign_tests:
        return []
    rows = [effect_cells(t.step, t.reference_arm, t.arm, t.effect) for t in report.sign_tests]
    return [
        "## Effect size (preregistered secondary analysis)\n",
        EFFECT_NOTE + "\n",
        markdown_grid(EFFECT_COLUMNS, rows),
    ]


def shown_test(test: SignTest) -> list[object]:
    """A sign-test row's cells (:data:`TEST_COLUMNS`) as the tables show them: below the
    minimum inference set, what the test is (descriptive only, n of the minimum) stands where
    its p-values and significance would."""
    shown: dict[str, object] = {}
    if test.descriptive_only and test.p_value is not None:
        text = descriptive_text(test.complete_subjects, test.minimum_subjects)
        shown = {"p_value": text, "p_holm": "—", "significant": "—"}
    return [shown[c] if c in shown else getattr(test, c) for c in TEST_COLUMNS]


def rates_section(report: RunReport, kind: ReportKind) -> list[str]:
    """Each arm's rate with its numerator and denominator, what is not scored, and arms whose
    missing evidence differs from the reference arm's."""
    top = kind.scale[-1]
    parts = [f"## {top.capitalize()} per arm (step 1): numerator, denominator, not scored\n"]
    cells = [
        [r.arm, r.hits, r.scored, r.unscored, r.cells, "—" if r.rate is None else f"{r.rate:.2f}"]
        for r in report.rates
    ]
    parts.append(markdown_grid(["arm", top, "scored", "not scored", "cells", "rate"], cells))
    parts += [missingness_line(flag) + "\n" for flag in report.missingness]
    return parts


AGREEMENT_COLUMNS = {
    "step": "step",
    "arm": "arm",
    "subjects": "subjects",
    "scored_subjects": "every repeat scored",
    "same_outcome": "same {value}",
    "answered_subjects": "every repeat answered",
    "identical_text": "byte-identical answers",
}


def agreement_columns(kind: ReportKind) -> dict[str, str]:
    """The repeat-agreement table's columns and their headings for ``kind``."""
    value = "verdict" if kind == ABSTRACTION else "outcome"
    return {key: label.format(value=value) for key, label in AGREEMENT_COLUMNS.items()}


def repeat_agreement_section(report: RunReport, kind: ReportKind) -> list[str]:
    """Per arm, how often a cell's repeats agree: of the subjects with every repeat scored, how
    many have one verdict (outcome), and of those with every repeat answered, how many gave
    byte-identical texts (nothing for a run of one repeat)."""
    if not report.repeat_agreement:
        return []
    columns = agreement_columns(kind)
    value = columns["same_outcome"].removeprefix("same ")
    text = (
        f"Of the subjects whose {report.run.repeats} repeats are all scored, those whose "
        f"repeats have the same {value}; of those whose repeats were all answered, those whose "
        "answer texts are byte-identical. Greedy decoding gives identical texts (a repeat adds "
        "no information); a model sampled at a temperature should not.\n"
    )
    table = markdown_grid(
        list(columns.values()),
        ([getattr(row, key) for key in columns] for row in report.repeat_agreement),
    )
    return ["## Repeat agreement\n", text, table]


def reproductions(con: duckdb.DuckDBPyConnection) -> dict[str, list[Reproduction]]:
    """Per run, how its answers compare with each other fresh run of the same plan (runs whose
    plans are equal apart from the run id and the cells they send: ``Plan.content_hash``), byte
    for byte. Built from another run's evidence,
    so reported beside the run's report (``export.build.BESIDE_THE_BUNDLE``)."""
    return _query(con, "reproduction.sql", Reproduction, ABSTRACTION)


def reproduction_section(report: RunReport) -> list[str]:
    """How the run's answers compare with another fresh run of the same plan, byte for byte."""
    if not report.reproduction:
        return []
    parts = ["## Reproduction: other fresh runs of the same plan\n"]
    for row in report.reproduction:
        verdict = (
            "every answer byte-identical"
            if row.identical == row.both_answered
            else f"**{row.both_answered - row.identical} answers differ**"
        )
        parts.append(
            f"`{row.other_run}` (its plan equals this one apart from the run id and which "
            "of the cells it sends: a fresh run, or a reproduction of a sample of them): "
            f"{row.identical} of the {row.both_answered} calls both runs answered gave "
            f"byte-identical text ({verdict}; this run answered {row.answered} calls, that "
            f"one {row.other_answered}).\n"
        )
    return parts


def multiple_arms_note(report: RunReport) -> str | None:
    """How to read several arms against one reference (``None`` with one arm)."""
    arms = len(report.run.arms) - 1
    if arms < 2:
        return None
    alpha = report.run.alpha
    return (
        f"**Several arms:** each step compares the reference arm with {arms} arms. The "
        f"preregistered test is per arm at alpha {alpha:g} without adjustment (`p_value` "
        f"decides `significant`); `p_holm` is the same p adjusted by Holm's method over those "
        f"{arms} comparisons, a qualifier for reading the arms together, never a replacement."
    )


def deviation_section(report: RunReport) -> list[str]:
    """The result under the analysis params.yaml gives now, beside (never instead of) the
    preregistered one above (``assay.report.deviation``)."""
    deviation = report.deviation
    if deviation is None:
        return []
    changed = "; ".join(change.text() for change in deviation.changes)
    parts = [
        f"## {deviation.label.capitalize()} (not the preregistered result)\n",
        (
            f"params.yaml's analysis differs from this run's preregistration: {changed}. The "
            f"result above is the preregistered one ({deviation.preregistered.text()}); this "
            "one is computed with what params.yaml says now, and never replaces it.\n"
        ),
    ]
    if deviation.sign_tests:
        parts.append(
            f"The same sign tests decided at alpha {deviation.now.alpha:g} with at least "
            f"{deviation.now.minimum_subjects} complete subjects:\n\n"
            + markdown_grid(TEST_COLUMNS, (shown_test(t) for t in deviation.sign_tests))
        )
    parts += [f"- {note}\n" for note in deviation.not_recomputed]
    return parts


def _rescoring_section(report: RunReport) -> list[str]:
    if not report.rescoring:
        return []
    return [
        "## Rescoring with other evaluator versions\n",
        "".join(f"- {line}\n" for line in report.rescoring)
        + f"\nEvery changed cell: `data/report/rescore/{report.run.run}.md`.\n",
    ]


def _adjudication_section(report: RunReport) -> list[str]:
    adjudication = report.adjudication
    if adjudication is None:
        return []
    parts = ["## With human adjudication of ambiguous cells (not the preregistered result)\n"]
    parts.append(
        f"{adjudication.ambiguous_cells} cells are ambiguous under the preregistered "
        f"v{adjudication.version}; {adjudication.adjudicated_cells} are adjudicated in "
        f"`{adjudication.source}`. *Without* is the preregistered result above; *with* "
        "replaces only the adjudicated cells.\n\n"
    )
    if adjudication.adjudicated_cells:
        parts.append(markdown_table(adjudication.tests, [
            "step", "arm", "p_without", "p_with", "significant_without", "significant_with",
            "complete_without", "complete_with",
        ]))  # fmt: skip
        parts.append("\n")
        parts.append(
            markdown_table(
                adjudication.entries, ["cell_id", "step", "verdict", "adjudicator", "rationale"]
            )
        )
    return parts


def build_all(
    con: duckdb.DuckDBPyConnection,
    *,
    reproduction: Mapping[str, Sequence[Reproduction]] | None = None,
    rescoring: Mapping[str, Sequence[str]] | None = None,
    adjudication: Mapping[str, Adjudicated] | None = None,
) -> dict[str, Reports]:
    """Both reports, by kind name then run; what other evidence says about a run is part of its
    primary (abstraction) report only."""
    return {
        ABSTRACTION.name: build_reports(
            con,
            ABSTRACTION,
            reproduction=reproduction,
            rescoring=rescoring,
            adjudication=adjudication,
        ),
        **{kind.name: build_reports(con, kind) for kind in KINDS if kind != ABSTRACTION},
    }


def report_json(report: BaseModel) -> str:
    """A report's JSON file: the record's ``model_dump`` (mode json), sorted, indented, one
    form only (export recomputes it)."""
    return json.dumps(report.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"


def write_report_files(folder: Path, reports: Mapping[str, B], render: Callable[[B], str]) -> None:
    """Each report as ``<name>.json`` and its Markdown ``<name>.md`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, report in reports.items():
        (folder / f"{name}.json").write_text(report_json(report))
        (folder / f"{name}.md").write_text(render(report))


def write_reports(reports: Mapping[str, Reports], out: Path) -> None:
    for kind_name, per_run in reports.items():
        for name, report in per_run.items():
            folder = out / "runs" / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{kind_name}.json").write_text(report_json(report))
            (folder / f"{kind_name}.md").write_text(render_markdown(report))
