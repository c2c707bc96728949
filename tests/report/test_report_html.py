"""The HTML study report from hand-made evidence, opened in headless Chromium: charts drawn,
no console errors, no network, the cell browser filters, sorts and explains, and model output
can never run as page code."""

from __future__ import annotations

from pathlib import Path

from assay.pipeline.report import write_all
from tests.report.browser import open_page
from tests.report.evidence import ARMS, write_dose_evidence


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
