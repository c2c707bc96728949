""" "What duplication costs": code metrics of every output by structural verdict.

Pooled over the chosen runs (the seed's table pooled frontier runs), broken down by subject
family, within subjects that produced both verdicts, and each arm against a reference arm per
subject by the primary test's paired-v2 rules (lower median over complete repeats, exact sign
test, minimum inference set). Every number is the mean change per output of a pinned,
established tool.

Which runs are pooled: ``report.cost_runs`` in ``params.yaml`` (runs, scenarios, model
profiles) or ``assay costs --run/--scenario/--model``. Simulated runs are never pooled with
real ones unless asked (``include_simulated``), and real runs of different prompting modes
(:mod:`assay.report.modes`: chat, an answer prefilled, plain completion, a sampling temperature)
are never pooled at all: the mode most of the chosen real runs share is pooled, the others are
left out with the reason. The report's header lists exactly the runs it pooled, each with its
mode, and why the others were left out.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb

from assay.config.params import CostRuns
from assay.report.database import query_text
from assay.report.primary import SIMULATED_BANNER, rows_of
from assay.science.stats import decide

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


def choose_runs(
    runs: list[dict[str, Any]], chosen: CostRuns, profiles: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The runs to pool, and every other run with the reason it was left out.

    ``profiles`` maps a run to its model profile name; a ``models`` filter matches the profile
    name or the provider's model id.
    """
    pooled, excluded = [], {}
    for run in runs:
        name = run["run"]
        model_names = {run["model"], (profiles or {}).get(name, run["model"])}
        if chosen.runs is not None and name not in chosen.runs:
            excluded[name] = "not in report.cost_runs.runs"
        elif chosen.scenarios is not None and run["scenario"] not in chosen.scenarios:
            excluded[name] = f"scenario {run['scenario']} not chosen"
        elif chosen.models is not None and not model_names & set(chosen.models):
            excluded[name] = f"model {run['model']} not chosen"
        elif run["simulated"] and not chosen.include_simulated:
            excluded[name] = "simulated (never pooled with real runs unless include_simulated)"
        else:
            pooled.append(name)
    modes = {run["run"]: run["mode"] for run in runs if not run["simulated"]}
    pooled_mode = one_mode([name for name in pooled if name in modes], modes)
    for name in [n for n in pooled if n in modes and modes[n] != pooled_mode]:
        pooled.remove(name)
        excluded[name] = (
            f"prompting mode {modes[name]}, not {pooled_mode}: runs of different modes are "
            "never pooled (choose with report.cost_runs.runs)"
        )
    return pooled, excluded


def one_mode(names: list[str], modes: dict[str, str]) -> str | None:
    """The prompting mode to pool: the one most of ``names`` share (on a tie, the mode of the
    first run by name); ``None`` without a run."""
    counts = Counter(modes[name] for name in names)
    first = {mode: min(n for n in names if modes[n] == mode) for mode in counts}
    return min(counts, key=lambda mode: (-counts[mode], first[mode]), default=None)


def _by_arm(con: duckdb.DuckDBPyConnection, reference: str) -> list[dict[str, Any]]:
    rows = rows_of(con, _sql("cost_by_arm.sql", HEADLINE, reference_arm=reference))
    for row in rows:
        row["p_value"] = round(row["p_value"], 10)
        inference = decide(
            row["p_value"],
            row.pop("alpha"),
            non_tied=row["higher"] + row["lower"],
            ties=row["ties"],
            complete_subjects=row["subjects"],
            minimum_subjects=row.pop("minimum_subjects"),
        )
        row.update(inference.model_dump())
    return rows


def _pooled(run: dict[str, Any], outputs: int) -> dict[str, Any]:
    return {
        **{k: run[k] for k in ("run", "scenario", "model", "simulated", "mode", "kind")},
        "outputs": outputs,
    }


def build_costs(
    con: duckdb.DuckDBPyConnection,
    reference_arm: str | None,
    chosen: CostRuns | None = None,
    profiles: dict[str, str] | None = None,
) -> dict[str, Any]:
    reference = "NULL" if reference_arm is None else "'" + reference_arm.replace("'", "''") + "'"
    runs = rows_of(con, "SELECT run, scenario, model, simulated, mode, kind FROM runs ORDER BY run")
    pooled, excluded = choose_runs(runs, chosen or CostRuns(), profiles)
    listed = "(" + ", ".join("'" + r.replace("'", "''") + "'" for r in pooled) + ")"
    con.execute(
        "CREATE OR REPLACE TEMP VIEW cost_changes AS SELECT * FROM metric_changes "
        + (f"WHERE run IN {listed}" if pooled else "WHERE false")
    )
    outputs = dict(
        con.execute("SELECT run, count(DISTINCT cell_id) FROM cost_changes GROUP BY run").fetchall()
    )
    by_run = {r["run"]: r for r in runs}
    return {
        "report": "duplication-cost",
        "simulated": any(by_run[name]["simulated"] for name in pooled),
        "outputs": sum(outputs.values()),
        "pooled_runs": [_pooled(by_run[name], outputs.get(name, 0)) for name in pooled],
        "excluded_runs": excluded,
        "by_verdict": rows_of(con, _sql("cost_by_verdict.sql", HEADLINE, group="")),
        "by_family": rows_of(con, _sql("cost_by_verdict.sql", HEADLINE, group="family,")),
        "within_subject": rows_of(con, _sql("cost_within_subject.sql", WITHIN_SUBJECT)),
        "by_arm": _by_arm(con, reference),
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
    pooled = costs["pooled_runs"]
    parts.append(
        f"Mean change per output over {costs['outputs']} measured outputs, pooled over "
        f"{len(pooled)} run(s):\n"
    )
    parts.append(
        "".join(
            f"- `{r['run']}` ({r['model']}, {r['scenario']}{', simulated' if r['simulated'] else ''}"
            f"): {r['outputs']} outputs"
            f"{'' if r['simulated'] else ', prompting mode ' + r['mode']}\n"
            for r in pooled
        )
        or "- none\n"
    )
    if costs["excluded_runs"]:
        parts.append(
            "Not pooled: "
            + "; ".join(f"`{run}` ({why})" for run, why in sorted(costs["excluded_runs"].items()))
            + ". Choose runs with `report.cost_runs` in params.yaml.\n"
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
    parts.append("\n## Each arm against the reference arm (paired-v2, per run)\n")
    parts.append(
        "Per subject and arm, the lower median of the metric's change over the repeats, only "
        "when every repeat was measured (as in the primary test); `higher` = subjects whose "
        "change is larger in the arm than in the reference arm. Exact sign test over the "
        "complete subjects; below the minimum inference set it is descriptive only.\n\n"
    )
    parts.append(_markdown_table(costs["by_arm"], [
        "run", "arm", "reference_arm", "metric", "subjects", "incomplete_subjects", "higher",
        "lower", "ties", "p_value", "significant", "descriptive_only", "note",
    ], labels))  # fmt: skip
    parts.append(f"\n_{costs['note']}_\n")
    return "\n".join(parts)


def write_costs(costs: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "duplication_cost.json").write_text(
        json.dumps(costs, indent=2, sort_keys=True, default=str) + "\n"
    )
    (out / "duplication_cost.md").write_text(render_costs_markdown(costs))
