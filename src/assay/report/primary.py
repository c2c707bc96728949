"""The primary (abstraction) report per run, from the SQL in ``queries/``.

Per run: the simulated banner, the authorization state, what happened to every call, verdict
counts per arm, per-subject cells with lower medians, and the paired sign test of the reference
arm against every other arm (descriptive-only below the minimum inference set).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from assay.report.database import query_text

SIMULATED_BANNER = (
    "> **SIMULATED MODEL.** These answers come from assay's seeded stand-in, not from a language "
    "model. They test the pipeline and are not evidence about any model."
)


def rows_of(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _by_run(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row.pop("run"), []).append(row)
    return grouped


def build_reports(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    runs = rows_of(con, "SELECT * FROM runs ORDER BY run")
    comparisons = _by_run(rows_of(con, query_text("comparisons.sql")))
    counts = _by_run(rows_of(con, query_text("verdict_counts.sql")))
    subjects = _by_run(rows_of(con, query_text("subject_table.sql")))
    execution = _by_run(rows_of(con, query_text("execution.sql")))
    scored_with = {
        row["run"]: row["versions"]
        for row in rows_of(
            con,
            "SELECT run, list(DISTINCT evaluator_version ORDER BY evaluator_version) AS versions "
            "FROM verdicts GROUP BY run",
        )
    }
    reports = {}
    for run in runs:
        name = run["run"]
        tests = []
        for c in comparisons.get(name, []):
            p = round(c["p_value"], 10)
            descriptive = c["complete_subjects"] < c["minimum_subjects"]
            tests.append(
                {
                    **c,
                    "p_value": p,
                    "significant": (not descriptive) and p < c["alpha"],
                    "descriptive_only": descriptive,
                }
            )
        reports[name] = {
            "report": "abstraction",
            "run": {**run, "structure_evaluator": scored_with.get(name, [])},
            "execution": execution.get(name, []),
            "verdict_counts": counts.get(name, []),
            "subjects": subjects.get(name, []),
            "sign_tests": tests,
        }
    return reports


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    if not rows:
        return "_none_\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += [
        "| " + " | ".join("" if r[c] is None else str(r[c]) for c in columns) + " |" for r in rows
    ]
    return "\n".join(lines) + "\n"


def render_markdown(report: dict[str, Any]) -> str:
    run = report["run"]
    parts = [f"# Abstraction report: {run['run']}\n"]
    if run["simulated"]:
        parts.append(SIMULATED_BANNER + "\n")
    scored = ", ".join(f"v{v}" for v in run["structure_evaluator"]) or "none"
    parts.append(
        f"Model `{run['model']}` ({run['provider']}), scenario `{run['scenario']}`, {run['repeats']} repeats, "
        f"structural evaluator {scored}, plan `{run['plan_hash']}`.\n"
    )
    if run["structure_evaluator"] and run["structure_evaluator"] != [
        run["preregistered_structure_evaluator"]
    ]:
        parts.append(
            f"**Deviation from the plan:** scored with evaluator {scored}; the plan preregistered "
            f"v{run['preregistered_structure_evaluator']}. This is a rescoring, not the preregistered analysis.\n"
        )
    if run["authorization"] == "awaiting-authorization":
        parts.append(
            f"**Awaiting authorization.** Nothing was spent. Plan hash `{run['plan_hash']}`, "
            f"{run['cells']} cells, {run['requests']} requests, worst-case cost ${run['worst_case_usd']:.2f}. "
            f"Inspect with `assay plan show {run['run']}`, then `assay authorize {run['run']} --plan-hash HASH`.\n"
        )
    parts.append("## Provider calls\n")
    parts.append(_table(report["execution"], ["status", "calls", "reserved_usd", "reported_usd"]))
    parts.append("## Paired sign test (reference arm against each arm)\n")
    parts.append(
        "Lower ordinal median over repeats (duplicated < mixed < reused); a subject with any missing "
        "cell is incomplete and leaves the comparison. `for` = the reference arm reused more.\n\n"
    )
    parts.append(
        _table(
            report["sign_tests"],
            [
                "step",
                "reference_arm",
                "arm",
                "complete_subjects",
                "incomplete_subjects",
                "favouring_reference",
                "favouring_arm",
                "ties",
                "p_value",
                "significant",
                "descriptive_only",
            ],
        )
    )
    parts.append("## Verdicts per arm\n")
    parts.append(_table(report["verdict_counts"], ["step", "arm", "verdict", "cells"]))
    parts.append("## Subjects\n")
    parts.append(
        _table(report["subjects"], ["step", "subject", "arm", "cells", "complete", "lower_median"])
    )
    return "\n".join(parts)


def headline_metrics(reports: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``metrics.json``: a few numbers per run for ``dvc metrics show`` / ``dvc exp show``."""
    metrics: dict[str, Any] = {}
    for name, report in reports.items():
        reused: dict[str, int] = {}
        for row in report["verdict_counts"]:
            if row["verdict"] == "reused" and row["step"] == 1:
                reused[row["arm"]] = row["cells"]
        entry: dict[str, Any] = {
            f"reused_{arm}": reused.get(arm, 0) for arm in report["run"]["arms"]
        }
        for test in report["sign_tests"]:
            if test["step"] == 1:
                entry[f"p_{test['arm']}"] = test["p_value"]
                entry[f"complete_{test['arm']}"] = test["complete_subjects"]
        metrics[name] = entry
    return metrics


def plot_rows(reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"run": name, "arm": row["arm"], "verdict": row["verdict"], "cells": row["cells"]}
        for name, report in reports.items()
        for row in report["verdict_counts"]
        if row["step"] == 1
    ]


def write_reports(reports: dict[str, dict[str, Any]], out: Path) -> None:
    for name, report in reports.items():
        folder = out / "runs" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "abstraction.json").write_text(
            json.dumps(report, indent=2, sort_keys=True, default=str) + "\n"
        )
        (folder / "abstraction.md").write_text(render_markdown(report))
