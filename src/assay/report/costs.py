""" "What duplication costs": code metrics of every output by structural verdict.

Pooled over every run (the seed's table), broken down by subject family, within subjects that
produced both verdicts, and each arm against a reference arm per subject with the paired sign
test. Every number is the mean change per output of a pinned, established tool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from assay.report.database import query_text
from assay.report.primary import SIMULATED_BANNER, rows_of

HEADLINE = (
    ("sloc", "SLOC (radon)"),
    ("cyclomatic_complexity", "cyclomatic complexity (radon)"),
    ("cognitive_complexity", "cognitive complexity (complexipy)"),
    ("halstead_volume", "Halstead volume (radon)"),
    ("max_nesting_depth_new_code", "max nesting depth, new code (lizard)"),
    ("new_duplicated_lines", "new duplicated lines (jscpd, default thresholds)"),
)
WITHIN_SUBJECT = HEADLINE[:5] + (("maintainability_index", "Maintainability Index (radon)"),)
VERDICTS = ("reused", "mixed", "duplicated")
JSCPD_NOTE = (
    "jscpd matches exact token runs at its default thresholds (5 lines, 50 tokens): it misses "
    "copies with renamed variables and copies shorter than those thresholds."
)


def _sql(name: str, metrics: tuple[tuple[str, str], ...], **replacements: str) -> str:
    text = query_text(name).replace(
        "{metrics}", "(" + ", ".join(f"'{m}'" for m, _ in metrics) + ")"
    )
    for key, value in replacements.items():
        text = text.replace("{" + key + "}", value)
    return text


def build_costs(con: duckdb.DuckDBPyConnection, reference_arm: str | None) -> dict[str, Any]:
    reference = "NULL" if reference_arm is None else "'" + reference_arm.replace("'", "''") + "'"
    (summary,) = rows_of(
        con,
        "SELECT (SELECT coalesce(bool_or(simulated), false) FROM runs) AS simulated, "
        "(SELECT count(DISTINCT (run, cell_id)) FROM metric_changes) AS outputs",
    )
    return {
        "report": "duplication-cost",
        **summary,
        "by_verdict": rows_of(con, _sql("cost_by_verdict.sql", HEADLINE, group="")),
        "by_family": rows_of(con, _sql("cost_by_verdict.sql", HEADLINE, group="family,")),
        "within_subject": rows_of(con, _sql("cost_within_subject.sql", WITHIN_SUBJECT)),
        "by_arm": rows_of(con, _sql("cost_by_arm.sql", HEADLINE, reference_arm=reference)),
        "note": JSCPD_NOTE,
    }


def pivot(rows: list[dict[str, Any]], key: tuple[str, ...]) -> list[dict[str, Any]]:
    table: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        entry = table.setdefault(tuple(row[k] for k in key), {k: row[k] for k in key})
        entry[row["verdict"]] = (
            f"{row['mean_delta']} (n={row['outputs']})" if row["outputs"] else "—"
        )
    return list(table.values())


def _markdown_table(rows: list[dict[str, Any]], columns: list[str], labels: dict[str, str]) -> str:
    if not rows:
        return "_no measured outputs_\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = [
            labels.get(str(row.get(c)), str(row.get(c, "")))
            if c == "metric"
            else str(row.get(c, ""))
            for c in columns
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_costs_markdown(costs: dict[str, Any]) -> str:
    labels = dict(HEADLINE + WITHIN_SUBJECT)
    parts = ["# What duplication costs\n"]
    if costs["simulated"]:
        parts.append(SIMULATED_BANNER + "\n")
    parts.append(
        f"Mean change per output over {costs['outputs']} measured outputs (every run pooled).\n"
    )
    parts.append(
        _markdown_table(pivot(costs["by_verdict"], ("metric",)), ["metric", *VERDICTS], labels)
    )
    parts.append("\n## By subject family\n")
    parts.append(
        _markdown_table(
            pivot(costs["by_family"], ("family", "metric")),
            ["family", "metric", *VERDICTS],
            labels,
        )
    )
    parts.append("\n## Within subjects that produced both verdicts\n")
    parts.append(_markdown_table(costs["within_subject"], [
        "metric", "subjects", "duplicated_higher", "duplicated_lower", "equal", "mean_reused", "mean_duplicated",
    ], labels))  # fmt: skip
    parts.append("\n## Each arm against the reference arm (per subject, paired sign test)\n")
    parts.append(_markdown_table(costs["by_arm"], [
        "run", "arm", "reference_arm", "metric", "subjects", "higher", "lower", "ties", "p_value",
    ], labels))  # fmt: skip
    parts.append(f"\n_{costs['note']}_\n")
    return "\n".join(parts)


def write_costs(costs: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "duplication_cost.json").write_text(
        json.dumps(costs, indent=2, sort_keys=True, default=str) + "\n"
    )
    (out / "duplication_cost.md").write_text(render_costs_markdown(costs))
