"""``data/report/index.html``: the whole study on one self-contained page.

Headline per run, the primary abstraction results (sign tests, dose-response and placement
curves, verdicts by arm, chain steps, scenario and codebase tables), the duplication-cost
figures, the secondary correctness results in their own section (never inside the primary
ones), runs awaiting authorization, and a cell browser. Rendered with Jinja2 from
``templates/``; charts are Vega-Lite (:mod:`assay.report.charts`) drawn by the inlined
JavaScript of :mod:`assay.report.vega`; nothing is fetched when the page opens.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from assay.report import charts, vega
from assay.report.codebase_sets import SCENARIOS as CODEBASE_SCENARIOS
from assay.report.codebase_sets import table_rows
from assay.report.costs import HEADLINE, VERDICTS, WITHIN_SUBJECT, pivot
from assay.report.kinds import ABSTRACTION, CORRECTNESS
from assay.report.primary import TEST_COLUMNS

PAGE = "index.html"


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("assay.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["number"] = _number
    return environment


def _number(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _static(name: str) -> str:
    return resources.files("assay.report").joinpath("templates", name).read_text(encoding="utf-8")


def _scenario_tables(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per step: the side-by-side rows (arm × run) of the scenario report."""
    runs = [r["run"] for r in report["runs"]]
    steps = []
    for step, tables in sorted(report["steps"].items(), key=lambda item: int(item[0])):
        rows = []
        for arm in report["arms"]:
            rows.append(
                {
                    "arm": arm,
                    "cells": [tables["cells"].get(arm, {}).get(run) for run in runs],
                    "subjects": [tables["subjects"].get(arm, {}).get(run) for run in runs],
                    "tests": [tables["tests"].get(arm, {}).get(run) for run in runs],
                }
            )
        steps.append({"step": int(step), "rows": rows})
    return steps


def _shared_prompts(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """The cells with each distinct prompt stored once (repeats share their prompt)."""
    index: dict[str, int] = {}
    rows = []
    for cell in cells:
        prompt = cell["prompt"]
        if prompt is not None and prompt not in index:
            index[prompt] = len(index)
        rows.append({**cell, "prompt": None if prompt is None else index[prompt]})
    return {"prompts": list(index), "cells": rows}


def page_context(
    reports: dict[str, dict[str, dict[str, Any]]],
    scenario_reports: dict[str, dict[str, Any]],
    codebase_sets: dict[str, Any],
    costs: dict[str, Any],
    headlines: dict[str, dict[str, Any]],
    cells: list[dict[str, Any]],
) -> dict[str, Any]:
    primary = reports[ABSTRACTION.name]
    secondary = reports[CORRECTNESS.name]
    runs = [primary[name]["run"] for name in sorted(primary)]
    labels = dict(HEADLINE + WITHIN_SUBJECT)
    chart_specs = {
        "reuse_curves": charts.reuse_curves(
            charts.reuse_curve_rows(scenario_reports),
            {name: report["arms"] for name, report in scenario_reports.items()},
        ),
        "verdicts_by_arm": charts.outcomes_by_arm(
            charts.outcome_rows(primary), charts.VERDICT_ORDER, charts.VERDICT_COLOURS, "verdict"
        ),
        "chain_steps": charts.chain_steps(charts.chain_rows(primary)),
        "duplication_cost": charts.duplication_cost(charts.cost_rows(costs, labels)),
        "correctness_by_arm": charts.outcomes_by_arm(
            charts.outcome_rows(secondary),
            charts.CORRECTNESS_ORDER,
            charts.CORRECTNESS_COLOURS,
            "correctness",
        ),
    }
    scenarios = [
        {
            "name": name,
            "codebase": name in CODEBASE_SCENARIOS,
            "runs": report["runs"],
            "simulated": any(r["simulated"] for r in report["runs"]),
            "steps": _scenario_tables(report),
        }
        for name, report in sorted(scenario_reports.items())
    ]
    return {
        "runs": runs,
        "headlines": headlines,
        "any_simulated": any(r["simulated"] for r in runs),
        "awaiting": [r for r in runs if r["authorization"] == "awaiting-authorization"],
        "primary": [primary[r["run"]] for r in runs],
        "secondary": [secondary[r["run"]] for r in runs],
        "test_columns": TEST_COLUMNS,
        "charts": chart_specs,
        "scenarios": [s for s in scenarios if not s["codebase"]],
        "codebase_scenarios": [s for s in scenarios if s["codebase"]],
        "codebase_sets": codebase_sets,
        "codebase_table": table_rows(codebase_sets, run_label="{}"),
        "costs": costs,
        "cost_by_verdict": pivot(costs["by_verdict"], ("metric",)),
        "cost_labels": labels,
        "verdicts": VERDICTS,
        "cells": _shared_prompts(cells),
        "style": _static("report.css"),
        "script": _static("browser.js"),
        "vega": vega.javascript(),
    }


def render_page(context: dict[str, Any]) -> str:
    return _environment().get_template("index.html.j2").render(**context)


def write_page(context: dict[str, Any], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / PAGE
    path.write_text(render_page(context), encoding="utf-8")
    return path
