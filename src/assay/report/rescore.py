"""Rescoring side by side: which verdicts another structural evaluator version changes.

The structure stage scores every registered version (``versions.parquet``), so nothing is
overwritten. For each run this compares the version its plan preregistered with every other
version: the cells whose verdict changed (by subject, arm, repeat and step, chain steps
included), and a headline, "changes no verdict" or "changes N verdicts in M subjects", with the
paired sign test's p before and after for every arm and step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from assay.report.primary import SIMULATED_BANNER, rows_of, write_report_files
from assay.report.primary import _table as markdown_table
from assay.report.verdict_sets import comparisons

CHANGE_COLUMNS = ["step", "subject", "arm", "repeat", "preregistered", "rescored", "reason"]


def _verdicts(rows: list[dict[str, Any]]) -> dict[tuple[str, int], str | None]:
    return {(r["cell_id"], r["step"]): r["verdict"] for r in rows}


def _headline(version: int, preregistered: int, changed: list[dict[str, Any]]) -> str:
    if not changed:
        return f"v{version} changes no verdict of v{preregistered}"
    subjects = len({c["subject"] for c in changed})
    return (
        f"v{version} changes {len(changed)} verdict{'s' * (len(changed) != 1)} of "
        f"v{preregistered} in {subjects} subject{'s' * (subjects != 1)}"
    )


def _tests(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rescored = {(t["step"], t["arm"]): t for t in after}
    return [
        {
            "step": t["step"],
            "arm": t["arm"],
            "p_before": t["p_value"],
            "p_after": rescored[(t["step"], t["arm"])]["p_value"],
            "significant_before": t["significant"],
            "significant_after": rescored[(t["step"], t["arm"])]["significant"],
            "complete_before": t["complete_subjects"],
            "complete_after": rescored[(t["step"], t["arm"])]["complete_subjects"],
        }
        for t in before
    ]


def build_rescore_reports(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """One verdict-diff report per run that has side-by-side versions."""
    runs = {r["run"]: r for r in rows_of(con, "SELECT * FROM runs ORDER BY run")}
    every = rows_of(
        con,
        "SELECT run, cell_id, step, subject, arm, repeat, verdict, reason, evaluator_version "
        "FROM verdict_versions ORDER BY run, evaluator_version, step, subject, arm, repeat",
    )
    scored = dict(
        con.execute(
            "SELECT run, list(DISTINCT evaluator_version ORDER BY evaluator_version) "
            "FROM verdicts GROUP BY run"
        ).fetchall()
    )
    by_run: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for row in every:
        by_run.setdefault(row["run"], {}).setdefault(row["evaluator_version"], []).append(row)
    reports = {}
    for name, versions in sorted(by_run.items()):
        run = runs[name]
        preregistered = run["preregistered_structure_evaluator"]
        if preregistered not in versions:
            continue
        base_rows = versions[preregistered]
        base = _verdicts(base_rows)
        base_tests = comparisons(base_rows, base, run)
        diffs = []
        for version, rows in sorted(versions.items()):
            if version == preregistered:
                continue
            other = _verdicts(rows)
            reasons = {(r["cell_id"], r["step"]): r["reason"] for r in rows}
            changed = [
                {
                    "step": r["step"],
                    "subject": r["subject"],
                    "arm": r["arm"],
                    "repeat": r["repeat"],
                    "cell_id": r["cell_id"],
                    "preregistered": r["verdict"],
                    "rescored": other.get((r["cell_id"], r["step"])),
                    "reason": reasons.get((r["cell_id"], r["step"])),
                }
                for r in base_rows
                if other.get((r["cell_id"], r["step"])) != r["verdict"]
            ]
            diffs.append(
                {
                    "version": version,
                    "headline": _headline(version, preregistered, changed),
                    "changed_verdicts": len(changed),
                    "changed_subjects": len({c["subject"] for c in changed}),
                    "tests": _tests(base_tests, comparisons(rows, other, run)),
                    "changes": changed,
                }
            )
        reports[name] = {
            "report": "rescore",
            "run": name,
            "simulated": run["simulated"],
            "preregistered": preregistered,
            "reported_with": scored.get(name, []),
            "cells": len(base_rows),
            "diffs": diffs,
        }
    return reports


def _step_label(step: int) -> str:
    return "" if step == 1 else f" step {step}"


def p_text(p: float | None) -> str:
    return "—" if p is None else f"{p:.4g}"


def _significance_change(test: dict[str, Any], preregistered: int, version: int) -> str:
    before, after = bool(test["significant_before"]), bool(test["significant_after"])
    if before and not after:
        return f", significant under v{preregistered} but not under v{version}"
    if after and not before:
        return f", significant under v{version} but not under v{preregistered}"
    return ""


def headlines(report: dict[str, Any]) -> list[str]:
    """One line per other version, with the p-values that moved and every result that is
    significant under one version and not under the other."""
    lines = []
    for diff in report["diffs"]:
        moved = [
            f"{t['arm']}{_step_label(t['step'])}: p {p_text(t['p_before'])} → "
            f"{p_text(t['p_after'])}"
            + _significance_change(t, report["preregistered"], diff["version"])
            for t in diff["tests"]
            if t["p_before"] != t["p_after"] or t["significant_before"] != t["significant_after"]
        ]
        lines.append(diff["headline"] + (f" ({'; '.join(moved)})" if moved else ""))
    return lines


def render_rescore_markdown(report: dict[str, Any]) -> str:
    parts = [f"# Rescoring: {report['run']}\n"]
    if report["simulated"]:
        parts.append(SIMULATED_BANNER + "\n")
    reported = ", ".join(f"v{v}" for v in report["reported_with"]) or "none"
    parts.append(
        f"Preregistered structural evaluator v{report['preregistered']}; the run's reports score "
        f"with {reported}. Every version below scored the same {report['cells']} stored "
        "outputs offline (no provider call).\n"
    )
    for diff, line in zip(report["diffs"], headlines(report), strict=True):
        parts.append(f"## v{diff['version']}\n")
        parts.append(f"**{line}.**\n")
        parts.append(markdown_table(diff["tests"], [
            "step", "arm", "p_before", "p_after", "significant_before", "significant_after",
            "complete_before", "complete_after",
        ]))  # fmt: skip
        if diff["changes"]:
            parts.append("\nCells whose verdict changed:\n")
            parts.append(markdown_table(diff["changes"], CHANGE_COLUMNS))
    return "\n".join(parts)


def write_rescore_reports(reports: dict[str, dict[str, Any]], out: Path) -> None:
    write_report_files(out / "rescore", reports, render_rescore_markdown)
