"""Every number of the page's awaiting-authorization, duplication-cost and codebase-sets tables
links to the cell browser filtered to the cells behind it (read from the HTML, no browser: the
filters themselves are exercised in Chromium by tests/report/test_report_html.py)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from assay.pipeline.report import write_all
from assay.report.provenance import Provenance
from tests.report.evidence import write_missing_evidence
from tests.report.evidence_kit import write_metrics, write_run, write_subjects
from tests.study import Study

SECTIONS = ("awaiting", "costs", "codebase")


class _TableCells(HTMLParser):
    """Each table cell (``td``) of the named sections (of the codebase section, only the
    codebase-sets table's): where it is, its text and the link it sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.section: str | None = None
        self.table: str | None = None
        self.cell: list[str] | None = None
        self.href: str | None = None
        self.cells: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "section":
            self.section = named.get("id") if named.get("id") in SECTIONS else None
        elif tag == "table":
            self.table = named.get("id")
        elif tag == "td" and self.section:
            self.cell, self.href = [], None
        elif tag == "a" and self.cell is not None:
            self.href = named.get("href")

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self.section = None
        elif tag == "table":
            self.table = None
        elif tag == "td" and self.cell is not None and self.section:
            where = self.section if self.section != "codebase" else self.table
            if where:
                self.cells.append((where, "".join(self.cell).strip(), self.href))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def _cells(page: Path) -> list[tuple[str, str, str | None]]:
    parser = _TableCells()
    parser.feed(re.sub(r"<script.*?</script>", "", page.read_text(), flags=re.DOTALL))
    return parser.cells


def _study(tmp_path: Path) -> Path:
    """A real run with both verdicts and SLOC changes (the cost tables) beside runs awaiting
    authorization (tests/report/evidence.py: ``write_missing_evidence``)."""
    data = tmp_path / "data"
    write_missing_evidence(data)
    subjects = [f"t{i:02d}" for i in range(12)]
    table = {s: {"clean": ["reused"] * 2, "inconsistent": ["duplicated"] * 2} for s in subjects}
    write_run(data, "real", {7: {1: table}}, model="anthropic/claude-3-haiku")
    write_subjects(data, "v1", subjects)
    write_metrics(data, "real", {f"{s}/{arm}/r{r}": float(len(arm) + r) for s in subjects
                                 for arm in ("clean", "inconsistent") for r in (1, 2)})  # fmt: skip
    built = Provenance(assay_version="0.1.0", commit="c0ffee" + "0" * 34,
                       commit_date="2026-12-01T15:04:25+00:00", changed=())  # fmt: skip
    write_all(data, data / "report", tmp_path / "reports", None, provenance=built)
    return data / "report" / "index.html"


def test_every_number_in_the_awaiting_and_cost_tables_links_to_its_cells(tmp_path: Path) -> None:
    cells = _cells(_study(tmp_path))
    numbers = [(s, text, href) for s, text, href in cells if re.search(r"\d", text)]
    assert {s for s, _, _ in numbers} >= {"awaiting", "costs"}, numbers
    # the awaiting table's run names and plan hashes are no numbers of cells
    counts = [
        (s, text, href)
        for s, text, href in numbers
        if not re.fullmatch(r"[0-9a-f]{64}", text) and not (s == "awaiting" and "-" in text)
    ]
    unlinked = [(s, text) for s, text, href in counts if not (href or "").startswith("#cells?")]
    assert not unlinked, unlinked
    linked = {href for s, _, href in counts if s == "costs"}
    pooled = json.loads((tmp_path / "data/report/duplication_cost.json").read_text())
    runs = ",".join(r["run"] for r in pooled["pooled_runs"])
    assert {f"#cells?run={runs}&outcome=reused", "#cells?run=real&arm=clean,inconsistent"} <= linked


@pytest.mark.dvc
@pytest.mark.docker
def test_every_codebase_set_count_of_the_default_study_links_to_its_cells(study: Study) -> None:
    cells = _cells(study.repo.path / "data/report/index.html")
    counts = [
        (text, href) for s, text, href in cells if s == "codebase-sets" and re.search(r"\d", text)
    ]
    assert counts, "the default study has codebase runs"
    unlinked = [(text, href) for text, href in counts if not (href or "").startswith("#cells?run=")]
    assert not unlinked and all("step=1" in str(href) for _, href in counts), counts
