"""The effect size beside the sign test, end to end from verdicts through DuckDB to the
reports: qwen-v1's verdicts as the study-power review tabulates them give its figures (mean
0.65, exact p 0.039 over 2^9 sign patterns, 95% interval [0.125, 1]) in abstraction.md/json and
reports/metrics.json, and the primary report says the tasks are controlled probes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from assay.pipeline.report import write_all
from assay.report.effects import CONTROLLED_PROBES
from assay.report.provenance import Provenance
from tests.report.evidence import write_verdict_evidence

CASE = yaml.safe_load((Path(__file__).parent / "cases" / "qwen_v1_verdicts.yaml").read_text())
RUN = CASE["run"]
BUILT = Provenance(assay_version="0.1.0", commit=None, commit_date=None)


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("qwen")
    write_verdict_evidence(root / "data", RUN, CASE["subjects"])
    write_all(root / "data", root / "out", root / "reports", None, provenance=BUILT)
    return root


def test_the_review_is_reproduced_from_qwen_v1s_verdicts(reported: Path) -> None:
    report = json.loads((reported / "out" / "runs" / RUN / "abstraction.json").read_text())
    (test,) = report["sign_tests"]
    assert {key: test[key] for key in CASE["expect"]["sign_test"]} == CASE["expect"]["sign_test"]
    assert test["descriptive_only"] and test["significant"] is False  # paired-v2 stands
    effect = test["effect"]
    assert {key: effect[key] for key in CASE["expect"]["effect"]} == CASE["expect"]["effect"]
    assert effect["method"].startswith("exact sign-flip permutation test: all 2^9 sign patterns")
    markdown = (reported / "out" / "runs" / RUN / "abstraction.md").read_text()
    assert CASE["expect"]["markdown"] in markdown
    assert "## Effect size (preregistered secondary analysis)" in markdown
    assert markdown.index("## Paired sign test") < markdown.index("## Effect size")


def test_metrics_carry_the_effect_and_its_interval(reported: Path) -> None:
    metrics = json.loads((reported / "reports" / "metrics.json").read_text())[RUN]
    assert (metrics["effect"], metrics["effect_lo"], metrics["effect_hi"]) == (0.65, 0.125, 1.0)
    assert metrics["p_min"] is None  # descriptive only: 9 complete subjects


def test_every_primary_report_says_its_tasks_are_controlled_probes(reported: Path) -> None:
    folder = reported / "out" / "runs" / RUN
    assert json.loads((folder / "abstraction.json").read_text())["scope"] == CONTROLLED_PROBES
    assert CONTROLLED_PROBES in (folder / "abstraction.md").read_text()
    assert "scope" not in json.loads((folder / "correctness.json").read_text())


def test_reports_are_byte_identical_on_a_rerun(reported: Path, tmp_path: Path) -> None:
    write_verdict_evidence(tmp_path / "data", RUN, CASE["subjects"])
    write_all(tmp_path / "data", tmp_path / "out", tmp_path / "reports", None, provenance=BUILT)
    for name in ("abstraction.json", "abstraction.md"):
        again = (tmp_path / "out" / "runs" / RUN / name).read_bytes()
        assert again == (reported / "out" / "runs" / RUN / name).read_bytes(), name
    assert (tmp_path / "reports" / "metrics.json").read_bytes() == (
        reported / "reports" / "metrics.json"
    ).read_bytes()


def test_the_scenario_report_shows_the_effect_beside_the_sign_test(reported: Path) -> None:
    scenario = (reported / "out" / "scenarios" / "v1.md").read_text()
    assert "(descriptive); effect +0.65 [+0.125, +1], p = 0.03906 (10 subjects)" in scenario
    data = json.loads((reported / "out" / "scenarios" / "v1.json").read_text())
    test = data["steps"]["1"]["tests"]["inconsistent"][RUN]
    assert (test["regressed"], test["effect"]["estimate"]) == (8, 0.65)
