"""The SQL report agrees with assay.science.stats on the same evidence, and is deterministic."""

import random

import pytest

from assay.core.records import ORDINAL_VERDICTS
from assay.core.tables import write_records
from assay.evidence import CallRecord, CandidateRow, PromptRow, SubjectRow, VerdictRow
from assay.paid.plan import Plan
from assay.report.database import connect
from assay.report.primary import build_reports, render_markdown
from assay.science.stats import paired_comparison

ARMS = ["mess-00", "mess-03", "mess-10"]
CHOICES = ["reused", "reused", "mixed", "duplicated", "ambiguous", "rejected", None]


def _plan(run, repeats, minimum):
    return Plan.model_validate({
        "run": run, "scenario": "dose", "fixture_sources": "0" * 64, "prompt_profile": "v1",
        "repeats": repeats, "arms": ARMS, "reference_arm": ARMS[0], "schedule": "blocked",
        "model": {"model": "m", "provider": "simulated"}, "cells": [], "tools": {},
        "analysis": {"alpha": 0.05, "minimum_subjects": minimum, "structure_evaluator": 7},
        "budget": {"paid": False, "ceiling_usd": 0.0, "reservation_usd": 0.0, "requests": 0, "admitted_requests": 0,
                   "worst_case_usd": 0.0},
    })  # fmt: skip


def write_evidence(data, seed, *, subjects=14, repeats=2, minimum=10):
    rng = random.Random(seed)
    run = f"run-{seed}"
    (data / "plan" / run).mkdir(parents=True)
    plan = _plan(run, repeats, minimum)
    (data / "plan" / run / "plan.json").write_bytes(plan.canonical())
    (data / "plan" / run / "plan.sha256").write_text(plan.hash + "\n")
    outcomes, verdicts = {}, []
    for s in range(subjects):
        subject = f"s{s:02d}"
        for arm in ARMS:
            for repeat in range(1, repeats + 1):
                verdict = rng.choice(CHOICES)
                outcomes.setdefault(subject, {}).setdefault(arm, []).append(verdict)
                verdicts.append(VerdictRow(run=run, cell_id=f"{subject}/{arm}/r{repeat}", subject=subject,
                                           arm=arm, repeat=repeat, step=1, verdict=verdict,
                                           reason="no-code" if verdict is None else "x",
                                           evaluator_version=7))  # fmt: skip
    write_records(data / "structure" / run / "verdicts.parquet", VerdictRow, verdicts)
    write_records(data / "execute" / run / "cells.parquet", CallRecord, [])
    write_records(data / "extract" / run / "candidates.parquet", CandidateRow, [])
    write_records(data / "subjects" / "dose" / "subjects.parquet", SubjectRow, [])
    write_records(data / "render" / "dose" / "prompts.parquet", PromptRow, [])
    return run, outcomes


@pytest.mark.parametrize("seed", range(8))
def test_sql_sign_tests_match_stats(tmp_path, seed):
    run, outcomes = write_evidence(tmp_path, seed, subjects=6 + seed * 2, repeats=1 + seed % 3)
    report = build_reports(connect(tmp_path))[run].model_dump(mode="json")
    repeats = report["run"]["repeats"]
    for test in report["sign_tests"]:
        expected = paired_comparison(outcomes, reference_arm=ARMS[0], other_arm=test["arm"], repeats=repeats,
                                     scale=ORDINAL_VERDICTS)  # fmt: skip
        assert test["favouring_reference"] == expected.favouring_reference
        assert test["favouring_arm"] == expected.favouring_other
        assert test["ties"] == expected.ties
        assert test["complete_subjects"] == len(expected.complete_subjects)
        assert test["incomplete_subjects"] == len(expected.incomplete_subjects)
        if not expected.complete_subjects:  # nothing to test: no p-value (never a p of 1)
            assert (test["p_value"], test["significant"], test["p_holm"]) == (None, None, None)
            continue
        assert test["p_value"] == pytest.approx(expected.test.p_value)
        assert test["descriptive_only"] == expected.descriptive_only
        assert test["significant"] == (expected.test.significant and not expected.descriptive_only)


def test_report_is_byte_identical_across_connections(tmp_path):
    run, _ = write_evidence(tmp_path, 3)
    first = render_markdown(build_reports(connect(tmp_path))[run])
    second = render_markdown(build_reports(connect(tmp_path))[run])
    assert first == second


def test_missing_tables_are_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="run `uv run dvc repro` first"):
        connect(tmp_path)


def test_assay_sql_answers_a_question_over_every_run(tmp_path, capsys):
    from assay.cli import main

    write_evidence(tmp_path, 1)
    write_evidence(tmp_path, 2)
    query = "SELECT run, count(*) AS n FROM verdicts GROUP BY run ORDER BY run"
    assert main(["sql", query, "--data", str(tmp_path), "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["run,n", "run-1,84", "run-2,84"]


def test_assay_sql_reports_a_bad_query_as_a_usage_error(tmp_path):
    from assay.cli import main

    write_evidence(tmp_path, 1)
    with pytest.raises(SystemExit) as exit_info:
        main(["sql", "SELECT nope FROM verdicts", "--data", str(tmp_path)])
    assert exit_info.value.code == 2


def test_scenario_report_puts_runs_side_by_side_with_regressed_counts(tmp_path):
    from assay.report.charts import reuse_curve_rows
    from assay.report.primary import build_all
    from assay.report.scenarios import (
        build_scenario_reports,
        render_scenario_markdown,
    )

    first, _ = write_evidence(tmp_path, 4)
    second, _ = write_evidence(tmp_path, 5)
    con = connect(tmp_path)
    primary = build_all(con)["abstraction"]
    (record,) = build_scenario_reports(con, primary).values()
    report = record.model_dump(mode="json")
    assert [r["run"] for r in report["runs"]] == [first, second]
    step = report["steps"]["1"]
    for arm in ARMS[1:]:
        for run in (first, second):
            test = next(
                t for t in primary[run].model_dump(mode="json")["sign_tests"] if t["arm"] == arm
            )
            assert step["tests"][arm][run]["regressed"] == test["favouring_reference"]
    markdown = render_scenario_markdown(record)
    assert f"| arm | {first} | {second} |" in markdown and "regressed" in markdown
    levels = [point.model_dump() for point in reuse_curve_rows({"dose": record})]
    assert {(row["run"], row["level"]) for row in levels} == {
        (r, lv) for r in (first, second) for lv in (0, 3, 10)
    }
