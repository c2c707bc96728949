"""Chart data and page sections that the default study does not exercise: chain steps and
codebase scenarios."""

from __future__ import annotations

from assay.report import charts
from assay.report.html import _scenario_tables
from assay.report.run_records import OutcomeCount
from assay.report.scenarios import ScenarioReport


def _report(steps: int) -> list[OutcomeCount]:
    counts = []
    for step in range(1, steps + 1):
        for arm in ("mess-00", "mess-10"):
            counts.append(OutcomeCount(step=step, arm=arm, outcome="reused", cells=10 - step))
            counts.append(OutcomeCount(step=step, arm=arm, outcome="duplicated", cells=step))
    return counts


def test_chain_steps_one_point_per_step_and_arm_for_chain_runs_only() -> None:
    points = charts.chain_rows({"chain-run": _report(5), "flat-run": _report(1)})
    rows = [point.model_dump() for point in points]
    assert {r["run"] for r in rows} == {"chain-run"}
    assert [(r["step"], r["arm"], r["reuse_rate"]) for r in rows[:2]] == [
        (1, "mess-00", 0.9),
        (1, "mess-10", 0.9),
    ]
    spec = charts.chain_steps(points)
    assert spec is not None and spec["spec"]["encoding"]["x"]["field"] == "step"
    assert charts.chain_steps([]) is None


def test_scenario_tables_keep_arm_order_and_runs_side_by_side() -> None:
    report = {
        "arms": ["clean", "inconsistent"],
        "runs": [{"run": "a"}, {"run": "b"}],
        "steps": {
            "1": {
                "cells": {"clean": {"a": {"reused": 3}}, "inconsistent": {"b": {"reused": 1}}},
                "subjects": {},
                "tests": {},
            }
        },
    }
    (step,) = _scenario_tables(_scenario(report))
    assert [row.arm for row in step.rows] == ["clean", "inconsistent"]
    cells = [[c and c.model_dump(exclude_defaults=True) for c in row.cells] for row in step.rows]
    assert cells[0] == [{"reused": 3}, None]
    assert cells[1] == [None, {"reused": 1}]


def _scenario(partial: dict) -> ScenarioReport:
    """A scenario report of ``partial``, what the tables do not read left neutral."""
    return ScenarioReport.model_validate({
        "scenario": "dose", "excluded": [], "halted": {}, "model_comparisons": [], **partial,
        "runs": [{"model": "m", "simulated": False, "kind": "free API", "mode": "chat",
                  "repeats": 1, **run} for run in partial["runs"]],
        "steps": {step: {"ambiguous": {}, **tables} for step, tables in partial["steps"].items()},
    })  # fmt: skip
