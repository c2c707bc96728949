"""Scenario reports: every run of one scenario side by side, models as columns.

For each scenario and step: reused / duplicated cells per arm (the seed's dose table), subjects
by lower median with the incomplete count (the context table), and per arm the paired sign
test against the reference arm with ``regressed`` = subjects that reused less at that arm.
Chain scenarios get one such table per step (``abstraction-1`` … ``abstraction-5``), and at
steps 2… the count of ambiguous cells whose answer only calls the model's own earlier step
function (the structural evaluator reads an answer alone, so reusing one's own earlier
abstraction is "neither helper nor primitive": missing evidence). Cells the plan excluded
(a request over the model's cap) are counted per arm and run, in words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import duckdb

from assay.fixtures.chain import earlier_steps_called
from assay.report.compare import EXPLORATORY, sentence
from assay.report.database import query_text
from assay.report.kinds import ABSTRACTION
from assay.report.primary import SIMULATED_BANNER, rows_of, write_report_files
from assay.report.run_records import RunReport

MIXED_BANNER = (
    "> **SIMULATED MODEL** in the runs of kind *simulated* below: their answers come from "
    "assay's seeded stand-in, not from a language model, and are not evidence about any model. "
    "The other runs are real models, never pooled with them."
)
OWN_STEP_REASONS = ("no-helper-no-primitive", "earlier-step-undecided")
"""The structural reasons an answer gets when its ``implement`` only calls an earlier step (v8
decides such a call by that step's verdict; it stays ambiguous when that verdict was)."""


def arm_level(arm: str) -> int | None:
    """The manipulated quantity an arm name carries (mess-05 → 5, ctx-30 → 30)."""
    match = re.fullmatch(r"[a-z]+-(\d+)", arm)
    return int(match.group(1)) if match else None


def build_scenario_reports(
    con: duckdb.DuckDBPyConnection, primary: Mapping[str, RunReport]
) -> dict[str, dict[str, Any]]:
    runs = rows_of(
        con,
        "SELECT run, scenario, model, simulated, kind, mode, repeats, arms FROM runs "
        "ORDER BY simulated, run",
    )
    cells = rows_of(con, query_text("scenario_cells.sql"))
    subjects = rows_of(con, query_text("scenario_subjects.sql"))
    reports: dict[str, dict[str, Any]] = {}
    for run in runs:
        report = reports.setdefault(
            run["scenario"],
            {
                "report": "scenario",
                "scenario": run["scenario"],
                "arms": run["arms"],
                "runs": [],
                "steps": {},
                "excluded": [],
                "halted": {},
            },
        )
        report["runs"].append(
            {k: run[k] for k in ("run", "model", "simulated", "kind", "mode", "repeats")}
        )
    for row in cells:
        step = _step(reports, row)
        counts = step["cells"].setdefault(row["arm"], {}).setdefault(row["run"], _no_cells())
        if row["outcome"] in ABSTRACTION.scale:
            counts[row["outcome"]] = row["cells"]
            counts["scored"] += row["cells"]
        else:
            counts["unscored"][row["outcome"]] = row["cells"]
    for step in (s for report in reports.values() for s in report["steps"].values()):
        for per_run in step["cells"].values():
            for counts in per_run.values():
                order = ABSTRACTION.outcomes
                counts["unscored"] = dict(
                    sorted(counts["unscored"].items(), key=lambda item: order.index(item[0]))
                )
    for row in subjects:
        step = _step(reports, row)
        step["subjects"].setdefault(row["arm"], {})[row["run"]] = {
            k: row[k] for k in ("reused", "mixed", "duplicated", "incomplete")
        }
    for row in rows_of(con, query_text("scenario_excluded.sql")):
        reports[row["scenario"]]["excluded"].append(
            {k: row[k] for k in ("arm", "run", "model", "cells", "reason")}
        )
    for row in rows_of(con, query_text("scenario_ambiguous.sql")):
        step = _step(reports, row)
        counts = (
            step["ambiguous"]
            .setdefault(row["arm"], {})
            .setdefault(row["run"], {"ambiguous": 0, "own_step": 0})
        )
        counts["ambiguous"] += 1
        counts["own_step"] += row["reason"] in OWN_STEP_REASONS and bool(
            earlier_steps_called(row["source"] or "", row["step"])
        )
    for name, run_report in primary.items():
        scenario = run_report.run.scenario
        if any(row.outcome == "halted" for row in run_report.outcome_counts):
            reports[scenario]["halted"][name] = run_report.stopped.summary
        for test in run_report.sign_tests:
            step = _step(reports, {"scenario": scenario, "step": test.step})
            step["tests"].setdefault(test.arm, {})[name] = {
                "regressed": test.favouring_reference,
                "improved": test.favouring_arm,
                "ties": test.ties,
                "complete": test.complete_subjects,
                "p_value": test.p_value,
                "p_holm": test.p_holm,
                "significant": test.significant,
                "descriptive_only": test.descriptive_only,
            }
    return reports


def _no_cells() -> dict[str, Any]:
    """One arm's cells of one run: on the scale by verdict, ``scored`` their sum, and every
    other outcome (ambiguous, rejected, the missing states) by name in ``unscored``."""
    return {"reused": 0, "mixed": 0, "duplicated": 0, "scored": 0, "unscored": {}}


def _step(reports: dict[str, dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
    steps = reports[row["scenario"]]["steps"]
    step: dict[str, Any] = steps.setdefault(
        str(row["step"]), {"cells": {}, "subjects": {}, "tests": {}, "ambiguous": {}}
    )
    return step


def _side_by_side(
    arms: list[str],
    runs: list[str],
    table: dict[str, dict[str, Any]],
    cell: Callable[[Any], str],
    absent: str = "",
) -> str:
    header = "| arm | " + " | ".join(runs) + " |"
    lines = [header, "|" + "---|" * (len(runs) + 1)]
    for arm in arms:
        values = [cell(table[arm][run]) if run in table.get(arm, {}) else absent for run in runs]
        lines.append(f"| {arm} | " + " | ".join(values) + " |")
    return "\n".join(lines) + "\n"


def render_scenario_markdown(report: dict[str, Any]) -> str:
    runs = [r["run"] for r in report["runs"]]
    parts = [f"# Scenario report: {report['scenario']}\n"]
    simulated = [r["run"] for r in report["runs"] if r["simulated"]]
    if simulated and len(simulated) == len(report["runs"]):
        parts.append(SIMULATED_BANNER + "\n")
    elif simulated:
        parts.append(MIXED_BANNER + "\n")
    parts.append(runs_table(report["runs"]))
    if report["excluded"]:
        parts.append(_excluded_text(report["excluded"]))
    for name, summary in report.get("halted", {}).items():
        parts.append(f"Cells `halted` in `{name}`: {summary}\n")
    for step, tables in sorted(report["steps"].items(), key=lambda item: int(item[0])):
        heading = f"abstraction-{step}" if len(report["steps"]) > 1 else "abstraction"
        parts.append(f"## {heading}\n")
        parts.append(
            "Cells, reused / duplicated (— when no cell was scored); mixed, ambiguous, rejected "
            "and missing cells (not-run, excluded, halted, no-candidate, evaluator-failure) in "
            "brackets when any:\n"
        )
        parts.append(_side_by_side(report["arms"], runs, tables["cells"], _cells_text))
        if int(step) > 1:
            parts.append(
                "\nOf the ambiguous cells, those that only call the model's own earlier step "
                "function (`implement_step_<k>`): the evaluator reads an answer alone, so this "
                "reuse of the model's own abstraction scores ambiguous (no helper, no primitive) "
                "and is missing evidence:\n"
            )
            parts.append(
                _side_by_side(report["arms"], runs, tables["ambiguous"], _ambiguous_text, "0 of 0")
            )
        parts.append("\nSubjects by lower median, reused / duplicated, and incomplete:\n")
        parts.append(_side_by_side(report["arms"], runs, tables["subjects"], _subjects_text))
        parts.append(
            f"\nEach arm against `{report['arms'][0]}` (paired sign test; regressed = subjects that "
            "reused less at that arm):\n"
        )
        parts.append(_side_by_side(report["arms"][1:], runs, tables["tests"], _test_text))
    comparisons = report.get("model_comparisons") or []
    if comparisons:
        parts.append("## Cross-model comparison (exploratory)\n")
        parts.append(f"_{EXPLORATORY.capitalize()}._ Per subject, cells that reused the helper.\n")
        parts.append("".join(f"- {sentence(c, t)}\n" for c in comparisons for t in c["tests"]))
    return "\n".join(parts)


def runs_table(runs: list[dict[str, Any]]) -> str:
    """Every run of the scenario with what answered it (its kind) and its prompting mode:
    real runs first, then simulated ones."""
    lines = ["| run | model | kind | prompting mode | repeats |", "|---|---|---|---|---|"]
    lines += [
        f"| `{r['run']}` | {r['model']} | {cell(r['kind'])} | {cell(r['mode'])} | {r['repeats']} |"
        for r in runs
    ]
    return "\n".join(lines) + "\n"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell (a ``|`` would end the cell)."""
    return text.replace("|", "\\|")


def unscored_text(unscored: dict[str, int]) -> str:
    """``3 ambiguous, 24 not-run``: the off-scale outcomes and missing states, by name."""
    return ", ".join(f"{n} {outcome}" for outcome, n in unscored.items())


def _cells_text(c: dict[str, Any]) -> str:
    extra = [f"{c['mixed']} mixed"] * bool(c["mixed"])
    if c["unscored"]:
        extra.append(unscored_text(c["unscored"]))
    counts = f"{c['reused']} / {c['duplicated']}" if c["scored"] else "—"
    return counts + (f" ({', '.join(extra)})" if extra else "")


def _ambiguous_text(a: dict[str, int]) -> str:
    return f"{a['own_step']} of {a['ambiguous']}"


def _excluded_text(excluded: list[dict[str, Any]]) -> str:
    lines = ["Cells the plan excluded (never sent, missing evidence):\n"]
    for row in excluded:
        cells = "1 cell" if row["cells"] == 1 else f"{row['cells']} cells"
        lines.append(f"- `{row['run']}` ({row['model']}): {cells} at {row['arm']}, {row['reason']}")
    return "\n".join(lines) + "\n"


def _subjects_text(s: dict[str, int]) -> str:
    complete = s["reused"] + s["mixed"] + s["duplicated"]
    counts = f"{s['reused']} / {s['duplicated']}" if complete else "—"
    return f"{counts}, {s['incomplete']} incomplete"


def _test_text(t: dict[str, Any]) -> str:
    if t["p_value"] is None:
        return "— (no complete subject)"
    flag = " *" if t["significant"] else (" (descriptive)" if t["descriptive_only"] else "")
    return (
        f"regressed {t['regressed']}, improved {t['improved']}, p={t['p_value']:.4g}"
        f" (Holm {t['p_holm']:.4g}){flag}"
    )


def write_scenario_reports(reports: dict[str, dict[str, Any]], out: Path) -> None:
    write_report_files(out / "scenarios", reports, render_scenario_markdown)
