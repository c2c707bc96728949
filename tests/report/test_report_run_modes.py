"""Every report names each run's prompting mode and kind, never pools runs of different modes,
shows how often a cell's repeats agree, and reports only the runs it is given (the runs
params.yaml declares). Evidence: tests/report/evidence.py ``write_mode_evidence``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cli import main
from assay.pipeline.report import write_all
from assay.report.compare import compare_runs, render_comparison_markdown
from assay.report.database import connect
from assay.report.provenance import Provenance
from tests.publishable import published_text
from tests.report.evidence import write_mode_evidence
from tests.report.evidence_kit import write_metrics

BUILT = Provenance(assay_version="0.1.0", commit=None, commit_date=None)
CHAT = "chat"
COMPLETION = "completion, prefix ```python⏎def implement(, sampled at temperature 0.7"


@pytest.fixture
def reported(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_mode_evidence(data)
    for run in ("qwen-chat", "qwen-completion"):
        write_metrics(data, run, {f"s{s}/{arm}/r{r}": 1.0 for s in range(3)
                                  for arm in ("clean", "inconsistent") for r in (1, 2)})  # fmt: skip
    write_all(data, data / "report", tmp_path / "reports", None, provenance=BUILT)
    return data


def test_each_run_report_names_its_prompting_mode_and_kind(reported: Path) -> None:
    runs = reported / "report" / "runs"
    chat = (runs / "qwen-chat" / "abstraction.md").read_text()
    assert "**Prompting mode:** chat (real local model)." in chat
    completion = (runs / "qwen-completion" / "correctness.md").read_text()
    assert f"**Prompting mode:** {COMPLETION} (real local model)." in completion
    assert (
        "**Prompting mode:** simulated."
        in (runs / "follower-sim-v1" / "abstraction.md").read_text()
    )
    run = json.loads((runs / "qwen-completion" / "abstraction.json").read_text())["run"]
    assert (run["mode"], run["kind"]) == (COMPLETION, "real local model")


def test_repeat_agreement_per_arm_in_markdown_and_json(reported: Path) -> None:
    runs = reported / "report" / "runs"
    greedy = json.loads((runs / "qwen-chat" / "abstraction.json").read_text())
    assert greedy["repeat_agreement"] == [
        {"step": 1, "arm": arm, "subjects": 3, "scored_subjects": 3, "same_outcome": 3,
         "answered_subjects": 3, "identical_text": 3} for arm in ("clean", "inconsistent")
    ]  # fmt: skip
    sampled = json.loads((runs / "qwen-completion" / "abstraction.json").read_text())
    by_arm = {row["arm"]: row for row in sampled["repeat_agreement"]}
    assert by_arm["clean"]["same_outcome"] == 3 and by_arm["clean"]["identical_text"] == 0
    assert by_arm["inconsistent"]["same_outcome"] == 2  # s0 reused once, duplicated once
    markdown = (runs / "qwen-completion" / "abstraction.md").read_text()
    assert "## Repeat agreement" in markdown
    assert "| 1 | inconsistent | 3 | 3 | 2 | 3 | 0 |" in markdown


def test_scenario_report_labels_each_run_real_first(reported: Path) -> None:
    markdown = (reported / "report" / "scenarios" / "v1.md").read_text()
    assert "| `qwen-chat` | qwen | real local model | chat | 2 |" in markdown
    assert f"| `qwen-completion` | qwen | real local model | {COMPLETION} | 2 |" in markdown
    assert "| `follower-sim-v1` | sim-follower | simulated | simulated | 2 |" in markdown
    assert "These answers come from assay's seeded stand-in" not in markdown  # not one banner
    assert "**SIMULATED MODEL** in the runs of kind *simulated*" in markdown
    assert markdown.index("`qwen-completion`") < markdown.index("`follower-sim-v1`")
    report = json.loads((reported / "report" / "scenarios" / "v1.json").read_text())
    assert [r["run"] for r in report["runs"]] == ["qwen-chat", "qwen-completion", "follower-sim-v1"]


def test_duplication_cost_never_pools_two_modes_and_names_the_mode(reported: Path) -> None:
    costs = json.loads((reported / "report" / "duplication_cost.json").read_text())
    assert [(r["run"], r["mode"]) for r in costs["pooled_runs"]] == [("qwen-chat", CHAT)]
    assert costs["excluded_runs"]["qwen-completion"].startswith(
        f"prompting mode {COMPLETION}, not chat: runs of different modes are never pooled"
    )
    markdown = (reported / "report" / "duplication_cost.md").read_text()
    assert "- `qwen-chat` (qwen, v1): 12 outputs, prompting mode chat\n" in markdown


def test_two_modes_of_one_model_compare_paired_and_are_named(
    reported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = compare_runs(connect(reported), "qwen-chat", "qwen-completion")
    comparison = record.model_dump(mode="json")
    assert (comparison["first"]["mode"], comparison["second"]["mode"]) == (CHAT, COMPLETION)
    inconsistent = next(t for t in comparison["tests"] if t["arm"] == "inconsistent")
    assert (inconsistent["subjects"], inconsistent["first_more"], inconsistent["second_more"]) == (
        3, 0, 1
    )  # fmt: skip
    assert main(["compare", "qwen-chat", "qwen-completion", "--data", str(reported)]) == 0
    printed = capsys.readouterr().out
    assert printed == render_comparison_markdown(record)
    assert "`qwen-chat` (qwen, prompting mode chat)" in printed
    assert f"`qwen-completion` (qwen, prompting mode {COMPLETION})" in printed


def test_page_headline_names_modes_and_leads_with_real_runs(reported: Path) -> None:
    page = (reported / "report" / "index.html").read_text()
    rows = [
        page.index(f'<a href="#run-{run}">')
        for run in ("qwen-chat", "qwen-completion", "follower-sim-v1")
    ]
    assert rows == sorted(rows)
    assert "prompting mode <strong>chat</strong> (real local model)" in page


def test_only_the_runs_given_are_reported(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_mode_evidence(data)
    reported = ("qwen-chat", "follower-sim-v1")
    write_all(data, data / "report", tmp_path / "reports", None, provenance=BUILT, runs=reported)
    assert {p.name for p in (data / "report" / "runs").iterdir()} == set(reported)
    assert set(json.loads((tmp_path / "reports" / "metrics.json").read_text())) == {
        "qwen-chat", "follower-sim-v1"
    }  # fmt: skip
    for name in ("index.html", "scenarios/v1.md", "scenarios/v1.json", "duplication_cost.json"):
        # the page with its compressed cells decoded
        assert "qwen-completion" not in published_text(data / "report" / name), name
