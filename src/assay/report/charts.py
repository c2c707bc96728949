"""The report's charts as Vega-Lite specifications, built with Altair.

Vega-Lite because it is the grammar ``dvc plots`` already speaks, the specification is plain
JSON that diffs and tests well, and ``vl-convert-python`` ships the JavaScript to draw it
offline (:mod:`assay.report.vega`). Every chart gets its data inline and is drawn in the page.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Concatenate, ParamSpec, TypeVar

import altair as alt

from assay.core.records import Frozen
from assay.report.costs import Costs
from assay.report.kinds import ABSTRACTION, CORRECTNESS
from assay.report.run_records import OutcomeCount, RunReport
from assay.report.scenarios import ScenarioReport, ScenarioRun, arm_level

OUTCOME_COLOURS = {
    # the abstraction scale, top first, and the off-scale verdicts
    "reused": "#1b7837",
    "mixed": "#a6dba0",
    "duplicated": "#c2a5cf",
    "ambiguous": "#bababa",
    "rejected": "#762a83",
    # the correctness scale, and correctness that does not run by design
    "correct": "#2166ac",
    "incorrect": "#b2182b",
    "skipped": "#e0e0e0",
    # the missing states (assay.core.records.MissingState): warm, one each
    "not-run": "#fee08b",
    "excluded": "#fdae61",
    "halted": "#4d4d4d",
    "no-candidate": "#f46d43",
    "evaluator-failure": "#8c510a",
}
"""One colour per outcome, the same in every chart (and in ``.dvc/plots`` templates)."""
VERDICT_ORDER = list(ABSTRACTION.outcomes)
CORRECTNESS_ORDER = list(CORRECTNESS.outcomes)
WIDTH = 520


VegaLite = dict[str, object]
"""A chart as the page embeds it: a Vega-Lite JSON document (altair's ``to_dict``)."""


class ReusePoint(Frozen):
    """A dose-response point: one run's reuse rate at one arm's level (step 1)."""

    scenario: str
    run: str
    series: str
    arm: str
    level: int | None
    reused: int
    scored: int
    cells: int
    reuse_rate: float | None
    """``None`` without a scored cell: never drawn at 0."""


class OutcomeBar(Frozen):
    """Cells of one run and arm with one outcome."""

    run: str
    arm: str
    outcome: str
    cells: int


class ChainPoint(Frozen):
    """Reuse rate of one run's arm at one chain step, over its scored cells."""

    run: str
    step: int
    arm: str
    reused: int
    scored: int
    reuse_rate: float


class EffectRow(Frozen):
    """One run and arm pair's effect size (a forest plot row): the mean per-subject rate
    difference, reference arm minus the other arm, with its exact 95% interval."""

    row: str
    """The row's label: run, arms, the step after the first, and ``[simulated]``."""
    run: str
    step: int
    reference_arm: str
    arm: str
    kind: str
    """``real`` or ``simulated``: simulated rows are labelled and drawn apart in colour."""
    estimate: float
    ci_low: float
    ci_high: float
    p_value: float
    subjects: int


class CostBar(Frozen):
    """One metric's mean change per output of one verdict."""

    metric: str
    verdict: str
    mean_delta: float | None
    outputs: int


def _data(rows: Iterable[Frozen]) -> alt.Data:
    """The records as a chart's inline data (the one place they become plain rows)."""
    return alt.Data(values=[row.model_dump(mode="json") for row in rows])


def _spec(chart: alt.TopLevelMixin) -> VegaLite:
    spec: VegaLite = chart.configure_view(stroke=None).to_dict()
    return spec


R = TypeVar("R", bound=Frozen)
P = ParamSpec("P")


def _none_without_rows(
    draw: Callable[Concatenate[Sequence[R], P], VegaLite],
) -> Callable[Concatenate[Sequence[R], P], VegaLite | None]:
    """The chart ``draw`` makes of its rows; ``None`` (no chart on the page) without a row."""

    @functools.wraps(draw)
    def chart(rows: Sequence[R], /, *args: P.args, **kwargs: P.kwargs) -> VegaLite | None:
        return draw(rows, *args, **kwargs) if rows else None

    return chart


def series_label(run: ScenarioRun) -> str:
    return f"{run.model} ({run.run})" + (" [simulated]" if run.simulated else "")


def reuse_curve_rows(scenario_reports: Mapping[str, ScenarioReport]) -> list[ReusePoint]:
    """Reuse rate against the arm's level per scenario and run (step 1), for scenarios whose
    arms carry a level (``mess-05``, ``tail-10``, ``ctx-30``): the seed's dose-response grids."""
    rows = []
    for scenario, report in sorted(scenario_reports.items()):
        levels = {arm: arm_level(arm) for arm in report.arms}
        if any(level is None for level in levels.values()):
            continue
        runs = {r.run: r for r in report.runs}
        first = report.steps.get("1")
        for arm, per_run in (first.cells if first else {}).items():
            for run, counts in sorted(per_run.items()):
                scored = counts.scored
                rows.append(
                    ReusePoint(
                        scenario=scenario,
                        run=run,
                        series=series_label(runs[run]),
                        arm=arm,
                        level=levels[arm],
                        reused=counts.reused,
                        scored=scored,
                        cells=scored + sum(counts.unscored.values()),
                        reuse_rate=round(counts.reused / scored, 4) if scored else None,
                    )
                )
    return sorted(rows, key=lambda r: (r.scenario, r.series, r.level or 0))


def reuse_curves(rows: Sequence[ReusePoint], arms: Mapping[str, Sequence[str]]) -> VegaLite | None:
    """One panel per scenario, its arms in the scenario's declared order (the seed's grid). A
    level without a scored cell has no point (missing is never drawn as zero), and a scenario
    without one has no panel."""
    drawn = [row for row in rows if row.reuse_rate is not None]
    panels = []
    for scenario in sorted({row.scenario for row in drawn}):
        values = [r for r in drawn if r.scenario == scenario]
        panels.append(
            alt.Chart(_data(values), title=scenario)
            .mark_line(point=True)
            .encode(
                x=alt.X("arm:O", sort=list(arms[scenario]), title="arm (mess level / placement)"),
                y=alt.Y(
                    "reuse_rate:Q", title="reused / scored cells", scale=alt.Scale(domain=[0, 1])
                ),
                color=alt.Color(
                    "series:N",
                    title="model (run)",
                    legend=alt.Legend(orient="bottom", labelLimit=480, columns=1),
                ),
                tooltip=[
                    "series:N",
                    "arm:N",
                    "level:Q",
                    "reused:Q",
                    "scored:Q",
                    "cells:Q",
                    "reuse_rate:Q",
                ],
            )
            .properties(width=WIDTH // 2, height=220)
        )
    return _spec(alt.hconcat(*panels)) if panels else None


def _bars(rows: Iterable[Frozen]) -> alt.Chart:
    chart: alt.Chart = alt.Chart(_data(rows)).mark_bar()
    return chart


def outcome_rows(reports: Mapping[str, RunReport], step: int = 1) -> list[OutcomeBar]:
    """Cells per run, arm and outcome at ``step``: every outcome, the missing states included
    (a cell is never left out, so every bar is as long as the arm's cells)."""
    return [
        OutcomeBar(run=name, arm=row.arm, outcome=row.outcome, cells=row.cells)
        for name, report in sorted(reports.items())
        for row in report.outcome_counts
        if row.step == step
    ]


def outcome_scale(rows: Sequence[OutcomeBar], order: Sequence[str]) -> alt.Scale:
    """The outcomes present, in legend order, each with its colour: one legend entry each."""
    present = {row.outcome for row in rows}
    unknown = present - set(order)
    if unknown:
        raise ValueError(f"outcomes without a legend entry: {sorted(unknown)}")
    domain = [outcome for outcome in order if outcome in present]
    return alt.Scale(domain=domain, range=[OUTCOME_COLOURS[o] for o in domain])


@_none_without_rows
def outcomes_by_arm(
    rows: Sequence[OutcomeBar], order: list[str], title: str, runs: list[str] | None = None
) -> VegaLite:
    """Stacked bars of cells per arm by outcome, one row of bars per run (in ``runs`` order
    when given: the page's, real runs first; else by name)."""
    chart = (
        _bars(rows)
        .encode(
            y=alt.Y("arm:N", title=None, sort=None),
            x=alt.X("cells:Q", title="cells", stack="zero"),
            color=alt.Color("outcome:N", title=title, scale=outcome_scale(rows, order)),
            order=alt.Order("order:Q"),
            tooltip=["run:N", "arm:N", "outcome:N", "cells:Q"],
        )
        .transform_calculate(order=f"indexof({order!r}, datum.outcome)")
        .properties(width=WIDTH, height=alt.Step(14))
    )
    return _spec(
        chart.facet(
            row=alt.Row(
                "run:N",
                title=None,
                sort=runs if runs is not None else "ascending",
                header=alt.Header(labelAngle=0, labelAlign="left"),
            )
        ).resolve_scale(y="independent")
    )


def chain_rows(outcome_counts: Mapping[str, Sequence[OutcomeCount]]) -> list[ChainPoint]:
    """Reuse rate per chain step and arm over the scored cells of each run's
    ``outcome_counts``; a step and arm without a scored cell has no row (no point drawn)."""
    rows = []
    for name, counts in sorted(outcome_counts.items()):
        steps = {row.step for row in counts}
        if len(steps) < 2:
            continue
        scored: dict[tuple[int, str], int] = {}
        reused: dict[tuple[int, str], int] = {}
        for row in counts:
            key = (row.step, row.arm)
            if row.outcome in ABSTRACTION.scale:
                scored[key] = scored.get(key, 0) + row.cells
            if row.outcome == "reused":
                reused[key] = row.cells
        for (step, arm), total in sorted(scored.items()):
            hits = reused.get((step, arm), 0)
            rows.append(ChainPoint(run=name, step=step, arm=arm, reused=hits, scored=total,
                                   reuse_rate=round(hits / total, 4)))  # fmt: skip
    return rows


@_none_without_rows
def chain_steps(rows: Sequence[ChainPoint]) -> VegaLite:
    chart = (
        alt.Chart(_data(rows))
        .mark_line(point=True)
        .encode(
            x=alt.X("step:O", title="chain step"),
            y=alt.Y("reuse_rate:Q", title="reused / scored cells", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("arm:N"),
            tooltip=["run:N", "step:O", "arm:N", "reused:Q", "scored:Q"],
        )
        .properties(width=WIDTH // 2, height=200)
    )
    return _spec(chart.facet(column=alt.Column("run:N", title=None)))


def cost_rows(costs: Costs, labels: Mapping[str, str]) -> list[CostBar]:
    return [
        CostBar(
            metric=labels.get(row.metric, row.metric),
            verdict=row.verdict,
            mean_delta=row.mean_delta,
            outputs=row.outputs,
        )
        for row in costs.by_verdict
        if row.outputs
    ]


@_none_without_rows
def duplication_cost(rows: Sequence[CostBar]) -> VegaLite:
    chart = (
        _bars(rows)
        .encode(
            x=alt.X("verdict:N", title=None, sort=VERDICT_ORDER),
            y=alt.Y("mean_delta:Q", title="mean change per output"),
            color=alt.Color(
                "verdict:N",
                scale=alt.Scale(
                    domain=list(ABSTRACTION.scale),
                    range=[OUTCOME_COLOURS[v] for v in ABSTRACTION.scale],
                ),
                legend=None,
            ),
            tooltip=["metric:N", "verdict:N", "mean_delta:Q", "outputs:Q"],
        )
        .properties(width=110, height=150)
    )
    return _spec(
        chart.facet(facet=alt.Facet("metric:N", title=None), columns=3).resolve_scale(
            y="independent"
        )
    )


def effect_rows(reports: Mapping[str, RunReport], runs: Sequence[str]) -> list[EffectRow]:
    """One row per run, step and arm compared with the reference that has an effect (a subject
    scored in both arms), in ``runs`` order (the page's: real runs first), each run's steps
    and arms in order."""
    rows = []
    for name in runs:
        report = reports[name]
        simulated = report.run.simulated
        for test in report.sign_tests:
            effect = test.effect
            if effect is None:
                continue
            step = "" if test.step == 1 else f" · step {test.step}"
            rows.append(
                EffectRow(
                    row=f"{name} · {test.reference_arm} − {test.arm}{step}"
                    + (" [simulated]" if simulated else ""),
                    run=name,
                    step=test.step,
                    reference_arm=test.reference_arm,
                    arm=test.arm,
                    kind="simulated" if simulated else "real",
                    estimate=effect.estimate,
                    ci_low=effect.ci_low,
                    ci_high=effect.ci_high,
                    p_value=effect.p_value,
                    subjects=effect.subjects,
                )
            )
    return rows


@_none_without_rows
def forest(rows: Sequence[EffectRow]) -> VegaLite:
    """The effect sizes as a forest plot: one row per run and arm pair in the rows' order, the
    95% interval as a line, the estimate as a point, 0 (no difference) as a rule."""
    order = [row.row for row in rows]
    base = alt.Chart(_data(rows)).encode(
        y=alt.Y("row:N", sort=order, title=None, axis=alt.Axis(labelLimit=420)),
        color=alt.Color(
            "kind:N",
            title="answers from",
            scale=alt.Scale(domain=["real", "simulated"], range=["#1b7837", "#8c8c8c"]),
        ),
        tooltip=[
            "run:N",
            "step:O",
            "reference_arm:N",
            "arm:N",
            "kind:N",
            "subjects:Q",
            "estimate:Q",
            "ci_low:Q",
            "ci_high:Q",
            "p_value:Q",
        ],
    )
    scale = alt.Scale(domain=[-1, 1])
    interval = base.mark_rule(strokeWidth=2).encode(
        x=alt.X(
            "ci_low:Q",
            scale=scale,
            title="reuse-rate difference, reference arm − arm (95% interval)",
        ),
        x2="ci_high:Q",
    )
    point = base.mark_point(filled=True, size=60).encode(x=alt.X("estimate:Q", scale=scale))
    zero = alt.Chart(alt.Data(values=[{"x": 0}])).mark_rule(strokeDash=[4, 4]).encode(x="x:Q")
    chart = alt.layer(zero, interval, point).properties(width=WIDTH, height=alt.Step(16))
    return _spec(chart)
