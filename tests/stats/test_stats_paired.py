"""Paired comparisons: the case table in ``cases/paired.yaml`` and argument validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.core.records import ORDINAL_VERDICTS
from assay.science.stats import paired_comparison, sign_test

DOCUMENT = yaml.safe_load((Path(__file__).parent / "cases" / "paired.yaml").read_text())
CASES = [{**DOCUMENT["defaults"], **case} for case in DOCUMENT["cases"]]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    result = paired_comparison(
        case["outcomes"],
        reference_arm=case["reference_arm"],
        other_arm=case["other_arm"],
        repeats=case["repeats"],
        scale=case["scale"],
        minimum_subjects=case["minimum_subjects"],
    )
    expect = case["expect"]
    assert result.favouring_reference == expect["favouring_reference"]
    assert result.favouring_other == expect["favouring_other"]
    assert result.ties == expect["ties"]
    assert list(result.complete_subjects) == expect["complete_subjects"]
    assert list(result.incomplete_subjects) == expect["incomplete_subjects"]
    assert result.descriptive_only is expect["descriptive_only"]
    medians = {p.subject: [p.reference_median, p.other_median] for p in result.subjects}
    assert medians == expect["medians"]
    assert result.test == sign_test(
        expect["favouring_reference"],
        expect["favouring_other"],
        complete_subjects=len(expect["complete_subjects"]),
        minimum_subjects=case["minimum_subjects"],
    )
    assert (result.reference_arm, result.other_arm, result.repeats) == (
        case["reference_arm"],
        case["other_arm"],
        case["repeats"],
    )


def test_ten_complete_subjects_all_one_way() -> None:
    outcomes = {
        f"s{i:02d}": {"clean": ["reused", "reused"], "inconsistent": ["duplicated", "mixed"]}
        for i in range(10)
    }
    result = paired_comparison(
        outcomes, reference_arm="clean", other_arm="inconsistent", repeats=2, scale=ORDINAL_VERDICTS
    )
    assert not result.descriptive_only
    assert result.test.significant and result.test.positive == 10
    nine = paired_comparison(
        dict(list(outcomes.items())[:9]),
        reference_arm="clean",
        other_arm="inconsistent",
        repeats=2,
        scale=ORDINAL_VERDICTS,
    )
    assert nine.descriptive_only and nine.test.p_value < 0.05
    assert not nine.test.significant and not nine.significant, "descriptive-only yet significant"
    assert nine.test.descriptive_only and "descriptive only" in nine.note


def test_a_null_result_with_many_ties_says_weak_power_not_equivalence() -> None:
    outcomes = {
        f"s{i:02d}": {"clean": ["reused", "reused"], "inconsistent": ["reused", "reused"]}
        for i in range(10)
    } | {"s10": {"clean": ["reused", "reused"], "inconsistent": ["duplicated", "reused"]}}
    result = paired_comparison(
        outcomes, reference_arm="clean", other_arm="inconsistent", repeats=2, scale=ORDINAL_VERDICTS
    )
    assert (result.ties, result.significant, result.descriptive_only) == (10, False, False)
    assert "weak detection power, not evidence that the arms are equivalent" in result.note


@pytest.mark.parametrize(
    "arguments",
    [
        {"repeats": 0},
        {"repeats": 2, "other_arm": "clean"},
        {"repeats": 2, "scale": ("reused",)},
        {"repeats": 2, "alpha": 2.0},
        {"repeats": 1},  # more outcomes than repeats
    ],
)
def test_invalid_arguments_raise(arguments: dict[str, Any]) -> None:
    outcomes = {"s": {"clean": ["reused", "reused"], "inconsistent": ["reused", "reused"]}}
    settings = {"reference_arm": "clean", "other_arm": "inconsistent", "scale": ORDINAL_VERDICTS}
    with pytest.raises(ValueError):
        paired_comparison(outcomes, **{**settings, **arguments})
