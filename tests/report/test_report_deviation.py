"""The deviation from the preregistered analysis (assay.report.deviation): the primary result is
computed with the run's preregistration whatever params.yaml says now; a differing analysis adds
a labelled second result beside it, in the JSON, the Markdown and the page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.evidence.plan import AnalysisPlan, Preregistration, Replanned
from assay.pipeline.report import write_all
from assay.report.provenance import Provenance
from tests.report.evidence_kit import write_run

SUBJECTS = [f"t{i:02d}" for i in range(12)]
RUN = "regressed"
#: every subject reuses in the clean arm and duplicates in the inconsistent one: p 0.00049
REGRESSED = {s: {"clean": ["reused"] * 2, "inconsistent": ["duplicated"] * 2} for s in SUBJECTS}
PREREGISTERED = Preregistration(alpha=0.05, minimum_subjects=10, repeats=2, extraction=2)


def _reports(
    tmp_path: Path, now: Preregistration | None, replanned: Replanned | None = None
) -> Path:
    data = tmp_path / "data"
    write_run(data, RUN, {7: {1: REGRESSED}})
    if replanned is not None:
        (data / "plan" / RUN / "replanned.json").write_text(replanned.model_dump_json())
    write_all(
        data,
        data / "report",
        tmp_path / "reports",
        None,
        analysis_now=None if now is None else {RUN: now},
        provenance=Provenance(assay_version="0.1.0", commit=None, commit_date=None),
    )
    return data / "report"


def _json(folder: Path, kind: str = "abstraction") -> dict[str, Any]:
    return json.loads((folder / "runs" / RUN / f"{kind}.json").read_text())


def test_the_preregistration_is_what_the_plan_and_report_say() -> None:
    plan_analysis = AnalysisPlan(alpha=0.05, minimum_subjects=10, extraction=2)
    assert Preregistration.of(plan_analysis, 2) == PREREGISTERED
    assert PREREGISTERED.text() == (
        "paired-v2, alpha 0.05, lower median, at least 10 complete subjects, 2 repeats, "
        "structure evaluator v7, extraction v2"
    )
    with pytest.raises(ValueError):
        Preregistration.of(plan_analysis, 0)


def test_no_deviation_leaves_every_report_byte_for_byte(tmp_path: Path) -> None:
    unchanged = _reports(tmp_path / "a", PREREGISTERED)
    without = _reports(tmp_path / "b", None)
    for kind in ("abstraction", "correctness"):
        for suffix in ("json", "md"):
            name = f"runs/{RUN}/{kind}.{suffix}"
            assert (unchanged / name).read_bytes() == (without / name).read_bytes(), name
    assert "deviation" not in _json(unchanged)
    assert "deviations" not in json.loads((unchanged / "scenarios" / "v1.json").read_text())


def test_a_changed_alpha_is_a_second_result_beside_the_primary(tmp_path: Path) -> None:
    now = PREREGISTERED.model_copy(update={"alpha": 0.0001, "minimum_subjects": 13})
    folder = _reports(tmp_path / "now", now)
    primary = _json(_reports(tmp_path / "primary", None))
    report = _json(folder)
    assert report["sign_tests"] == primary["sign_tests"]
    (test,) = report["sign_tests"]
    assert test["significant"] is True and test["alpha"] == 0.05
    deviation = report["deviation"]
    assert deviation["label"] == "deviation from the preregistered analysis"
    assert deviation["changes"] == [
        {"field": "alpha", "preregistered": 0.05, "now": 0.0001},
        {"field": "minimum_subjects", "preregistered": 10, "now": 13},
    ]
    (again,) = deviation["sign_tests"]
    assert again["p_value"] == test["p_value"] and again["alpha"] == 0.0001
    assert again["descriptive_only"] is True and again["significant"] is False  # 12 of 13
    assert deviation["not_recomputed"] == []
    assert _json(folder, "correctness")["deviation"]["changes"] == deviation["changes"]

    markdown = (folder / "runs" / RUN / "abstraction.md").read_text()
    preregistered_at = markdown.index("## Paired sign test")
    deviation_at = markdown.index(
        "## Deviation from the preregistered analysis (not the preregistered result)"
    )
    assert preregistered_at < deviation_at
    assert "alpha 0.05 → 0.0001; minimum_subjects 10 → 13" in markdown
    assert "descriptive only (12 of 13)" in markdown[deviation_at:]
    assert "**Preregistered analysis:** paired-v2, alpha 0.05, lower median" in markdown
    scenario = (folder / "scenarios" / "v1.md").read_text()
    assert f"`{RUN}`: the tests here use its preregistered analysis; params.yaml now says " in (
        scenario
    )
    assert json.loads((folder / "scenarios" / "v1.json").read_text())["deviations"] == {
        RUN: "alpha 0.05 → 0.0001, minimum_subjects 10 → 13"
    }
    page = (folder / "index.html").read_text()
    assert 'data-qualifier="preregistration-deviation"' in page
    assert "alpha 0.05 → 0.0001" in page


def test_changed_repeats_and_versions_are_named_not_applied(tmp_path: Path) -> None:
    now = PREREGISTERED.model_copy(update={"repeats": 3, "structure_evaluator": 8})
    deviation = _json(_reports(tmp_path, now))["deviation"]
    assert deviation["sign_tests"] == []
    repeats, evaluator = deviation["not_recomputed"]
    assert repeats.startswith("repeats 2 → 3: not applied; repeats shape the cells")
    assert evaluator.startswith("structure_evaluator 7 → 8: not applied here")
    assert f"data/report/rescore/{RUN}.md" in evaluator


def test_a_free_run_planned_anew_says_so(tmp_path: Path) -> None:
    earlier = Preregistration.of(AnalysisPlan(extraction=2), 1)
    replanned = Replanned(earlier_plan="e" * 64, changes=earlier.changes(PREREGISTERED))
    folder = _reports(tmp_path, PREREGISTERED, replanned)
    report = _json(folder)
    assert "deviation" not in report
    assert report["replanned"]["changes"] == [{"field": "repeats", "preregistered": 1, "now": 2}]
    markdown = (folder / "runs" / RUN / "abstraction.md").read_text()
    assert f"**Planned anew after it began:** this run began under plan {'e' * 64}" in markdown
    assert "its preregistration changed too (repeats 1 → 2)" in markdown
    assert 'data-qualifier="replanned"' in (folder / "index.html").read_text()
