"""The HTML study report from hand-made evidence, opened in headless Chromium: charts drawn,
no console errors, no network, the cell browser filters, sorts and explains, and model output
can never run as page code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.pipeline.report import write_all
from assay.report.effects import signed
from assay.report.provenance import Provenance
from tests.report.browser import open_page
from tests.report.evidence import ARMS, write_dose_evidence, write_mode_evidence

pytestmark = pytest.mark.browser


def _page(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_dose_evidence(data)
    write_all(data, data / "report", tmp_path / "reports", None)
    return data / "report" / "index.html"


def test_page_is_deterministic_and_self_contained(tmp_path: Path) -> None:
    page = _page(tmp_path)
    first = page.read_bytes()
    write_all(tmp_path / "data", tmp_path / "data" / "report", tmp_path / "reports", None)
    assert page.read_bytes() == first
    text = first.decode()
    for external in ("<script src=", "<link ", "@import", "url(http", "<iframe"):
        assert external not in text, external


def test_charts_render_and_cell_browser_works_offline(tmp_path: Path) -> None:
    page = _page(tmp_path)
    with open_page(page) as browser:
        sizes = browser.chart_sizes()
        assert {"reuse_curves", "verdicts_by_arm", "correctness_by_arm"} <= set(sizes)
        for name, size in sizes.items():
            assert size["width"] > 100 and size["height"] > 50 and size["marks"] > 0, (name, size)
        assert browser.console_errors == []
        browser.screenshot("handmade-overview.png")
        assert all(url.startswith("file://") for url in browser.requests), browser.requests
        p = browser.page
        assert p.locator("#cell-table tbody tr").count() == 2 * 4 * len(ARMS)
        p.select_option("#filter-verdict", "duplicated")
        duplicated = p.locator("#cell-table tbody tr").count()
        assert 0 < duplicated < 24
        assert set(p.locator("#cell-table tbody td:nth-child(7)").all_inner_texts()) == {
            "duplicated"
        }
        p.select_option("#filter-verdict", "")
        p.fill("#filter-text", "mess-10")
        assert set(p.locator("#cell-table tbody td:nth-child(3)").all_inner_texts()) == {"mess-10"}
        p.fill("#filter-text", "")
        p.click("#cell-table th[data-key='subject']")
        p.click("#cell-table th[data-key='subject']")
        subjects = p.locator("#cell-table tbody td:nth-child(2)").all_inner_texts()
        assert subjects == sorted(subjects, reverse=True)
        p.select_option("#filter-verdict", "duplicated")
        p.locator("#cell-table tbody tr").first.click()
        p.wait_for_selector("#explanation")
        explanation = p.inner_text("#explanation")
        assert "primitive_only" in explanation and "str.join line 2" in explanation
        assert p.locator("pre.source span.primitive").count() == 2
        assert "wrong-value" in p.inner_text("#correctness")
        assert p.evaluate("window.__owned") is None, "model output ran as page code"
        assert "</script>" in p.inner_text("#response")
        browser.screenshot("handmade-cell.png")
        assert browser.console_errors == []


def test_a_large_study_draws_the_first_500_cells_and_the_rest_on_demand(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_dose_evidence(data, subjects=100)  # 2 runs x 100 subjects x 3 arms: 600 cells
    write_all(data, data / "report", tmp_path / "reports", None)
    with open_page(data / "report" / "index.html") as browser:
        p = browser.page
        rows = p.locator("#cell-table tbody tr")
        assert rows.count() == 500
        assert p.inner_text("#cell-count") == "600 of 600 cells (the first 500 shown)"
        p.click("#cell-more")
        assert rows.count() == 600 and p.inner_text("#cell-count") == "600 of 600 cells"
        assert not p.is_visible("#cell-more")
        p.fill("#filter-text", "mess-10")  # a new filter: 200 cells, all drawn
        assert rows.count() == 200 and not p.is_visible("#cell-more")
        p.fill("#filter-text", "")
        assert rows.count() == 500 and p.is_visible("#cell-more")
        assert browser.console_errors == []


def test_assay_show_prints_one_cell_with_its_explanation(tmp_path: Path, capsys) -> None:
    from assay.cli import main

    data = tmp_path / "data"
    write_dose_evidence(data)
    assert main(["show", "run-a", "s3/mess-10/r1", "--data", str(data)]) == 0
    shown = capsys.readouterr().out
    for part in (
        "# run-a  s3/mess-10/r1  step 1  [SIMULATED MODEL: not evidence]",
        "## Verdict: duplicated (primitive-only), evaluator v7",
        "decided by: primitive_only: rule 7",
        "primitives called: str.join line 2, str.isdigit line 2, len line 3",
        'case 1: wrong-value  input "1234567812345678"  expected "************5678"  actual',
        "## Candidate (extracted)",
        '2 |     digits = "".join(c for c in value if c.isdigit())',
        "## Raw response",
        "## Prompt",
    ):
        assert part in shown, part
    assert main(["show", "run-a", "s3/mess-10/r1", "--data", str(data), "--no-prompt"]) == 0
    assert "## Prompt" not in capsys.readouterr().out


def _qualified_study(tmp_path: Path) -> Path:
    """Evidence that needs every qualifier: a rescoring deviation that removes a significant
    result, an adjudication, plan exclusions, a halted run, runs awaiting authorization,
    several arms per run and two real runs of one scenario (an exploratory comparison)."""
    import yaml

    from tests.report.evidence import write_missing_evidence
    from tests.report.evidence_kit import write_run

    data = tmp_path / "data"
    write_dose_evidence(data)
    write_missing_evidence(data)
    subjects = [f"t{i:02d}" for i in range(12)]
    significant = {
        s: {"clean": ["reused"] * 2, "inconsistent": ["duplicated"] * 2} for s in subjects
    }
    tied = {s: {"clean": ["reused"] * 2, "inconsistent": ["reused"] * 2} for s in subjects}
    write_run(data, "rescored", {7: {1: significant}, 6: {1: tied}}, reported=6)
    ambiguous = {s: {"clean": ["reused"] * 2, "inconsistent": ["duplicated", "ambiguous"]} for s in subjects}  # fmt: skip
    write_run(data, "adjudicated", {7: {1: ambiguous}})
    decisions = tmp_path / "adjudications.yaml"
    decisions.write_text(yaml.safe_dump([
        {"run": "adjudicated", "cell_id": f"{s}/inconsistent/r2", "verdict": "duplicated",
         "rationale": "the helper call is dead code", "adjudicator": "A. Person"}
        for s in subjects
    ]))  # fmt: skip
    built = Provenance(assay_version="0.1.0", commit="c0ffee" + "0" * 34,
                       commit_date="2026-12-01T15:04:25+00:00", changed=("params.yaml",))  # fmt: skip
    write_all(data, data / "report", tmp_path / "reports", None, adjudications=decisions,
              provenance=built)  # fmt: skip
    return data / "report" / "index.html"


def _rows(p) -> list[list[str]]:
    return p.evaluate(
        "() => [...document.querySelectorAll('#cell-table tbody tr')]"
        ".map(tr => [...tr.children].map(td => td.textContent))"
    )


def test_page_carries_every_qualifier_and_its_provenance(tmp_path: Path) -> None:
    page = _qualified_study(tmp_path)
    with open_page(page) as browser:
        p = browser.page
        assert browser.console_errors == []
        provenance = p.inner_text("#provenance")
        assert "assay 0.1.0" in provenance and "commit c0ffee000000 of 2026-12-01" in provenance
        assert "uncommitted changes to 1 file" in provenance
        rescored = p.inner_text("#run-rescored")
        assert (
            "Deviation from the plan: scored with evaluator v6; the plan preregistered v7"
            in rescored
        )
        assert "v6 changes 24 verdicts of v7 in 12 subjects" in rescored
        assert "significant under v7 but not under v6" in rescored
        adjudicated = p.inner_text("#run-adjudicated")
        assert (
            "With human adjudication of ambiguous cells (not the preregistered result)"
            in adjudicated
        )
        assert "A. Person" in adjudicated and "12 ambiguous cells" in adjudicated
        mixed = p.inner_text("#run-mixed-fate")
        assert "Excluded by the plan: 4 cells at mess-10, never sent (request-over-cap" in mixed
        assert "Why the run stopped: Halted after call s2/mess-03/r1 step 1 (http-429)" in mixed
        assert "Awaiting authorization. Nothing was spent" in p.inner_text("#run-paid-wait")
        several = p.inner_text("#run-run-a")
        assert "Several arms: each step compares the reference arm with 2 arms" in several
        assert "p_holm" in p.inner_text("#tests-run-a + table")
        p.click("#subjects-run-a > summary")
        medians = p.inner_text("#subjects-run-a")
        assert "s0" in medians and "reused" in medians and "duplicated" in medians
        assert "Cross-model comparison (exploratory)" in p.inner_text("#scenarios")
        assert "`" not in p.inner_text("main"), "Markdown left in the page"
        browser.screenshot("qualifiers.png")


def test_every_number_links_to_the_cells_behind_it_and_a_subject_pairs_its_arms(
    tmp_path: Path,
) -> None:
    page = _qualified_study(tmp_path)
    with open_page(page) as browser:
        p = browser.page
        # headline: completed calls of run-a
        browser.follow("#headline a[href='#cells?run=run-a&status=completed']")
        rows = _rows(p)
        assert len(rows) == 12 and {(r[0], r[5]) for r in rows} == {("run-a", "completed")}
        assert "run = run-a, status = completed" in p.inner_text("#linked-filter")
        # scenario table: the two halted cells of mixed-fate at mess-03
        p.goto(page.as_uri())
        browser.follow("#scenario-dose ~ table a:text('2 halted')")
        rows = _rows(p)
        assert [(r[0], r[2], r[6]) for r in rows] == [("mixed-fate", "mess-03", "halted")] * 2
        # a sign test's subjects favouring the reference: only those subjects, both arms
        p.goto(page.as_uri())
        link = p.locator("#tests-run-a + table tbody tr").nth(1).locator("td").nth(5).locator("a")
        favouring = int(link.inner_text())
        browser.follow(link)
        rows = _rows(p)
        assert len(rows) == 2 * favouring and {r[2] for r in rows} == {"mess-00", "mess-10"}
        # the paired view: every arm of one subject side by side
        p.goto(page.as_uri())
        p.click("#subjects-run-a > summary")
        browser.follow("#subjects-run-a a.paired:text('s3')")
        p.wait_for_selector("#paired-table")
        table = p.inner_text("#paired-table")
        for part in (
            "mess-00 (reference)",
            "mess-03",
            "mess-10",
            "lower median",
            "against mess-00",
        ):
            assert part in table, part
        assert p.locator("#subject .arms-grid pre.source").count() == 3
        browser.follow(p.locator("#paired-table a").first)
        p.wait_for_selector("#explanation")
        assert "run-a · s3/mess-00/r1 · step 1" in p.inner_text("#cell-detail")
        browser.screenshot("paired-view.png")
        assert browser.console_errors == []


def test_real_runs_lead_the_page_each_with_its_mode_and_repeat_agreement(tmp_path: Path) -> None:
    """A simulated run named to sort first still follows the real ones: in the headline, the
    run sections, the scenario table, the cell browser's run filter and its rows."""
    data = tmp_path / "data"
    write_mode_evidence(data)
    built = Provenance(assay_version="0.1.0", commit=None, commit_date=None)
    write_all(data, data / "report", tmp_path / "reports", None, provenance=built)
    order = ["qwen-chat", "qwen-completion", "follower-sim-v1"]
    with open_page(data / "report" / "index.html") as browser:
        p = browser.page
        assert browser.console_errors == []
        assert p.locator("#headline tbody tr td:first-child").all_inner_texts() == order
        modes = p.locator("#headline tbody td.mode").all_inner_texts()
        assert [m.splitlines()[0] for m in modes] == [
            "chat",
            "completion, prefix ```python⏎def implement(, sampled at temperature 0.7",
            "simulated",
        ]
        assert modes[0].splitlines()[1] == "real local model" and modes[2] == "simulated"
        sections = p.locator("#primary article.run").evaluate_all("(nodes) => nodes.map(n => n.id)")
        assert sections == [f"run-{run}" for run in order]
        assert "prompting mode chat (real local model)" in p.inner_text("#run-qwen-chat .meta")
        agreement = p.locator("#run-qwen-completion table.agreement tbody tr").all_inner_texts()
        assert [row.split("\t") for row in agreement] == [
            ["1", "clean", "3", "3", "3", "3", "0"],
            ["1", "inconsistent", "3", "3", "2", "3", "0"],
        ]
        heads = p.locator("#scenarios table thead tr:first-child th").all_inner_texts()[1:]
        assert [h.splitlines()[0].split("(")[1].split(")")[0] for h in heads] == order, heads
        assert heads[0].splitlines()[-1] == "chat · real local model"
        options = p.locator("#filter-run option").all_inner_texts()
        assert options[1:] == order
        rows = p.locator("#cell-table tbody td:nth-child(1)").all_inner_texts()
        assert rows == sorted(rows, key=order.index) and rows[-1] == "follower-sim-v1"
        labels = p.locator("#chart-verdicts_by_arm svg text").evaluate_all(
            "(nodes) => nodes.map((n) => n.textContent)"
        )
        assert [label for label in labels if label in order] == order
        browser.screenshot("modes-headline.png")


