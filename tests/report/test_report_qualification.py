"""A qualification run says so in its report and on the page: it qualifies its route, its cells
are a sample too small to decide anything, and it is not a study (issue 49, qualified routes)."""

from __future__ import annotations

import json
from pathlib import Path

from assay.evidence.plan import Plan, Qualification
from assay.pipeline.report import write_all
from assay.report.provenance import Provenance
from tests.report.evidence_kit import write_run

SUBJECTS = [f"t{i:02d}" for i in range(3)]
TABLE = {s: {"clean": ["reused"], "inconsistent": ["duplicated"]} for s in SUBJECTS}


def _as_qualification(data: Path, run: str, sample: int, of: int) -> None:
    folder = data / "plan" / run
    plan = Plan.model_validate_json((folder / "plan.json").read_bytes())
    qualifying = plan.model_copy(update={"qualification": Qualification(sample=sample, of=of)})
    (folder / "plan.json").write_bytes(qualifying.canonical())
    (folder / "plan.sha256").write_text(qualifying.hash + "\n")


def test_a_qualification_run_is_labelled_and_a_study_is_not(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_run(data, "route-qualify", {7: {1: TABLE}}, model="anthropic/claude-3-haiku")
    write_run(data, "study", {7: {1: TABLE}}, model="anthropic/claude-3-haiku")
    _as_qualification(data, "route-qualify", sample=6, of=48)
    built = Provenance(assay_version="0.1.0", commit=None, commit_date=None)
    write_all(data, data / "report", tmp_path / "reports", None, provenance=built)

    runs = data / "report" / "runs"
    qualifying = (runs / "route-qualify" / "abstraction.md").read_text(encoding="utf-8")
    assert "> **QUALIFICATION RUN.** 6 of the 48 cells of v1, sent to qualify the route " in (
        qualifying
    )
    assert "anthropic/claude-3-haiku via openrouter" in qualifying
    assert "it is not a study" in qualifying
    record = json.loads((runs / "route-qualify" / "abstraction.json").read_text())["run"]
    assert record["qualification"].startswith("6 of the 48 cells of v1")
    study = (runs / "study" / "abstraction.md").read_text(encoding="utf-8")
    assert "QUALIFICATION RUN" not in study
    assert (
        json.loads((runs / "study" / "abstraction.json").read_text())["run"]["qualification"]
        is None
    )
    page = (data / "report" / "index.html").read_text(encoding="utf-8")
    assert page.count(">qualification run</span>") >= 1
