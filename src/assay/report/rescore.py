"""Rescoring side by side: which verdicts another structural evaluator version changes, and
which outcomes another extraction version changes.

The structure stage scores every registered version (``versions.parquet``), so nothing is
overwritten. For each run this compares the version its plan preregistered with every other
version: the cells whose verdict changed (by subject, arm, repeat and step, chain steps
included), and a headline, "changes no verdict" or "changes N verdicts in M subjects", with the
paired sign test's p before and after for every arm and step.

Re-extraction the same way: the extract stage keeps every extraction version's candidates and
the structure stage scores each with the evaluator version the reports use
(``extraction_verdicts``). Against the extraction version the plan preregistered, every other
version's changed cells (verdict or missing reason: ``rejected (module-statement)`` →
``reused``), its headline and the p-values before and after (section ``extraction``).
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


def _structure_diffs(
    run: dict[str, Any], versions: dict[int, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    preregistered = run["preregistered_structure_evaluator"]
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
    return diffs


def outcome_text(row: dict[str, Any]) -> str:
    """A cell's outcome in one phrase: ``reused``, ``rejected (module-statement)``, ``missing
    (module-changed)``."""
    if row["verdict"] is None:
        return f"missing ({row['reason']})"
    if row["verdict"] in ("rejected", "ambiguous"):
        return f"{row['verdict']} ({row['reason']})"
    return str(row["verdict"])


def _extraction_headline(version: int, preregistered: int, changed: list[dict[str, Any]]) -> str:
    if not changed:
        return f"extraction v{version} changes no outcome of extraction v{preregistered}"
    subjects = len({c["subject"] for c in changed})
    return (
        f"extraction v{version} changes {len(changed)} outcome{'s' * (len(changed) != 1)} of "
        f"extraction v{preregistered} in {subjects} subject{'s' * (subjects != 1)}"
    )


def _extraction_diffs(
    run: dict[str, Any], versions: dict[int, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    preregistered = run["preregistered_extraction"]
    base_rows = versions[preregistered]
    base_tests = comparisons(base_rows, _verdicts(base_rows), run)
    diffs = []
    for version, rows in sorted(versions.items()):
        if version == preregistered:
            continue
        other = {(r["cell_id"], r["step"]): r for r in rows}
        changed = [
            {
                "step": r["step"],
                "subject": r["subject"],
                "arm": r["arm"],
                "repeat": r["repeat"],
                "cell_id": r["cell_id"],
                "preregistered": outcome_text(r),
                "reextracted": outcome_text(again),
            }
            for r in base_rows
            if (again := other.get((r["cell_id"], r["step"]))) is not None
            and (again["verdict"], again["reason"]) != (r["verdict"], r["reason"])
        ]
        diffs.append(
            {
                "version": version,
                "headline": _extraction_headline(version, preregistered, changed),
                "changed_cells": len(changed),
                "changed_subjects": len({c["subject"] for c in changed}),
                "tests": _tests(base_tests, comparisons(rows, _verdicts(rows), run)),
                "changes": changed,
            }
        )
    return diffs


def _grouped(
    rows: list[dict[str, Any]], version: str
) -> dict[str, dict[int, list[dict[str, Any]]]]:
    by_run: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for row in rows:
        by_run.setdefault(row["run"], {}).setdefault(row[version], []).append(row)
    return by_run


def _listed(con: duckdb.DuckDBPyConnection, column: str, table: str) -> dict[str, list[int]]:
    return dict(
        con.execute(
            f"SELECT run, list(DISTINCT {column} ORDER BY {column}) FROM {table} GROUP BY run"
        ).fetchall()
    )


def build_rescore_reports(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """One verdict-diff report per run that has side-by-side versions."""
    runs = {r["run"]: r for r in rows_of(con, "SELECT * FROM runs ORDER BY run")}
    structure = _grouped(
        rows_of(
            con,
            "SELECT run, cell_id, step, subject, arm, repeat, verdict, reason, evaluator_version "
            "FROM verdict_versions ORDER BY run, evaluator_version, step, subject, arm, repeat",
        ),
        "evaluator_version",
    )
    extraction = _grouped(
        rows_of(
            con,
            "SELECT run, cell_id, step, subject, arm, repeat, verdict, reason, "
            "extraction_version, evaluator_version FROM extraction_verdicts "
            "ORDER BY run, extraction_version, step, subject, arm, repeat",
        ),
        "extraction_version",
    )
    scored = _listed(con, "evaluator_version", "verdicts")
    extracted = _listed(con, "extraction_version", "candidates")
    reports = {}
    for name in sorted(set(structure) | set(extraction)):
        run = runs[name]
        versions = structure.get(name, {})
        preregistered = run["preregistered_structure_evaluator"]
        report: dict[str, Any] = {
            "report": "rescore",
            "run": name,
            "simulated": run["simulated"],
            "preregistered": preregistered,
            "reported_with": scored.get(name, []),
            "cells": len(versions.get(preregistered, [])),
            "diffs": _structure_diffs(run, versions) if preregistered in versions else [],
        }
        again = extraction.get(name, {})
        if run["preregistered_extraction"] in again:
            base = again[run["preregistered_extraction"]]
            report["extraction"] = {
                "preregistered": run["preregistered_extraction"],
                "extracted_with": extracted.get(name, []),
                "structure_evaluator": sorted({r["evaluator_version"] for r in base}),
                "cells": len(base),
                "diffs": _extraction_diffs(run, again),
            }
        if report["diffs"] or "extraction" in report:
            reports[name] = report
    return reports


def _step_label(step: int) -> str:
    return "" if step == 1 else f" step {step}"


def p_text(p: float | None) -> str:
    return "—" if p is None else f"{p:.4g}"


def _significance_change(test: dict[str, Any], preregistered: str, version: str) -> str:
    before, after = bool(test["significant_before"]), bool(test["significant_after"])
    if before and not after:
        return f", significant under {preregistered} but not under {version}"
    if after and not before:
        return f", significant under {version} but not under {preregistered}"
    return ""


def _moved(tests: list[dict[str, Any]], before: str, after: str) -> list[str]:
    return [
        f"{t['arm']}{_step_label(t['step'])}: p {p_text(t['p_before'])} → {p_text(t['p_after'])}"
        + _significance_change(t, before, after)
        for t in tests
        if t["p_before"] != t["p_after"] or t["significant_before"] != t["significant_after"]
    ]


def headlines(report: dict[str, Any]) -> list[str]:
    """One line per other version (structural evaluator, then extraction), with the p-values
    that moved and every result that is significant under one version and not the other."""
    lines = []
    for diff in report["diffs"]:
        moved = _moved(diff["tests"], f"v{report['preregistered']}", f"v{diff['version']}")
        lines.append(diff["headline"] + (f" ({'; '.join(moved)})" if moved else ""))
    extraction: dict[str, Any] = report.get("extraction") or {"diffs": []}
    for diff in extraction["diffs"]:
        moved = _moved(
            diff["tests"],
            f"extraction v{extraction['preregistered']}",
            f"extraction v{diff['version']}",
        )
        lines.append(diff["headline"] + (f" ({'; '.join(moved)})" if moved else ""))
    return lines


TEST_COLUMNS = [
    "step", "arm", "p_before", "p_after", "significant_before", "significant_after",
    "complete_before", "complete_after",
]  # fmt: skip
EXTRACTION_CHANGE_COLUMNS = ["step", "subject", "arm", "repeat", "preregistered", "reextracted"]


def _extraction_markdown(report: dict[str, Any], lines: list[str]) -> list[str]:
    extraction = report["extraction"]
    used = ", ".join(f"v{v}" for v in extraction["extracted_with"]) or "none"
    scored = ", ".join(f"v{v}" for v in extraction["structure_evaluator"]) or "none"
    parts = [
        "## Re-extraction\n",
        (
            f"Preregistered extraction v{extraction['preregistered']}; the run's candidates are "
            f"extracted with {used}. Every extraction version below read the same "
            f"{extraction['cells']} stored responses offline (no provider call), and every "
            f"candidate was scored with structural evaluator {scored}.\n"
        ),
    ]
    for diff, line in zip(extraction["diffs"], lines, strict=True):
        parts.append(f"### Extraction v{diff['version']}\n")
        parts.append(f"**{line}.**\n")
        parts.append(markdown_table(diff["tests"], TEST_COLUMNS))
        if diff["changes"]:
            parts.append("\nCells whose outcome changed:\n")
            parts.append(markdown_table(diff["changes"], EXTRACTION_CHANGE_COLUMNS))
    return parts


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
    every = headlines(report)
    for diff, line in zip(report["diffs"], every, strict=False):
        parts.append(f"## v{diff['version']}\n")
        parts.append(f"**{line}.**\n")
        parts.append(markdown_table(diff["tests"], TEST_COLUMNS))
        if diff["changes"]:
            parts.append("\nCells whose verdict changed:\n")
            parts.append(markdown_table(diff["changes"], CHANGE_COLUMNS))
    if "extraction" in report:
        parts += _extraction_markdown(report, every[len(report["diffs"]) :])
    return "\n".join(parts)


def write_rescore_reports(reports: dict[str, dict[str, Any]], out: Path) -> None:
    write_report_files(out / "rescore", reports, render_rescore_markdown)
