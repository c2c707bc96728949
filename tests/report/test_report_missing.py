"""Missing is never zero, and it has one vocabulary.

A run awaiting authorization and a run where every missing state occurs
(tests/report/evidence.py: ``write_missing_evidence``), reported beside two complete simulated
runs: no rate, p-value or chart point is made up for an arm without a scored cell, and each
missing state (``assay.core.records.MissingState``) has the same name in SQL, ``assay show``, the
scenario tables, the plot data, the page's charts and the ``dvc plots`` template, each with its
own legend entry.
"""

from __future__ import annotations

import csv
import json
import typing
from pathlib import Path

import pytest

from assay.core.records import MISSING_STATES, ExecutionStatus
from assay.evidence.rows import MISSING_STATE_OF, missing_state
from assay.pipeline.report import write_all
from assay.report.charts import OUTCOME_COLOURS
from assay.report.database import connect
from assay.report.kinds import ABSTRACTION, CORRECTNESS
from assay.science.extract import ExtractStatus
from tests.report.browser import open_page
from tests.report.evidence import write_dose_evidence, write_missing_evidence

ROOT = Path(__file__).resolve().parents[2]
STATES_OF_MIXED_FATE = {"excluded", "halted", "no-candidate"}


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("missing")
    data = root / "data"
    write_dose_evidence(data)
    write_missing_evidence(data)
    write_all(data, data / "report", root / "reports", None)
    return root


def test_every_reason_for_missing_evidence_has_one_missing_state() -> None:
    reasons = {s for s in typing.get_args(ExecutionStatus) if s != "completed"}
    reasons |= {s for s in typing.get_args(ExtractStatus) if s != "code"}
    assert reasons | {"evaluator-failure"} == set(MISSING_STATE_OF)
    assert set(MISSING_STATE_OF.values()) == set(MISSING_STATES)
    with pytest.raises(ValueError, match="no missing state for reason 'made-up'"):
        missing_state("made-up")


@pytest.mark.process  # the report reads its provenance from git
def test_a_run_without_a_scored_cell_has_null_rates_and_no_p(reported: Path) -> None:
    metrics = json.loads((reported / "reports" / "metrics.json").read_text())
    waiting = metrics["paid-wait"]
    assert waiting["calls_done"] == 0
    for key in ("reuse_ref", "reuse_min", "reuse_max", "correct_ref", "p_min", "sig_arms",
                "effect", "effect_lo", "effect_hi"):  # fmt: skip
        assert waiting[key] is None, key
    # mixed-fate: mess-10 was excluded by the plan, so only mess-03 has a rate (1 of 1 scored)
    assert (metrics["mixed-fate"]["reuse_min"], metrics["mixed-fate"]["reuse_max"]) == (1.0, 1.0)
    report = json.loads((reported / "data/report/runs/paid-wait/abstraction.json").read_text())
    assert {(t["p_value"], t["significant"]) for t in report["sign_tests"]} == {(None, None)}
    with (reported / "reports/plots/reuse_by_level.csv").open() as handle:
        rows = {(r["run"], r["arm"]): r for r in csv.DictReader(handle)}
    assert {
        rows[("paid-wait", arm)]["reuse_rate"] for arm in ("mess-00", "mess-03", "mess-10")
    } == {""}
    assert rows[("mixed-fate", "mess-10")]["reuse_rate"] == ""
    assert rows[("mixed-fate", "mess-03")] | {} == {
        **rows[("mixed-fate", "mess-03")], "reuse_rate": "1.0", "scored": "1", "cells": "4"
    }  # fmt: skip
    scenario = (reported / "data/report/scenarios/dose.md").read_text()
    assert "| mess-00 | 4 / 0 | — (4 not-run) |" in scenario
    assert "| mess-03 | 1 / 0 (2 halted, 1 no-candidate) | — (4 not-run) |" in scenario
    assert "| mess-10 | — (4 excluded) |" in scenario
    assert "— (no complete subject)" in scenario


