"""Every report row's `significant` comes from `stats.decide`; correctness is never confirmatory."""

from __future__ import annotations

from assay.report.kinds import ABSTRACTION, CORRECTNESS
from assay.report.primary import SECONDARY_NOTE, sign_test_rows

ROW = {"favouring_reference": 9, "favouring_arm": 0, "ties": 0, "p_value": 2 / 512,
       "alpha": 0.05, "complete_subjects": 9, "minimum_subjects": 10}  # fmt: skip


def test_nine_complete_subjects_all_one_way_are_descriptive_not_significant() -> None:
    (row,) = sign_test_rows([ROW], ABSTRACTION)
    assert (row["significant"], row["descriptive_only"]) == (False, True)
    assert row["note"].startswith("descriptive only: 9 complete subjects")


def test_a_null_with_many_ties_says_weak_power() -> None:
    tied = {**ROW, "favouring_reference": 1, "ties": 10, "complete_subjects": 11, "p_value": 1.0}
    (row,) = sign_test_rows([tied], ABSTRACTION)
    assert row["significant"] is False and "weak detection power" in row["note"]


def test_correctness_sign_tests_are_descriptive_never_significant() -> None:
    strong = {**ROW, "favouring_reference": 12, "complete_subjects": 12, "p_value": 2 / 4096}
    (primary,) = sign_test_rows([strong], ABSTRACTION)
    (secondary,) = sign_test_rows([strong], CORRECTNESS)
    assert primary["significant"] is True
    assert secondary["significant"] is None
    assert secondary["note"].startswith("secondary diagnostic (descriptive)")
    assert "not a second confirmatory hypothesis" in SECONDARY_NOTE
