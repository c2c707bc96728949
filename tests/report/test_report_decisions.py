"""Every report row's `significant` comes from `stats.decide`; correctness is never confirmatory."""

from __future__ import annotations

import pytest

from assay.report.kinds import ABSTRACTION, CORRECTNESS
from assay.report.primary import SECONDARY_NOTE
from assay.report.primary import sign_test_rows as decided
from assay.report.run_records import Comparison

ROW = {"favouring_reference": 9, "favouring_arm": 0, "ties": 0, "p_value": 2 / 512,
       "alpha": 0.05, "complete_subjects": 9, "minimum_subjects": 10}  # fmt: skip


PLACE = {"step": 1, "arm": "mess-01", "reference_arm": "mess-00", "incomplete_subjects": 0}


def sign_test_rows(rows: list[dict], kind=ABSTRACTION) -> list[dict]:
    """The decided rows of comparison rows (a comparison's place filled in), as dicts."""
    tests = decided([Comparison(**{**PLACE, **row}) for row in rows], kind)
    return [test.model_dump(mode="json") for test in tests]


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


def test_several_arms_get_a_holm_adjusted_p_beside_the_preregistered_one() -> None:
    def arm(name: str, p: float) -> dict:
        return {**ROW, "step": 1, "arm": name, "complete_subjects": 12, "p_value": p}

    rows = sign_test_rows([arm("mess-01", 2 / 4096), arm("mess-03", 0.0386), arm("mess-10", 0.5)])
    assert [r["p_value"] for r in rows] == [round(2 / 4096, 10), 0.0386, 0.5]  # preregistered
    assert [r["p_holm"] for r in rows] == pytest.approx([6 / 4096, 0.0772, 0.5])
    assert [r["significant"] for r in rows] == [True, True, False]  # decided unadjusted
    assert rows[1]["note"].endswith("; not significant after Holm adjustment over the 3 arms")
    nothing = sign_test_rows([{**arm("mess-05", 1.0), "complete_subjects": 0}])
    assert (nothing[0]["p_value"], nothing[0]["p_holm"], nothing[0]["significant"]) == (
        None, None, None
    )  # fmt: skip
