"""Honest numbers through real ``dvc repro`` of the default study's v1 and context runs (the
simulated follower beside the seed's Haiku route, which awaits authorization and whose context
plan excludes ctx-90), on two subjects per scenario (the shared study, tests/study.py): missing
is never zero, one vocabulary for missing states on every surface, ``assay compare`` refuses what does not compare, the page
carries its qualifiers, provenance, links and paired view, ``dvc plots show`` draws offline,
and a replay of a simulated run stays simulated."""

from __future__ import annotations

import csv
import json
import re

import pyarrow.parquet as pq
import pytest
import yaml

from tests.conftest import Repo
from tests.report.browser import DVC_PLOTS_DRAWN, open_page
from tests.study import Study

RUNS = ("sim-follower-v1", "haiku-v1", "sim-follower-context", "haiku-context")
WAITING = ("haiku-v1", "haiku-context")

pytestmark = [pytest.mark.dvc, pytest.mark.docker]


@pytest.fixture(scope="module")
def studied(study: Study) -> Repo:
    """The shared study (tests/study.py: every scenario on two subjects, every run once), read
    only: it holds these four runs."""
    assert set(RUNS) <= set(study.params["runs"])
    return study.repo


def _assay(repo: Repo, *args: str, check: bool = True):
    return repo.run("python", "-m", "assay.cli", *args, check=check)


def test_missing_is_never_zero(studied: Repo) -> None:
    metrics = json.loads(studied.read("reports/metrics.json"))
    for run in WAITING:
        for key in ("reuse_ref", "reuse_min", "reuse_max", "correct_ref", "p_min", "sig_arms"):
            assert metrics[run][key] is None, (run, key)
    assert metrics["sim-follower-v1"]["reuse_ref"] is not None
    with (studied.path / "reports/plots/reuse_by_level.csv").open() as handle:
        levels = list(csv.DictReader(handle))
    assert {r["reuse_rate"] for r in levels if r["run"] == "haiku-context"} == {""}
    assert all(r["reuse_rate"] for r in levels if r["run"] == "sim-follower-context")
    scenario = studied.read("data/report/scenarios/context.md")
    assert "— (2 not-run)" in scenario and "— (2 excluded)" in scenario
    assert "| ctx-30 |" in scenario and "— (no complete subject)" in scenario


def test_rates_carry_their_denominators_and_small_sets_stay_descriptive(studied: Repo) -> None:
    """Two subjects per scenario: every comparison is below the minimum inference set of ten,
    so no p-value or significance is read; every rate shows numerator, denominator and what is
    not scored, per arm."""
    report = studied.read("data/report/runs/sim-follower-v1/abstraction.md")
    assert "## Reused per arm (step 1): numerator, denominator, not scored" in report
    assert "descriptive only (2 of 10)" in report
    metrics = json.loads(studied.read("reports/metrics.json"))
    follower = metrics["sim-follower-v1"]
    assert (follower["complete"], follower["p_min"], follower["sig_arms"]) == (2, None, None)
    assert follower["scored_ref"] + follower["missing_ref"] == 2  # 2 subjects x 1 repeat
    waiting = metrics["haiku-v1"]
    assert (waiting["scored_ref"], waiting["missing_ref"]) == (0, 2)
    shown = _assay(studied, "plan", "show", "haiku-v1").stdout
    assert "expected" in shown and "worst case" in shown


def test_one_vocabulary_for_missing_states(studied: Repo) -> None:
    shown = _assay(studied, "sql", "SELECT DISTINCT run, outcome, missing_detail FROM outcomes "
                   "WHERE missing IS NOT NULL ORDER BY ALL", "--format", "csv").stdout  # fmt: skip
    rows = list(csv.DictReader(shown.splitlines()))
    assert {(r["run"], r["outcome"]) for r in rows} == {
        ("haiku-v1", "not-run"), ("haiku-context", "not-run"), ("haiku-context", "excluded"),
        ("haiku-qualify", "not-run"),  # the route's qualification, awaiting authorization too
        # the realistic stand-in's answer that changes the module it reprints (extraction 3)
        ("sim-realistic-v1", "no-candidate"),
    }  # fmt: skip
    assert {r["missing_detail"] for r in rows if r["outcome"] == "not-run"} == {
        "awaiting-authorization"
    }
    cell = _assay(studied, "sql", "SELECT cell_id FROM cells WHERE run = 'haiku-context' AND "
                  "arm = 'ctx-90' LIMIT 1", "--format", "csv").stdout.split()[1]  # fmt: skip
    text = _assay(studied, "show", "haiku-context", cell, "--no-prompt").stdout
    assert "## Verdict: none, excluded (request-over-cap" in text
    with (studied.path / "reports/plots/verdicts_by_arm.csv").open() as handle:
        plotted = {(r["run"], r["verdict"]) for r in csv.DictReader(handle)}
    assert {("haiku-context", "excluded"), ("haiku-v1", "not-run")} <= plotted


