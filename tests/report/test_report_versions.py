"""Rescoring side by side, adjudication, cross-model comparison and the scoped cost report,
over small hand-written evidence (the pipeline tests drive the same code through `dvc repro`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.config.params import CostRuns
from assay.core.records import ORDINAL_VERDICTS
from assay.report.adjudicated import build_adjudicated
from assay.report.compare import CompareError, compare_runs, sentence
from assay.report.costs import build_costs, render_costs_markdown
from assay.report.database import connect
from assay.report.effects import effect_text
from assay.report.primary import build_reports, render_markdown
from assay.report.rescore import build_rescore_reports, headlines, render_rescore_markdown
from assay.science.adjudication import AdjudicationError, load_adjudications
from assay.science.stats import paired_comparison
from tests.report.evidence_kit import write_metrics, write_run, write_subjects

CASES = Path(__file__).parent / "cases"
SUBJECTS = [f"s{i:02d}" for i in range(11)]


def _table(clean: str, inconsistent: str, *, repeats: int = 2) -> dict:
    return {s: {"clean": [clean] * repeats, "inconsistent": [inconsistent] * repeats}
            for s in SUBJECTS}  # fmt: skip


def test_a_version_that_changes_nothing_says_so(tmp_path: Path) -> None:
    table = _table("reused", "duplicated")
    write_run(tmp_path, "run-a", {7: {1: table}, 6: {1: table}})
    (report,) = build_rescore_reports(connect(tmp_path)).values()
    (diff,) = report.model_dump(mode="json")["diffs"]
    assert (diff["version"], diff["changed_verdicts"], diff["changes"]) == (6, 0, [])
    assert headlines(report) == ["v6 changes no verdict of v7"]


def test_changed_cells_by_subject_arm_and_chain_step_with_p_before_and_after(
    tmp_path: Path,
) -> None:
    v7 = {1: _table("reused", "duplicated"), 2: _table("reused", "duplicated")}
    v6 = {1: _table("reused", "duplicated"), 2: _table("reused", "duplicated")}
    v6[1]["s00"]["inconsistent"] = ["reused", "reused"]  # a tie instead of a regression
    v6[2]["s03"]["clean"] = ["ambiguous", "reused"]  # step 2: s03 becomes incomplete
    v6[2]["s04"]["clean"] = ["duplicated", "reused"]
    write_run(tmp_path, "run-a", {7: v7, 6: v6}, scenario="chain")
    (report,) = build_rescore_reports(connect(tmp_path)).values()
    (diff,) = report.model_dump(mode="json")["diffs"]
    changed = {(c["step"], c["subject"], c["arm"], c["repeat"], c["preregistered"], c["rescored"])
               for c in diff["changes"]}  # fmt: skip
    assert changed == {
        (1, "s00", "inconsistent", 1, "duplicated", "reused"),
        (1, "s00", "inconsistent", 2, "duplicated", "reused"),
        (2, "s03", "clean", 1, "reused", "ambiguous"),
        (2, "s04", "clean", 1, "reused", "duplicated"),
    }
    assert (diff["changed_verdicts"], diff["changed_subjects"]) == (4, 3)
    tests = {t["step"]: t for t in diff["tests"]}
    expected_after = paired_comparison(
        v6[1], reference_arm="clean", other_arm="inconsistent", repeats=2, scale=ORDINAL_VERDICTS
    )
    assert tests[1]["p_before"] == pytest.approx(2 / 2**11)
    assert tests[1]["p_after"] == pytest.approx(expected_after.test.p_value)
    assert tests[2]["complete_after"] == 10
    line = headlines(report)[0]
    assert line.startswith("v6 changes 4 verdicts of v7 in 3 subjects (")
    assert "inconsistent step 2: p" in line
    markdown = render_rescore_markdown(report)
    assert "| 2 | s03 | clean | 1 | reused | ambiguous |" in markdown


def test_rescoring_keeps_the_preregistered_primary_and_flags_the_deviation(tmp_path: Path) -> None:
    table = _table("reused", "duplicated")
    write_run(tmp_path, "run-a", {7: {1: table}, 6: {1: table}}, reported=6)
    con = connect(tmp_path)
    report = build_reports(
        con, rescoring={"run-a": headlines(build_rescore_reports(con)["run-a"])}
    )["run-a"]
    markdown = render_markdown(report)
    assert "Deviation from the plan" in markdown and "v6 changes no verdict of v7" in markdown


def _adjudications(tmp_path: Path, entries: list[dict]) -> Path:
    path = tmp_path / "adjudications.yaml"
    path.write_text(yaml.safe_dump(entries))
    return path


def _ambiguous_run(tmp_path: Path) -> None:
    table = _table("reused", "reused")
    for s in SUBJECTS[:9]:
        table[s]["inconsistent"] = ["duplicated", "ambiguous"]
    write_run(tmp_path / "data", "run-a", {7: {1: table}})


def test_adjudication_is_reported_beside_the_preregistered_result(tmp_path: Path) -> None:
    _ambiguous_run(tmp_path)
    entries = [
        {"run": "run-a", "cell_id": f"{s}/inconsistent/r2", "verdict": "duplicated",
         "rationale": "the helper call is dead code", "adjudicator": "A. Person"}
        for s in SUBJECTS[:9]
    ]  # fmt: skip
    path = _adjudications(tmp_path, entries)
    con = connect(tmp_path / "data")
    record = build_adjudicated(con, load_adjudications(path), path)["run-a"]
    adjudicated = record.model_dump(mode="json")
    (test,) = adjudicated["tests"]
    assert (adjudicated["ambiguous_cells"], adjudicated["adjudicated_cells"]) == (9, 9)
    assert (test["complete_without"], test["complete_with"]) == (2, 11)
    assert test["significant_without"] is False and test["significant_with"] is True
    primary = build_reports(con)["run-a"].model_dump(mode="json")
    (primary_test,) = primary["sign_tests"]
    assert primary_test["complete_subjects"] == 2, "adjudication leaked into the primary result"
    adjudged = build_reports(con, adjudication={"run-a": record})["run-a"]
    markdown = render_markdown(adjudged)
    assert "With human adjudication of ambiguous cells (not the preregistered result)" in markdown
    assert "A. Person" in markdown


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"cell_id": "s10/inconsistent/r1"}, "is 'reused' under the preregistered v7"),
        ({"cell_id": "nope"}, "has no cell nope"),
        ({"verdict": "ambiguous"}, "entry 1: verdict"),
        ({"rationale": ""}, "entry 1: rationale"),
    ],
)
def test_an_adjudication_that_resolves_no_ambiguous_cell_is_an_error(
    tmp_path: Path, entry: dict, message: str
) -> None:
    _ambiguous_run(tmp_path)
    base = {"run": "run-a", "cell_id": "s00/inconsistent/r2", "verdict": "duplicated",
            "rationale": "r", "adjudicator": "A"}  # fmt: skip
    path = _adjudications(tmp_path, [{**base, **entry}])
    with pytest.raises(AdjudicationError, match=message):
        build_adjudicated(connect(tmp_path / "data"), load_adjudications(path), path)


def test_the_same_cell_adjudicated_twice_is_an_error(tmp_path: Path) -> None:
    entry = {"run": "r", "cell_id": "c", "verdict": "reused", "rationale": "r", "adjudicator": "A"}
    with pytest.raises(AdjudicationError, match="entry 2: .* already adjudicated by entry 1"):
        load_adjudications(_adjudications(tmp_path, [entry, entry]))


COMPARE = yaml.safe_load((CASES / "compare.yaml").read_text())


def _counts_table(counts: list[int]) -> dict:
    return {
        f"s{i:02d}": {"clean": ["reused"] * n + ["duplicated"] * (2 - n)}
        for i, n in enumerate(counts)
    }


@pytest.mark.parametrize("case", COMPARE, ids=[c["name"] for c in COMPARE])
def test_cross_model_comparison_counts_reuse_per_subject(tmp_path: Path, case: dict) -> None:
    write_run(tmp_path, "a", {7: {1: _counts_table(case["first"])}}, arms=("clean",), model="sol")
    write_run(
        tmp_path, "b", {7: {1: _counts_table(case["second"])}}, arms=("clean",), model="haiku"
    )
    record = compare_runs(connect(tmp_path), "a", "b")
    comparison = record.model_dump(mode="json")
    (test,) = comparison["tests"]
    assert (test["first_more"], test["second_more"]) == (case["first_more"], case["second_more"])
    assert test["p_value"] == pytest.approx(case["p_value"])
    assert comparison["exploratory"] is True and "significant" not in test
    text = sentence(record, record.tests[0])
    assert f"on {case['first_more']} of {len(case['first'])} subjects" in text
    effect = test["effect"]
    assert {key: effect[key] for key in case["effect"]} == case["effect"]
    assert effect["ci_low"] <= effect["estimate"] <= effect["ci_high"]
    assert f"effect {effect_text(record.tests[0].effect)}, `a`'s per-subject reuse rate" in text


def test_runs_of_different_scenarios_do_not_compare(tmp_path: Path) -> None:
    write_run(tmp_path, "a", {7: {1: _table("reused", "reused")}})
    write_run(tmp_path, "b", {7: {1: _table("reused", "reused")}}, scenario="dose")
    with pytest.raises(CompareError, match="only runs of the same scenario compare"):
        compare_runs(connect(tmp_path), "a", "b")


def _cost_study(tmp_path: Path) -> None:
    table = _table("reused", "duplicated")
    write_run(tmp_path, "real", {7: {1: table}}, model="anthropic/claude-3-haiku")
    write_run(tmp_path, "sim", {7: {1: table}}, provider="simulated", model="sim-follower")
    write_subjects(tmp_path, "v1", SUBJECTS)
    cells = [
        f"{s}/{arm}/r{r}" for s in SUBJECTS for arm in ("clean", "inconsistent") for r in (1, 2)
    ]
    real = {c: (2.0 if "/clean/" in c else 6.0) for c in cells}
    real["s00/inconsistent/r2"] = None  # s00 incomplete for the arm comparison
    real["s01/inconsistent/r1"] = 1.0  # lower median of (1, 6) is 1: below clean's 2
    write_metrics(tmp_path, "real", real)
    write_metrics(tmp_path, "sim", dict.fromkeys(cells, 100.0))


def test_cost_report_leaves_simulated_runs_out_unless_asked_and_lists_what_it_pooled(
    tmp_path: Path,
) -> None:
    _cost_study(tmp_path)
    record = build_costs(connect(tmp_path), None)
    costs = record.model_dump(mode="json")
    assert [r["run"] for r in costs["pooled_runs"]] == ["real"] and costs["simulated"] is False
    assert "simulated" in costs["excluded_runs"]["sim"]
    by_verdict = {r["verdict"]: r["mean_delta"] for r in costs["by_verdict"]}
    assert by_verdict["reused"] == 2.0 and by_verdict["duplicated"] < 100
    markdown = render_costs_markdown(record)
    assert (
        "pooled over 1 run(s)" in markdown and "- `real` (anthropic/claude-3-haiku, v1)" in markdown
    )
    assert "Not pooled: `sim` (simulated" in markdown and "SIMULATED MODEL" not in markdown

    both = build_costs(connect(tmp_path), None, CostRuns(include_simulated=True)).model_dump()
    assert [r["run"] for r in both["pooled_runs"]] == ["real", "sim"] and both["simulated"]
    only = build_costs(
        connect(tmp_path), None, CostRuns(runs=("sim",), include_simulated=True)
    ).model_dump()
    assert [r["run"] for r in only["pooled_runs"]] == ["sim"]
    assert "not in report.cost_runs.runs" in only["excluded_runs"]["real"]
    by_model = build_costs(connect(tmp_path), None, CostRuns(models=("haiku-3-bedrock",)),
                           profiles={"real": "haiku-3-bedrock", "sim": "sim-follower"}).model_dump()  # fmt: skip
    assert [r["run"] for r in by_model["pooled_runs"]] == ["real"]


def test_cost_arm_comparison_uses_lower_medians_over_complete_repeats(tmp_path: Path) -> None:
    _cost_study(tmp_path)
    (row,) = build_costs(connect(tmp_path), None).model_dump()["by_arm"]
    assert (row["subjects"], row["incomplete_subjects"]) == (10, 1)
    assert (row["higher"], row["lower"], row["ties"]) == (9, 1, 0)
    assert row["p_value"] == pytest.approx(22 / 1024)
    assert row["significant"] is True and row["descriptive_only"] is False


def test_cost_arm_comparison_below_the_minimum_is_never_significant(tmp_path: Path) -> None:
    _cost_study(tmp_path)
    con = connect(tmp_path)
    con.execute("UPDATE runs SET minimum_subjects = 11")
    (row,) = build_costs(con, None).model_dump()["by_arm"]
    assert row["p_value"] < 0.05
    assert (row["significant"], row["descriptive_only"]) == (False, True)


def test_runs_with_different_repeats_do_not_compare(tmp_path: Path) -> None:
    write_run(tmp_path, "a", {7: {1: _table("reused", "reused")}})
    write_run(tmp_path, "b", {7: {1: _table("reused", "reused", repeats=1)}})
    with pytest.raises(CompareError, match="only over equal repeats"):
        compare_runs(connect(tmp_path), "a", "b")


def test_cross_model_counts_leave_out_a_subject_with_unscored_cells(tmp_path: Path) -> None:
    first = _counts_table([2] * 11)
    second = _counts_table([1] * 11)
    first["s00"]["clean"] = ["ambiguous", "ambiguous"]  # nothing scored: not "0 reused"
    second["s01"]["clean"] = ["reused", "rejected"]
    write_run(tmp_path, "a", {7: {1: first}}, arms=("clean",), model="sol")
    write_run(tmp_path, "b", {7: {1: second}}, arms=("clean",), model="haiku")
    record = compare_runs(connect(tmp_path), "a", "b")
    comparison = record.model_dump(mode="json")
    (test,) = comparison["tests"]
    assert (test["subjects"], test["left_out"]) == (9, ["s00", "s01"])
    assert (test["first_more"], test["second_more"]) == (9, 0)
    assert comparison["unscored"] == {"a": {"ambiguous": 2}, "b": {"rejected": 1}}
    assert "2 subjects left out, not scored in both" in sentence(record, record.tests[0])


def test_compare_refuses_simulated_against_real_and_a_side_with_nothing_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay.cli import main

    write_run(tmp_path, "sim", {7: {1: _table("reused", "duplicated")}}, provider="simulated")
    write_run(tmp_path, "real", {7: {1: _table("reused", "duplicated")}})
    write_run(tmp_path, "waiting", {7: {1: _table(None, None)}})
    for first, second, message in (
        ("sim", "real", "sim is simulated and real is not: simulated results are never compared"),
        ("real", "waiting", ("no subject is scored in both real and waiting, so nothing compares: "
                            "waiting has 44 no-candidate unscored")),
    ):  # fmt: skip
        with pytest.raises(SystemExit) as refused:
            main(["compare", first, second, "--data", str(tmp_path)])
        err = capsys.readouterr().err
        assert refused.value.code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_comparison_of_simulated_runs_says_so(tmp_path: Path) -> None:
    from assay.report.compare import render_comparison_markdown
    from assay.report.primary import SIMULATED_BANNER

    for run in ("a", "b"):
        write_run(tmp_path, run, {7: {1: _table("reused", "duplicated")}}, provider="simulated")
    record = compare_runs(connect(tmp_path), "a", "b")
    comparison = record.model_dump(mode="json")
    assert comparison["simulated"] is True
    assert render_comparison_markdown(record).startswith(
        "# Cross-model comparison (exploratory): a against b\n\n" + SIMULATED_BANNER
    )


def _reextracted(tmp_path: Path, preregistered: int, extracted_with: int) -> None:
    """Chat answers that print the module again: v2 leaves the gate to reject six of the
    inconsistent arm's cells, v3 reads them as duplicated (one changes the module)."""
    v2 = _table("reused", "duplicated")
    v3 = _table("reused", "duplicated")
    for s in SUBJECTS[:6]:
        v2[s]["inconsistent"] = ["rejected:module-statement", "rejected:module-statement"]
    v3[SUBJECTS[0]]["inconsistent"] = ["missing:module-changed", "missing:module-changed"]
    write_run(
        tmp_path, "run-a", {7: {1: _table("reused", "duplicated")}},
        extractions={2: v2, 3: v3}, preregistered_extraction=preregistered,
        extracted_with=extracted_with,
    )  # fmt: skip


