"""The codebase sets in the seed's table shape: variants as rows, models as columns, reused cells
clean / inconsistent (case table in cases/codebase_sets.yaml)."""

from __future__ import annotations

from pathlib import Path

import yaml

from assay.report.codebase_sets import CodebaseSets, render_codebase_sets_markdown
from assay.report.codebase_sets import build_codebase_sets as build_from_records
from assay.report.primary import SIMULATED_BANNER
from assay.report.scenarios import ScenarioReport

CASE = yaml.safe_load((Path(__file__).parent / "cases" / "codebase_sets.yaml").read_text())


def _scenario(name: str, partial: dict) -> ScenarioReport:
    """A scenario report of the case's parts, what the table does not read left neutral."""
    return ScenarioReport.model_validate({
        "scenario": name, "excluded": [], "halted": {}, "model_comparisons": [], **partial,
        "runs": [{"kind": "free API", "repeats": 2, **run} for run in partial["runs"]],
        "steps": {step: {"subjects": {}, "tests": {}, "ambiguous": {}, **tables}
                  for step, tables in partial["steps"].items()},
    })  # fmt: skip


def build_codebase_sets(reports: dict) -> CodebaseSets:
    return build_from_records({name: _scenario(name, r) for name, r in reports.items()})


def test_variants_are_rows_models_are_columns_and_each_run_is_named_when_a_model_has_several():
    report = build_codebase_sets(CASE["scenario_reports"])
    assert report.models == ("haiku", "luna")
    assert [row.scenario for row in report.rows] == [
        "codebase-noimport",
        "codebase",
        "codebase-near",
    ]
    markdown = render_codebase_sets_markdown(report)
    assert CASE["table"] in markdown
    assert SIMULATED_BANNER not in markdown


def test_a_simulated_model_is_labelled_and_no_codebase_run_says_so():
    reports = {name: dict(r) for name, r in CASE["scenario_reports"].items()}
    reports["codebase"] = {
        **reports["codebase"],
        "runs": [
            {**run, "simulated": run["model"] == "luna"} for run in reports["codebase"]["runs"]
        ],
    }
    report = build_codebase_sets(reports)
    assert report.simulated_models == ("luna",)
    assert SIMULATED_BANNER in render_codebase_sets_markdown(report)

    empty = build_codebase_sets({"v1": CASE["scenario_reports"]["v1"]})
    assert empty.models == () and "No run of a codebase scenario." in (
        render_codebase_sets_markdown(empty)
    )


def test_a_model_with_runs_of_two_prompting_modes_gets_a_column_per_mode():
    reports = {name: dict(r) for name, r in CASE["scenario_reports"].items()}
    reports["codebase"] = {
        **reports["codebase"],
        "runs": [
            {**run, "mode": "completion"} if run["run"] == "luna-b" else run
            for run in reports["codebase"]["runs"]
        ],
    }
    report = build_codebase_sets(reports)
    assert report.models == ("haiku", "luna · chat (API)", "luna · completion")
    markdown = render_codebase_sets_markdown(report)
    assert "| target module | haiku | luna · chat (API) | luna · completion |" in markdown
    assert "| prompting mode | chat (API) | chat (API) | completion |" in markdown
    assert "| imports the helper | 8 / 8 of 22 | 16 / 18 of 22 | 15 / 17 of 22 |" in markdown


def test_each_run_carries_the_effect_of_its_clean_against_inconsistent_test():
    """A run whose step-1 test has an effect shows it beside its cells; one without (no subject
    scored in both arms) shows none."""
    from assay.science.effect import sign_flip_effect

    effect = sign_flip_effect([1, 1, 0, -1, 1, 1, 1])
    reports = {name: dict(r) for name, r in CASE["scenario_reports"].items()}
    test = {"regressed": 5, "improved": 1, "ties": 1, "complete": 7, "p_value": 0.21875,
            "p_holm": 0.21875, "significant": False, "descriptive_only": True,
            "effect": effect.model_dump()}  # fmt: skip
    steps = reports["codebase"]["steps"]
    reports["codebase"] = {
        **reports["codebase"],
        "steps": {"1": {**steps["1"], "tests": {"inconsistent": {"haiku-codebase": test}}}},
    }
    report = build_codebase_sets(reports)
    (haiku,) = next(row for row in report.rows if row.scenario == "codebase").runs["haiku"]
    assert haiku.effect == effect
    markdown = render_codebase_sets_markdown(report)
    assert "8 / 8 of 22, effect +0.571 [" in markdown  # 4/7, with its interval
    assert markdown.count(", effect ") == 1
