""" "What duplication costs": code metrics of every output by structural verdict.

Pooled over the chosen runs (the seed's table pooled frontier runs), broken down by subject
family, within subjects that produced both verdicts, and each arm against a reference arm per
subject by the primary test's paired-v2 rules (lower median over complete repeats, exact sign
test, minimum inference set). Every number is the mean change per output of a pinned,
established tool.

Which runs are pooled: ``report.cost_runs`` in ``params.yaml`` (runs, scenarios, model
profiles) or ``assay costs --run/--scenario/--model``. Simulated runs are never pooled with
real ones unless asked (``include_simulated``), and real runs of different prompting modes
(:mod:`assay.report.modes`: chat, an answer prefilled, plain completion, a sampling temperature)
are never pooled at all: the mode most of the chosen real runs share is pooled, the others are
left out with the reason. The report's header lists exactly the runs it pooled, each with its
mode, and why the others were left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import duckdb
from pydantic import BaseModel

from assay.config.params import CostRuns
from assay.core.records import Frozen
from assay.report.database import query_text
from assay.report.primary import SIMULATED_BANNER, published_decision, report_json
from assay.report.query import rows

HEADLINE = (
    ("sloc", "SLOC (radon)"),
    ("cyclomatic_complexity", "cyclomatic complexity (radon)"),
    ("cognitive_complexity", "cognitive complexity (complexipy)"),
    ("halstead_volume", "Halstead volume (radon)"),
    ("max_nesting_depth_new_code", "max nesting depth, new code (lizard)"),
    ("new_duplicated_lines", "new duplicated lines (jscpd, default thresholds)"),
)
WITHIN_SUBJECT = HEADLINE[:5] + (("maintainability_index", "Maintainability Index (radon)"),)
VERDICTS = ("reused", "mixed", "duplicated")
JSCPD_NOTE = (
    "jscpd matches exact token runs at its default thresholds (5 lines, 50 tokens): it misses "
    "copies with renamed variables and copies shorter than those thresholds."
)


class CostRun(Frozen):
    """A run the cost report may pool, with what answered it and how it was prompted."""

    run: str
    scenario: str
    model: str
    simulated: bool
    mode: str
    kind: str


class PooledRun(CostRun):
    """A pooled run with its measured outputs."""

    outputs: int


class VerdictCost(Frozen):
    """``cost_by_verdict.sql``: one metric's mean change per output of one verdict."""

    metric: str
    tool: str
    verdict: str
    outputs: int
    mean_delta: float | None
    missing: int


class FamilyCost(VerdictCost):
    """:class:`VerdictCost` within one subject family."""

    family: str


class WithinSubject(Frozen):
    """``cost_within_subject.sql``: one metric within the subjects that gave both verdicts."""

    metric: str
    subjects: int
    duplicated_higher: int
    duplicated_lower: int
    equal: int
    mean_reused: float | None
    mean_duplicated: float | None


class ArmCounts(Frozen):
    """One run's arm against the reference arm on one metric (paired-v2 counts)."""

    run: str
    arm: str
    reference_arm: str
    metric: str
    subjects: int
    incomplete_subjects: int
    higher: int
    lower: int
    ties: int
    p_value: float


class ArmCountsRow(ArmCounts):
    """``cost_by_arm.sql``: the counts with the plan's alpha and minimum inference set."""

    alpha: float
    minimum_subjects: int


class ArmCost(ArmCounts):
    """The counts with their decision (:func:`assay.science.stats.decide`)."""

    significant: bool
    descriptive_only: bool
    note: str


class Costs(Frozen):
    """What duplication costs (``data/report/duplication_cost.json``)."""

    report: Literal["duplication-cost"] = "duplication-cost"
    simulated: bool
    outputs: int
    pooled_runs: tuple[PooledRun, ...]
    excluded_runs: dict[str, str]
    """Every run not pooled, with why."""
    by_verdict: tuple[VerdictCost, ...]
    by_family: tuple[FamilyCost, ...]
    within_subject: tuple[WithinSubject, ...]
    by_arm: tuple[ArmCost, ...]
    note: str = JSCPD_NOTE


class PivotRow(Frozen):
    """A metric (of a family) with each verdict's mean change and outputs in words."""

    family: str | None = None
    metric: str
    reused: str | None = None
    mixed: str | None = None
    duplicated: str | None = None