def test_compare_refuses_in_one_line(studied: Repo) -> None:
    for first, second in (
        ("sim-follower-v1", "haiku-v1"),
        ("haiku-context", "sim-follower-context"),
    ):
        refused = _assay(studied, "compare", first, second, check=False)
        assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
        assert "simulated results are never compared" in refused.stderr
    refused = _assay(studied, "compare", "haiku-v1", "haiku-context", check=False)
    assert refused.returncode == 2 and "only runs of the same scenario compare" in refused.stderr


@pytest.mark.browser
def test_page_qualifiers_provenance_links_and_paired_view(studied: Repo) -> None:
    head = studied.git("rev-parse", "HEAD").stdout.strip()
    with open_page(studied.path / "data/report/index.html") as browser:
        p = browser.page
        assert browser.console_errors == []
        assert f"commit {head[:12]} of " in p.inner_text("#provenance")
        context = p.inner_text("#run-haiku-context")
        assert "Excluded by the plan: 2 cells at ctx-90" in context
        assert "Awaiting authorization. Nothing was spent" in context
        assert "Why the run stopped: Awaiting authorization" in context
        assert "Several arms: each step compares the reference arm with 2 arms" in (
            p.inner_text("#run-sim-follower-context")
        )
        # the awaiting run's row shows no rate (its cells wrap: the row, not a line of text)
        row = p.locator("#headline tbody tr", has_text="haiku-v1").first.inner_text()
        assert re.search(r"haiku-v1\s.*—", row, re.DOTALL)
        assert "descriptive only (2 of 10)" in p.inner_text("body")
        browser.follow("#run-haiku-context a:text('2 cells at ctx-90')")
        cells = p.locator("#cell-table tbody tr")
        assert cells.count() == 2
        assert set(p.locator("#cell-table tbody td:nth-child(7)").all_inner_texts()) == {"excluded"}
        p.click("#subjects-sim-follower-context > summary")
        browser.follow(p.locator("#subjects-sim-follower-context a.paired").first)
        p.wait_for_selector("#paired-table")
        assert "ctx-00 (reference)" in p.inner_text("#paired-table")
        browser.screenshot("study-paired-view.png")


@pytest.mark.browser
def test_dvc_plots_show_draws_offline(study_copy: Repo) -> None:
    study_copy.dvc("plots", "show")  # writes dvc_plots/: on a copy
    index = study_copy.path / "dvc_plots" / "index.html"
    with open_page(index, ready=DVC_PLOTS_DRAWN) as page:
        assert page.console_errors == []
        assert all(url.startswith("file://") for url in page.requests), page.requests
        legend = page.page.evaluate(
            "() => [...document.querySelectorAll('g.role-legend-label text')].map(t => t.textContent)"
        )
        assert {"not-run", "excluded", "reused"} <= set(legend)
        page.screenshot("study-dvc-plots.png")


def test_a_replay_of_a_simulated_run_stays_simulated(study_copy: Repo) -> None:
    plan_hash = study_copy.read("data/plan/sim-follower-v1/plan.sha256").strip()
    params = yaml.safe_load(study_copy.read("params.yaml"))
    params["models"]["replayed"] = {
        "provider": "replay", "model": "replayed", "replay_ledger": f"ledger/sim-follower-v1/{plan_hash}"
    }  # fmt: skip
    params["runs"]["replay-v1"] = {**params["runs"]["sim-follower-v1"], "model": "replayed"}
    study_copy.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    study_copy.dvc("repro", timeout=2400)
    replayed, original = (
        {(row["cell_id"], row["source"]) for row in pq.read_table(
            study_copy.path / "data" / "extract" / run / "candidates.parquet").to_pylist()}
        for run in ("replay-v1", "sim-follower-v1")
    )  # fmt: skip
    assert replayed == original, "a replay gives other answers than the run it replays"
    assert "SIMULATED MODEL" in study_copy.read("data/report/runs/replay-v1/abstraction.md")
    excluded = json.loads(study_copy.read("data/report/duplication_cost.json"))["excluded_runs"]
    assert all("simulated" in excluded[run] for run in ("replay-v1", "sim-follower-v1")), excluded
    assert json.loads(study_copy.read("reports/metrics.json"))["replay-v1"]["simulated"] == 1
    compared = _assay(study_copy, "compare", "sim-follower-v1", "replay-v1").stdout
    assert "SIMULATED MODEL" in compared
