"""The report's charts as Vega-Lite specifications, built with Altair.

Vega-Lite because it is the grammar ``dvc plots`` already speaks, the specification is plain
JSON that diffs and tests well, and ``vl-convert-python`` ships the JavaScript to draw it
offline (:mod:`assay.report.vega`). Every chart gets its data inline and is drawn in the page.
"""

from __future__ import annotations

from typing import Any

import altair as alt

from assay.report.scenarios import arm_level

VERDICT_ORDER = ["reused", "mixed", "duplicated", "ambiguous", "rejected", "missing", "skipped"]
VERDICT_COLOURS = ["#1b7837", "#a6dba0", "#c2a5cf", "#bababa", "#762a83", "#f4a582", "#e0e0e0"]
CORRECTNESS_ORDER = ["correct", "incorrect", "missing", "skipped"]
CORRECTNESS_COLOURS = ["#2166ac", "#b2182b", "#f4a582", "#e0e0e0"]
WIDTH = 520


def _spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    return chart.configure_view(stroke=None).to_dict()


def series_label(run: dict[str, Any]) -> str:
    return f"{run['model']} ({run['run']})" + (" [simulated]" if run["simulated"] else "")


def reuse_curve_rows(scenario_reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Reuse rate against the arm's level per scenario and run (step 1), for scenarios whose
    arms carry a level (``mess-05``, ``tail-10``, ``ctx-30``): the seed's dose-response grids."""
    rows = []
    for scenario, report in sorted(scenario_reports.items()):
        levels = {arm: arm_level(arm) for arm in report["arms"]}
        if any(level is None for level in levels.values()):
            continue
        runs = {r["run"]: r for r in report["runs"]}
        for arm, per_run in report["steps"].get("1", {}).get("cells", {}).items():
            for run, counts in sorted(per_run.items()):
                total = sum(counts.values())
                rows.append(
                    {
                        "scenario": scenario,
                        "run": run,
                        "series": series_label(runs[run]),
                        "arm": arm,
                        "level": levels[arm],
                        "reused": counts["reused"],
                        "cells": total,
                        "reuse_rate": round(counts["reused"] / total, 4) if total else None,
                    }
                )
    return sorted(rows, key=lambda r: (r["scenario"], r["series"], r["level"]))


def reuse_curves(rows: list[dict[str, Any]], arms: dict[str, list[str]]) -> dict[str, Any] | None:
    """One panel per scenario, its arms in the scenario's declared order (the seed's grid)."""
    if not rows:
        return None
    panels = []
    for scenario in sorted({row["scenario"] for row in rows}):
        values = [row for row in rows if row["scenario"] == scenario]
        panels.append(
            alt.Chart(alt.Data(values=values), title=scenario)
            .mark_line(point=True)
            .encode(
                x=alt.X("arm:O", sort=arms[scenario], title="arm (mess level / placement)"),
                y=alt.Y(
                    "reuse_rate:Q", title="reused cells / cells", scale=alt.Scale(domain=[0, 1])
                ),
                color=alt.Color(
                    "series:N",
                    title="model (run)",
                    legend=alt.Legend(orient="bottom", labelLimit=480, columns=1),
                ),
                tooltip=["series:N", "arm:N", "level:Q", "reused:Q", "cells:Q", "reuse_rate:Q"],
            )
            .properties(width=WIDTH // 2, height=220)
        )
    return _spec(alt.hconcat(*panels))


def outcome_rows(reports: dict[str, dict[str, Any]], step: int = 1) -> list[dict[str, Any]]:
    return [
        {"run": name, "arm": row["arm"], "outcome": row["outcome"], "cells": row["cells"]}
        for name, report in sorted(reports.items())
        for row in report["outcome_counts"]
        if row["step"] == step and row["outcome"] is not None  # None: never executed
    ]


def outcomes_by_arm(
    rows: list[dict[str, Any]], order: list[str], colours: list[str], title: str
) -> dict[str, Any] | None:
    if not rows:
        return None
    chart = (
        alt.Chart(alt.Data(values=rows))
        .mark_bar()
        .encode(
            y=alt.Y("arm:N", title=None, sort=None),
            x=alt.X("cells:Q", title="cells", stack="zero"),
            color=alt.Color("outcome:N", title=title, scale=alt.Scale(domain=order, range=colours)),
            order=alt.Order("order:Q"),
            tooltip=["run:N", "arm:N", "outcome:N", "cells:Q"],
        )
        .transform_calculate(order=f"indexof({order!r}, datum.outcome)")
        .properties(width=WIDTH, height=alt.Step(14))
    )
    return _spec(
        chart.facet(
            row=alt.Row("run:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left"))
        ).resolve_scale(y="independent")
    )


def chain_rows(reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for name, report in sorted(reports.items()):
        steps = {row["step"] for row in report["outcome_counts"]}
        if len(steps) < 2:
            continue
        totals: dict[tuple[int, str], int] = {}
        reused: dict[tuple[int, str], int] = {}
        for row in report["outcome_counts"]:
            key = (row["step"], row["arm"])
            totals[key] = totals.get(key, 0) + row["cells"]
            if row["outcome"] == "reused":
                reused[key] = row["cells"]
        for (step, arm), total in sorted(totals.items()):
            rows.append({"run": name, "step": step, "arm": arm, "reused": reused.get((step, arm), 0),
                         "cells": total, "reuse_rate": round(reused.get((step, arm), 0) / total, 4)})  # fmt: skip
    return rows


def chain_steps(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not rows:
        return None
    chart = (
        alt.Chart(alt.Data(values=rows))
        .mark_line(point=True)
        .encode(
            x=alt.X("step:O", title="chain step"),
            y=alt.Y("reuse_rate:Q", title="reused cells / cells", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("arm:N"),
            tooltip=["run:N", "step:O", "arm:N", "reused:Q", "cells:Q"],
        )
        .properties(width=WIDTH // 2, height=200)
    )
    return _spec(chart.facet(column=alt.Column("run:N", title=None)))


def cost_rows(costs: dict[str, Any], labels: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "metric": labels.get(row["metric"], row["metric"]),
            "verdict": row["verdict"],
            "mean_delta": row["mean_delta"],
            "outputs": row["outputs"],
        }
        for row in costs["by_verdict"]
        if row["outputs"]
    ]


def duplication_cost(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not rows:
        return None
    chart = (
        alt.Chart(alt.Data(values=rows))
        .mark_bar()
        .encode(
            x=alt.X("verdict:N", title=None, sort=VERDICT_ORDER),
            y=alt.Y("mean_delta:Q", title="mean change per output"),
            color=alt.Color(
                "verdict:N",
                scale=alt.Scale(domain=VERDICT_ORDER[:3], range=VERDICT_COLOURS[:3]),
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