def _sql(name: str, metrics: tuple[tuple[str, str], ...], **replacements: str) -> str:
    text = query_text(name).replace(
        "{metrics}", "(" + ", ".join(f"'{m}'" for m, _ in metrics) + ")"
    )
    for key, value in replacements.items():
        text = text.replace("{" + key + "}", value)
    return text


def choose_runs(
    runs: Sequence[CostRun], chosen: CostRuns, profiles: Mapping[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The runs to pool, and every other run with the reason it was left out.

    ``profiles`` maps a run to its model profile name; a ``models`` filter matches the profile
    name or the provider's model id.
    """
    pooled, excluded = [], {}
    for run in runs:
        name = run.run
        model_names = {run.model, (profiles or {}).get(name, run.model)}
        if chosen.runs is not None and name not in chosen.runs:
            excluded[name] = "not in report.cost_runs.runs"
        elif chosen.scenarios is not None and run.scenario not in chosen.scenarios:
            excluded[name] = f"scenario {run.scenario} not chosen"
        elif chosen.models is not None and not model_names & set(chosen.models):
            excluded[name] = f"model {run.model} not chosen"
        elif run.simulated and not chosen.include_simulated:
            excluded[name] = "simulated (never pooled with real runs unless include_simulated)"
        else:
            pooled.append(name)
    modes = {run.run: run.mode for run in runs if not run.simulated}
    pooled_mode = one_mode([name for name in pooled if name in modes], modes)
    for name in [n for n in pooled if n in modes and modes[n] != pooled_mode]:
        pooled.remove(name)
        excluded[name] = (
            f"prompting mode {modes[name]}, not {pooled_mode}: runs of different modes are "
            "never pooled (choose with report.cost_runs.runs)"
        )
    return pooled, excluded


def one_mode(names: list[str], modes: dict[str, str]) -> str | None:
    """The prompting mode to pool: the one most of ``names`` share (on a tie, the mode of the
    first run by name); ``None`` without a run."""
    counts = Counter(modes[name] for name in names)
    first = {mode: min(n for n in names if modes[n] == mode) for mode in counts}
    return min(counts, key=lambda mode: (-counts[mode], first[mode]), default=None)


def _by_arm(con: duckdb.DuckDBPyConnection, reference: str) -> list[ArmCost]:
    sql = _sql("cost_by_arm.sql", HEADLINE, reference_arm=reference)
    decided = []
    for row in rows(con, sql, ArmCountsRow, query="queries/cost_by_arm.sql"):
        p, inference = published_decision(
            row.p_value, row, non_tied=row.higher + row.lower, complete_subjects=row.subjects
        )
        counts = row.model_dump(exclude={"alpha", "minimum_subjects"})
        decided.append(ArmCost(**{**counts, "p_value": p}, **inference.model_dump()))
    return decided


class RunOutputs(Frozen):
    run: str
    outputs: int


def build_costs(
    con: duckdb.DuckDBPyConnection,
    reference_arm: str | None,
    chosen: CostRuns | None = None,
    profiles: Mapping[str, str] | None = None,
) -> Costs:
    reference = "NULL" if reference_arm is None else "'" + reference_arm.replace("'", "''") + "'"
    runs = rows(
        con, "SELECT run, scenario, model, simulated, mode, kind FROM runs ORDER BY run", CostRun
    )
    pooled, excluded = choose_runs(runs, chosen or CostRuns(), profiles)
    listed = "(" + ", ".join("'" + r.replace("'", "''") + "'" for r in pooled) + ")"
    con.execute(
        "CREATE OR REPLACE TEMP VIEW cost_changes AS SELECT * FROM metric_changes "
        + (f"WHERE run IN {listed}" if pooled else "WHERE false")
    )
    outputs = {
        row.run: row.outputs
        for row in rows(
            con,
            "SELECT run, count(DISTINCT cell_id) AS outputs FROM cost_changes GROUP BY run",
            RunOutputs,
        )
    }
    by_run = {r.run: r for r in runs}
    verdict_sql = "queries/cost_by_verdict.sql"
    return Costs(
        simulated=any(by_run[name].simulated for name in pooled),
        outputs=sum(outputs.values()),
        pooled_runs=tuple(
            PooledRun(**by_run[name].model_dump(), outputs=outputs.get(name, 0)) for name in pooled
        ),
        excluded_runs=excluded,
        by_verdict=tuple(
            rows(
                con, _sql("cost_by_verdict.sql", HEADLINE, group=""), VerdictCost, query=verdict_sql
            )
        ),
        by_family=tuple(
            rows(
                con,
                _sql("cost_by_verdict.sql", HEADLINE, group="family,"),
                FamilyCost,
                query=verdict_sql,
            )
        ),
        within_subject=tuple(
            rows(
                con,
                _sql("cost_within_subject.sql", WITHIN_SUBJECT),
                WithinSubject,
                query="queries/cost_within_subject.sql",
            )
        ),
        by_arm=tuple(_by_arm(con, reference)),
    )


def pivot(costs: Sequence[VerdictCost]) -> list[PivotRow]:
    """Each metric (of a family) with its verdicts side by side: ``mean (n=outputs)``, ``—``
    without an output."""
    table: dict[tuple[str | None, str], dict[str, str]] = {}
    for row in costs:
        family = row.family if isinstance(row, FamilyCost) else None
        table.setdefault((family, row.metric), {})[row.verdict] = (
            f"{row.mean_delta} (n={row.outputs})" if row.outputs else "—"
        )
    return [
        PivotRow(family=family, metric=metric, **verdicts)
        for (family, metric), verdicts in table.items()
    ]


def _markdown_table(
    rows: Sequence[BaseModel], columns: Sequence[str], labels: Mapping[str, str]
) -> str:
    """The records' ``columns``; a metric by its label; a verdict a pivot row lacks is blank."""
    if not rows:
        return "_no measured outputs_\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        values = [getattr(row, c) for c in columns]
        cells = [
            labels.get(str(value), str(value))
            if c == "metric"
            else ("" if value is None and isinstance(row, PivotRow) else str(value))
            for c, value in zip(columns, values, strict=True)
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_costs_markdown(costs: Costs) -> str:
    labels = dict(HEADLINE + WITHIN_SUBJECT)
    parts = ["# What duplication costs\n"]
    if costs.simulated:
        parts.append(SIMULATED_BANNER + "\n")
    pooled = costs.pooled_runs
    parts.append(
        f"Mean change per output over {costs.outputs} measured outputs, pooled over "
        f"{len(pooled)} run(s):\n"
    )
    parts.append(
        "".join(
            f"- `{r.run}` ({r.model}, {r.scenario}{', simulated' if r.simulated else ''}"
            f"): {r.outputs} outputs"
            f"{'' if r.simulated else ', prompting mode ' + r.mode}\n"
            for r in pooled
        )
        or "- none\n"
    )
    if costs.excluded_runs:
        parts.append(
            "Not pooled: "
            + "; ".join(f"`{run}` ({why})" for run, why in sorted(costs.excluded_runs.items()))
            + ". Choose runs with `report.cost_runs` in params.yaml.\n"
        )
    parts.append(_markdown_table(pivot(costs.by_verdict), ["metric", *VERDICTS], labels))
    parts.append("\n## By subject family\n")
    parts.append(
        _markdown_table(
            pivot(costs.by_family),
            ["family", "metric", *VERDICTS],
            labels,
        )
    )
    parts.append("\n## Within subjects that produced both verdicts\n")
    parts.append(_markdown_table(costs.within_subject, [
        "metric", "subjects", "duplicated_higher", "duplicated_lower", "equal", "mean_reused", "mean_duplicated",
    ], labels))  # fmt: skip
    parts.append("\n## Each arm against the reference arm (paired-v2, per run)\n")
    parts.append(
        "Per subject and arm, the lower median of the metric's change over the repeats, only "
        "when every repeat was measured (as in the primary test); `higher` = subjects whose "
        "change is larger in the arm than in the reference arm. Exact sign test over the "
        "complete subjects; below the minimum inference set it is descriptive only.\n\n"
    )
    parts.append(_markdown_table(costs.by_arm, [
        "run", "arm", "reference_arm", "metric", "subjects", "incomplete_subjects", "higher",
        "lower", "ties", "p_value", "significant", "descriptive_only", "note",
    ], labels))  # fmt: skip
    parts.append(f"\n_{costs.note}_\n")
    return "\n".join(parts)


def write_costs(costs: Costs, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "duplication_cost.json").write_text(report_json(costs))
    (out / "duplication_cost.md").write_text(render_costs_markdown(costs))
