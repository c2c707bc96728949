"""``report`` stage: DuckDB over every run's evidence → Markdown/JSON reports, the HTML study
report with its cell browser, the headline metrics and the plot data.

Every file written here is a declared output of the stage in ``dvc.yaml`` (:data:`OUTPUTS`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay import evidence
from assay.params import Params
from assay.progress import progress
from assay.report.cell_browser import cell_records
from assay.report.charts import outcome_rows, reuse_curve_rows
from assay.report.costs import build_costs, write_costs
from assay.report.database import connect
from assay.report.headline import headlines
from assay.report.html import page_context, write_page
from assay.report.primary import build_all, write_reports
from assay.report.scenarios import build_scenario_reports, write_scenario_reports

OUTPUTS = (
    "data/report/runs",
    "data/report/scenarios",
    "data/report/duplication_cost.json",
    "data/report/duplication_cost.md",
    "data/report/index.html",
    "reports/metrics.json",
    "reports/plots/verdicts_by_arm.csv",
    "reports/plots/reuse_by_level.csv",
)
"""What the stage writes, relative to the repository: each one is an ``outs``, ``metrics`` or
``plots`` entry of the report stage (a test holds the two lists equal)."""

STEPS = ("evidence", "run reports", "scenario reports", "duplication cost", "cells", "page")


def _write_csv(path: Path, columns: Sequence[str], rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def verdict_plot_rows(reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """``verdicts_by_arm.csv``: cells per run, arm and verdict at step 1 (no empty rows)."""
    return [
        {"run": r["run"], "arm": r["arm"], "verdict": r["outcome"], "cells": r["cells"]}
        for r in outcome_rows(reports)
        if r["cells"]
    ]


def run(params: Params) -> None:
    write_all(
        evidence.DATA,
        evidence.report_dir(),
        evidence.TRACKED_RESULTS,
        params.report.metrics_reference_arm,
    )


def write_all(data: Path, out: Path, tracked: Path, reference_arm: str | None) -> None:
    """Every report of the evidence under ``data``: reports and page into ``out``, the
    headline metrics and plot data into ``tracked``."""
    with progress(len(STEPS), "report", unit="step") as bar:
        con = connect(data)
        bar.update()
        reports = build_all(con)
        write_reports(reports, out)
        bar.update()
        scenario_reports = build_scenario_reports(con, reports["abstraction"])
        write_scenario_reports(scenario_reports, out)
        bar.update()
        costs = build_costs(con, reference_arm)
        write_costs(costs, out)
        bar.update()
        cells = cell_records(con)
        bar.update()
        heads = headlines(reports)
        write_page(page_context(reports, scenario_reports, costs, heads, cells), out)
        bar.update()
    tracked.mkdir(parents=True, exist_ok=True)
    (tracked / "metrics.json").write_text(json.dumps(heads, indent=2, sort_keys=True) + "\n")
    plots = tracked / "plots"
    _write_csv(
        plots / "verdicts_by_arm.csv",
        ["run", "arm", "verdict", "cells"],
        verdict_plot_rows(reports["abstraction"]),
    )
    _write_csv(
        plots / "reuse_by_level.csv",
        ["scenario", "run", "arm", "level", "reuse_rate", "reused", "cells"],
        reuse_curve_rows(scenario_reports),
    )
