"""A rescoring line shows what the primary report shows: below the minimum inference set, no
p-value but "descriptive only (n of minimum)"."""

from __future__ import annotations

from pathlib import Path

from assay.report.database import connect
from assay.report.rescore import build_rescore_reports, headlines
from tests.report.evidence_kit import write_run

FEW = [f"s{i:02d}" for i in range(6)]


def test_a_descriptive_only_comparison_has_no_p_in_the_rescoring_line(tmp_path: Path) -> None:
    regressed = {s: {"clean": ["reused"] * 2, "inconsistent": ["duplicated"] * 2} for s in FEW}
    tied = {s: {"clean": ["reused"] * 2, "inconsistent": ["reused"] * 2} for s in FEW}
    write_run(tmp_path, "run-a", {7: {1: regressed}, 6: {1: tied}}, minimum=10)
    (report,) = build_rescore_reports(connect(tmp_path)).values()
    (line,) = headlines(report)
    assert line == (
        "v6 changes 12 verdicts of v7 in 6 subjects "
        "(inconsistent: descriptive only (6 of 10) → descriptive only (6 of 10))"
    )


def test_at_the_minimum_set_the_line_keeps_its_p_values(tmp_path: Path) -> None:
    many = [f"s{i:02d}" for i in range(10)]
    regressed = {s: {"clean": ["reused"] * 2, "inconsistent": ["duplicated"] * 2} for s in many}
    tied = {s: {"clean": ["reused"] * 2, "inconsistent": ["reused"] * 2} for s in many}
    write_run(tmp_path, "run-a", {7: {1: regressed}, 6: {1: tied}}, minimum=10)
    (line,) = headlines(next(iter(build_rescore_reports(connect(tmp_path)).values())))
    assert "inconsistent: p 0.001953 → 1, significant under v7 but not under v6" in line
