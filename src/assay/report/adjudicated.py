"""The primary comparison with and without human adjudication of ambiguous cells.

Both sets use the run's preregistered evaluator version: *without* is the preregistered result
(ambiguous cells are missing evidence), *with* replaces exactly the adjudicated cells. They are
reported side by side, each labelled; the primary result is always *without*.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from assay.report.primary import rows_of
from assay.report.verdict_sets import comparisons
from assay.science.adjudication import Adjudication, as_rows, resolve, unknown_ids, unknown_runs


def build_adjudicated(
    con: duckdb.DuckDBPyConnection, entries: tuple[Adjudication, ...], source: Path
) -> dict[str, dict[str, Any]]:
    """Per run: ambiguous and adjudicated cell counts, and every test without and with."""
    runs = {r["run"]: r for r in rows_of(con, "SELECT * FROM runs ORDER BY run")}
    rows = rows_of(
        con,
        "SELECT v.run, v.cell_id, v.step, v.subject, v.arm, v.repeat, v.verdict "
        "FROM verdict_versions v JOIN runs r ON r.run = v.run "
        "AND v.evaluator_version = r.preregistered_structure_evaluator "
        "ORDER BY v.run, v.step, v.subject, v.arm, v.repeat",
    )
    by_run: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_run.setdefault(row["run"], []).append(row)
    result = {}
    for name, cells in by_run.items():
        run = runs[name]
        version = run["preregistered_structure_evaluator"]
        verdicts = {(c["cell_id"], c["step"]): c["verdict"] for c in cells}
        applied = resolve(entries, name, verdicts, version, source)
        adjudicated = {**verdicts, **{key: entry.verdict for key, entry in applied.items()}}
        without = comparisons(cells, verdicts, run)
        with_ = {(t["step"], t["arm"]): t for t in comparisons(cells, adjudicated, run)}
        result[name] = {
            "source": source.as_posix(),
            "version": version,
            "ambiguous_cells": sum(v == "ambiguous" for v in verdicts.values()),
            "adjudicated_cells": len(applied),
            "entries": as_rows(applied),
            "tests": [
                {
                    "step": t["step"],
                    "arm": t["arm"],
                    "p_without": t["p_value"],
                    "p_with": with_[(t["step"], t["arm"])]["p_value"],
                    "significant_without": t["significant"],
                    "significant_with": with_[(t["step"], t["arm"])]["significant"],
                    "complete_without": t["complete_subjects"],
                    "complete_with": with_[(t["step"], t["arm"])]["complete_subjects"],
                }
                for t in without
            ],
        }
    named = [(r["run"], r["cell_id"], r["step"]) for r in rows]
    stray = unknown_runs(entries, runs) + unknown_ids(entries, named)
    for report in result.values():
        report["entries_for_undeclared_runs"] = stray
    return result
