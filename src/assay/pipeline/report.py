"""``report`` stage: DuckDB over every run's evidence → Markdown/JSON reports, metrics, plots."""

from __future__ import annotations

import csv
import json

from assay.pipeline import paths
from assay.report.database import connect
from assay.report.primary import build_reports, headline_metrics, plot_rows, write_reports


def run() -> None:
    out = paths.report_dir()
    con = connect(paths.DATA)
    reports = build_reports(con)
    write_reports(reports, out)
    tracked = paths.TRACKED_RESULTS
    tracked.mkdir(parents=True, exist_ok=True)
    (tracked / "metrics.json").write_text(
        json.dumps(headline_metrics(reports), indent=2, sort_keys=True) + "\n"
    )
    plots = tracked / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    with (plots / "verdicts_by_arm.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["run", "arm", "verdict", "cells"])
        writer.writeheader()
        writer.writerows(plot_rows(reports))