@pytest.mark.process  # the report reads its provenance from git
def test_each_missing_state_has_one_name_everywhere(reported: Path, capsys) -> None:
    from assay.cli import main

    data = reported / "data"
    con = connect(data)
    sql = dict(
        con.execute(
            "SELECT cell_id, outcome FROM outcomes WHERE run = 'mixed-fate' AND missing IS NOT NULL"
        ).fetchall()
    )
    assert set(sql.values()) == STATES_OF_MIXED_FATE
    correctness = {r[0] for r in con.execute("SELECT missing FROM correctness_outcomes").fetchall()}
    assert "evaluator-failure" in correctness
    halted = con.execute(
        "SELECT missing_detail FROM outcomes WHERE cell_id = 's3/mess-03/r1' AND run = 'mixed-fate'"
    ).fetchone()
    assert halted == ("halted-after: s2/mess-03/r1 step 1 (http-429)",)
    for cell, state in sql.items():
        assert main(["show", "mixed-fate", cell, "--data", str(data), "--no-prompt"]) == 0
        assert f"## Verdict: none, {state} (" in capsys.readouterr().out
    assert main(["show", "paid-wait", "s0/mess-00/r1", "--data", str(data), "--no-prompt"]) == 0
    assert "## Verdict: none, not-run (awaiting-authorization)" in capsys.readouterr().out
    with (reported / "reports/plots/verdicts_by_arm.csv").open() as handle:
        plotted = {r["verdict"] for r in csv.DictReader(handle)}
    assert {"not-run", *STATES_OF_MIXED_FATE} <= plotted <= set(ABSTRACTION.outcomes)
    scenario = (data / "report/scenarios/dose.md").read_text()
    assert "Cells `halted` in `mixed-fate`: Halted after call `s2/mess-03/r1` step 1" in scenario


def test_the_dvc_plots_template_knows_every_outcome_with_the_page_colours() -> None:
    template = json.loads((ROOT / ".dvc/plots/verdicts_stacked.json").read_text())
    scale = template["spec"]["encoding"]["color"]["scale"]
    assert scale["domain"] == list(ABSTRACTION.outcomes)
    assert scale["range"] == [OUTCOME_COLOURS[o] for o in ABSTRACTION.outcomes]
    assert set(CORRECTNESS.outcomes) <= set(OUTCOME_COLOURS)


def _values(spec: object) -> list[dict]:
    """Every inline data row of a Vega-Lite spec, wherever Altair put it."""
    if isinstance(spec, dict):
        rows = list(spec["values"]) if isinstance(spec.get("values"), list) else []
        return rows + [r for key, v in spec.items() if key != "values" for r in _values(v)]
    if isinstance(spec, list):
        return [r for item in spec for r in _values(item)]
    return []


def _legend(page, chart: str) -> list[str]:
    return page.evaluate(
        f"""() => [...document.querySelectorAll('#chart-{chart} g.role-legend-label text')]
            .map(t => t.textContent)"""
    )


@pytest.mark.browser
@pytest.mark.process  # the report reads its provenance from git
def test_page_draws_every_cell_with_one_legend_entry_per_state(reported: Path) -> None:
    with open_page(reported / "data/report/index.html") as browser:
        assert browser.console_errors == []
        verdicts = _legend(browser.page, "verdicts_by_arm")
        assert verdicts == [o for o in ABSTRACTION.outcomes if o in verdicts]  # legend order
        assert {"reused", "duplicated", "not-run", *STATES_OF_MIXED_FATE} == set(verdicts)
        correctness = _legend(browser.page, "correctness_by_arm")
        assert {"evaluator-failure", "not-run", *STATES_OF_MIXED_FATE} <= set(correctness)
        sizes = browser.chart_sizes()
        # 4 runs × 3 arms, a bar segment per outcome present: nothing left out, nothing floats
        specs = json.loads(browser.page.inner_text("#chart-specs"))
        rows = specs["verdicts_by_arm"]["data"]["values"]
        assert sizes["verdicts_by_arm"]["bars"] == len(rows)
        assert sum(r["cells"] for r in rows) == 4 * 4 * 3
        curve = _values(specs["reuse_curves"])
        assert not [r for r in curve if r["run"] == "paid-wait"], "a run with no scored cell drawn"
        assert not [r for r in curve if r["reuse_rate"] is None]
        headline = browser.page.locator("#headline tbody tr", has_text="paid-wait").inner_text()
        assert headline.startswith("paid-wait") and "—" in headline and "0.0" not in headline
        browser.screenshot("missing-states.png")
