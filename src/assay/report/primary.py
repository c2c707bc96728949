"""Per-run reports from the SQL in ``queries/``: the primary abstraction report and, beside it
(never inside it), the secondary correctness report.

Each has: the simulated banner, the authorization state, what happened to every call, outcome
counts per arm, per-subject cells with lower medians, and the paired sign test of the reference
arm against every other arm (descriptive-only below the minimum inference set).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from assay.report.database import query_text
from assay.report.kinds import ABSTRACTION, CORRECTNESS, KINDS, ReportKind

SIMULATED_BANNER = (
    "> **SIMULATED MODEL.** These answers come from assay's seeded stand-in, not from a language "
    "model. They test the pipeline and are not evidence about any model."
)
TEST_COLUMNS = [
    "step", "reference_arm", "arm", "complete_subjects", "incomplete_subjects",
    "favouring_reference", "favouring_arm", "ties", "p_value", "significant", "descriptive_only",
]  # fmt: skip


def rows_of(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _by_run(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row.pop("run"), []).append(row)
    return grouped


def _sign_tests(comparisons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tests = []
    for c in comparisons:
        p = round(c["p_value"], 10)
        descriptive = c["complete_subjects"] < c["minimum_subjects"]
        significant = (not descriptive) and p < c["alpha"]
        tests.append(
            {**c, "p_value": p, "significant": significant, "descriptive_only": descriptive}
        )
    return tests


def build_reports(
    con: duckdb.DuckDBPyConnection, kind: ReportKind = ABSTRACTION
) -> dict[str, dict[str, Any]]:
    """One report of ``kind`` per planned run."""
    runs = rows_of(con, "SELECT * FROM runs ORDER BY run")
    comparisons = _by_run(rows_of(con, query_text("comparisons.sql", kind)))
    counts = _by_run(rows_of(con, query_text("verdict_counts.sql", kind)))
    subjects = _by_run(rows_of(con, query_text("subject_table.sql", kind)))
    execution = _by_run(rows_of(con, query_text("execution.sql", kind)))
    excluded = _by_run(rows_of(con, query_text("scenario_excluded.sql")))
    scored_with = {
        row["run"]: row["versions"]
        for row in rows_of(
            con,
            "SELECT run, list(DISTINCT evaluator_version ORDER BY evaluator_version) AS versions "
            "FROM verdicts GROUP BY run",
        )
    }
    return {
        run["run"]: {
            "report": kind.name,
            "scale": list(kind.scale),
            "run": {**run, "structure_evaluator": scored_with.get(run["run"], [])},
            "execution": execution.get(run["run"], []),
            "excluded": excluded.get(run["run"], []),
            "outcome_counts": counts.get(run["run"], []),
            "subjects": subjects.get(run["run"], []),
            "sign_tests": _sign_tests(comparisons.get(run["run"], [])),
        }
        for run in runs
    }


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    if not rows:
        return "_none_\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += [
        "| " + " | ".join("" if r[c] is None else str(r[c]) for c in columns) + " |" for r in rows
    ]
    return "\n".join(lines) + "\n"


def _header(report: dict[str, Any]) -> list[str]:
    run = report["run"]
    parts = []
    if run["simulated"]:
        parts.append(SIMULATED_BANNER + "\n")
    scored = ", ".join(f"v{v}" for v in run["structure_evaluator"]) or "none"
    parts.append(
        f"Model `{run['model']}` ({run['provider']}), scenario `{run['scenario']}`, {run['repeats']} "
        f"repeats, plan `{run['plan_hash']}`"
        + (f", structural evaluator {scored}.\n" if report["report"] == ABSTRACTION.name else ".\n")
    )
    for row in report.get("excluded", []):
        cells = "1 cell" if row["cells"] == 1 else f"{row['cells']} cells"
        parts.append(
            f"**Excluded by the plan:** {cells} at {row['arm']}, never sent ({row['reason']}); "
            "they are missing evidence.\n"
        )
    preregistered = run["preregistered_structure_evaluator"]
    if report["report"] == ABSTRACTION.name and run["structure_evaluator"] not in (
        [],
        [preregistered],
    ):
        parts.append(
            f"**Deviation from the plan:** scored with evaluator {scored}; the plan preregistered "
            f"v{preregistered}. This is a rescoring, not the preregistered analysis.\n"
        )
    if run["authorization"] == "awaiting-authorization":
        parts.append(
            f"**Awaiting authorization.** Nothing was spent. Plan hash `{run['plan_hash']}`, "
            f"{run['cells']} cells, {run['requests']} requests, worst-case cost "
            f"${run['worst_case_usd']:.2f}. Inspect with `assay plan show {run['run']}`, then "
            f"`assay authorize {run['run']} --plan-hash HASH`.\n"
        )
    return parts


def render_markdown(report: dict[str, Any]) -> str:
    kind = ABSTRACTION if report["report"] == ABSTRACTION.name else CORRECTNESS
    scale = " < ".join(kind.scale)
    parts = [f"# {kind.title}: {report['run']['run']}\n", *_header(report)]
    parts.append("## Provider calls\n")
    parts.append(_table(report["execution"], ["status", "calls", "reserved_usd", "reported_usd"]))
    parts.append("## Paired sign test (reference arm against each arm)\n")
    parts.append(
        f"Lower ordinal median over repeats ({scale}); a subject with any missing cell is incomplete "
        "and leaves the comparison. `favouring_reference` = subjects where the reference arm scored "
        "higher (the other arm regressed).\n\n"
    )
    parts.append(_table(report["sign_tests"], TEST_COLUMNS))
    parts.append("## Outcomes per arm\n")
    parts.append(_table(report["outcome_counts"], ["step", "arm", "outcome", "cells"]))
    parts.append("## Subjects\n")
    parts.append(
        _table(report["subjects"], ["step", "subject", "arm", "cells", "complete", "lower_median"])
    )
    return "\n".join(parts)


def headline_metrics(reports: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """``metrics.json``: a few numbers per run for ``dvc metrics show`` / ``dvc exp show``."""
    metrics: dict[str, Any] = {}
    for kind, top in ((ABSTRACTION, "reused"), (CORRECTNESS, "correct")):
        for name, report in reports[kind.name].items():
            entry = metrics.setdefault(name, {})
            counted = {
                r["arm"]: r["cells"]
                for r in report["outcome_counts"]
                if r["outcome"] == top and r["step"] == 1
            }
            for arm in report["run"]["arms"]:
                entry[f"{top}_{arm}"] = counted.get(arm, 0)
            for test in report["sign_tests"]:
                if test["step"] == 1:
                    entry[f"{kind.prefix}p_{test['arm']}"] = test["p_value"]
                    entry[f"{kind.prefix}complete_{test['arm']}"] = test["complete_subjects"]
    return metrics


def plot_rows(reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"run": name, "arm": row["arm"], "verdict": row["outcome"], "cells": row["cells"]}
        for name, report in reports.items()
        for row in report["outcome_counts"]
        if row["step"] == 1
    ]


def build_all(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, dict[str, Any]]]:
    """Both reports, by kind name then run."""
    return {kind.name: build_reports(con, kind) for kind in KINDS}


def write_reports(reports: dict[str, dict[str, dict[str, Any]]], out: Path) -> None:
    for kind_name, per_run in reports.items():
        for name, report in per_run.items():
            folder = out / "runs" / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{kind_name}.json").write_text(
                json.dumps(report, indent=2, sort_keys=True, default=str) + "\n"
            )
            (folder / f"{kind_name}.md").write_text(render_markdown(report))