def _mode_study(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_mode_evidence(data)
    built = Provenance(assay_version="0.1.0", commit=None, commit_date=None)
    write_all(data, data / "report", tmp_path / "reports", None, provenance=built)
    return data / "report" / "index.html"


@pytest.mark.parametrize("study", [_qualified_study, _mode_study], ids=["qualifiers", "modes"])
def test_the_headline_reads_at_1280_px_without_scrolling_sideways(study, tmp_path: Path) -> None:
    """Every column of the headline in view at 1280 px: long modes, badges and deviations
    wrap inside their cells; real runs lead, the simulated ones follow under their label."""
    page = study(tmp_path)
    with open_page(page, width=1280, height=900) as browser:
        p = browser.page
        overview = browser.widths("#overview")
        assert overview["scroll"] <= overview["client"], overview
        right = p.evaluate(
            "() => document.getElementById('headline').getBoundingClientRect().right"
        )
        assert right <= 1280, right
        groups = p.locator("#headline tbody").evaluate_all("(nodes) => nodes.map(n => n.className)")
        assert groups == ["real", "simulated"], groups
        assert "not evidence" in p.inner_text("#headline tbody.simulated tr.group")
        browser.screenshot(f"headline-1280{study.__name__}.png", "#overview")
        assert browser.console_errors == []


def test_the_forest_plot_draws_one_row_per_run_and_arm_pair_real_runs_first(
    tmp_path: Path,
) -> None:
    """The effect sizes' forest plot in Chromium: a row per run and compared arm that has a
    subject scored in both arms, the real run (mixed-fate) above the simulated ones, each
    simulated row labelled; the headline shows the effect with its interval."""
    from tests.report.evidence import write_missing_evidence

    data = tmp_path / "data"
    write_dose_evidence(data)
    write_missing_evidence(data)
    write_all(data, data / "report", tmp_path / "reports", None)
    with open_page(data / "report" / "index.html") as browser:
        p = browser.page
        assert browser.console_errors == []
        size = browser.chart_sizes()["effects"]
        assert size["width"] > 300 and size["height"] > 50, size
        labels = p.evaluate(
            "() => [...document.querySelectorAll('#chart-effects g.role-axis-label text')]"
            ".map(t => t.textContent)"
        )
        rows = [label for label in labels if " · " in label]
        assert rows == [
            "mixed-fate · mess-00 − mess-03",  # mess-10 was excluded: no subject, no row
            *(f"{run} · mess-00 − {arm} [simulated]"
              for run in ("run-a", "run-b") for arm in ARMS[1:]),
        ], labels  # fmt: skip
        points = p.locator("#chart-effects g.mark-symbol.role-mark path")
        assert points.count() == len(rows)
        p.locator("#chart-effects").scroll_into_view_if_needed()
        browser.screenshot("effects-forest.png")
        shown = p.locator("#headline tr:has(a[href='#run-run-a']) td.effect").inner_text()
    head = json.loads((tmp_path / "reports" / "metrics.json").read_text())["run-a"]
    interval = f"[{signed(head['effect_lo'])}, {signed(head['effect_hi'])}]"
    assert shown.split("\n")[0] == f"{signed(head['effect'])} {interval}", shown
    assert shown.split("\n")[1] == f"mess-00 − {ARMS[-1]}"
