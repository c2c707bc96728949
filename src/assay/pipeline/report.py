"""``report`` stage: DuckDB over every run's evidence → Markdown/JSON reports, metrics, plots."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay import evidence
from assay.adjudication import load_adjudications
from assay.params import Params
from assay.report.adjudicated import build_adjudicated
from assay.report.compare import scenario_comparisons
from assay.report.costs import build_costs, write_costs
from assay.report.database import connect
from assay.report.primary import build_all, headline_metrics, plot_rows, write_reports
from assay.report.rescore import build_rescore_reports, headlines, write_rescore_reports
from assay.report.scenarios import build_scenario_reports, reuse_by_level, write_scenario_reports


def _write_csv(path: Path, columns: Sequence[str], rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        writer.writerows(rows)


def run(params: Params) -> None:
    out = evidence.report_dir()
    con = connect(evidence.DATA)
    entries = load_adjudications(Path(params.report.adjudications))
    reports = build_all(con)
    rescored = build_rescore_reports(con)
    adjudicated = build_adjudicated(con, entries, Path(params.report.adjudications))
    for name, report in reports["abstraction"].items():
        if name in rescored:
            report["rescoring"] = headlines(rescored[name])
        if name in adjudicated:
            report["adjudication"] = adjudicated[name]
    write_reports(reports, out)
    write_rescore_reports(rescored, out)
    scenario_reports = build_scenario_reports(con, reports["abstraction"])
    for scenario_report in scenario_reports.values():
        scenario_report["model_comparisons"] = scenario_comparisons(con, scenario_report["runs"])
    profiles = {name: spec.model for name, spec in params.runs.items()}
    costs = build_costs(con, params.report.metrics_reference_arm, params.report.cost_runs, profiles)
    write_costs(costs, out)
    write_scenario_reports(scenario_reports, out)
    tracked = evidence.TRACKED_RESULTS
    tracked.mkdir(parents=True, exist_ok=True)
    metrics = json.dumps(headline_metrics(reports), indent=2, sort_keys=True)
    (tracked / "metrics.json").write_text(metrics + "\n")
    plots = tracked / "plots"
    _write_csv(
        plots / "verdicts_by_arm.csv",
        ["run", "arm", "verdict", "cells"],
        plot_rows(reports["abstraction"]),
    )
    _write_csv(
        plots / "reuse_by_level.csv",
        ["scenario", "run", "arm", "level", "reused"],
        reuse_by_level(scenario_reports),
    )