def test_reextraction_lists_every_changed_outcome_with_p_before_and_after(tmp_path: Path) -> None:
    _reextracted(tmp_path, preregistered=2, extracted_with=3)
    con = connect(tmp_path)
    report = build_rescore_reports(con)["run-a"]
    extraction = report.model_dump(mode="json")["extraction"]
    assert (extraction["preregistered"], extraction["extracted_with"]) == (2, [3])
    (diff,) = extraction["diffs"]
    assert (diff["version"], diff["changed_cells"], diff["changed_subjects"]) == (3, 12, 6)
    changes = {(c["subject"], c["repeat"], c["preregistered"], c["reextracted"])
               for c in diff["changes"]}  # fmt: skip
    assert ("s01", 1, "rejected (module-statement)", "duplicated") in changes
    assert ("s00", 2, "rejected (module-statement)", "missing (module-changed)") in changes
    (test,) = diff["tests"]
    assert (test["complete_before"], test["complete_after"]) == (5, 10)
    line = headlines(report)[-1]
    assert line.startswith("extraction v3 changes 12 outcomes of extraction v2 in 6 subjects (")
    markdown = render_rescore_markdown(report)
    assert "## Re-extraction" in markdown and "### Extraction v3" in markdown
    assert "| 1 | s01 | inconsistent | 1 | rejected (module-statement) | duplicated |" in markdown
    primary = build_reports(con, rescoring={"run-a": headlines(report)})["run-a"]
    text = render_markdown(primary)
    assert "candidates extracted with rules v3; the plan preregistered v2" in text
    assert "extraction v3 changes 12 outcomes of extraction v2" in text


def test_a_run_extracted_as_preregistered_carries_no_deviation(tmp_path: Path) -> None:
    _reextracted(tmp_path, preregistered=3, extracted_with=3)
    con = connect(tmp_path)
    report = build_rescore_reports(con)["run-a"]
    (diff,) = report.model_dump(mode="json")["extraction"]["diffs"]
    assert diff["version"] == 2 and diff["changed_cells"] == 12
    assert "Deviation from the plan" not in render_markdown(build_reports(con)["run-a"])
