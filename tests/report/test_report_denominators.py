"""Rates with their numerators and denominators, and arms whose missing evidence differs
(assay.report.denominators)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.report.denominators import ArmRate, differential_missingness, missingness_line

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "missingness.yaml").read_text())


def _rate(arm: str, unscored: int, cells: int) -> ArmRate:
    scored = cells - unscored
    return ArmRate(arm=arm, hits=scored // 2, scored=scored, cells=cells)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_differential_missingness_is_flagged(case: dict[str, Any]) -> None:
    rates = [_rate("clean", **case["reference"]), _rate("inconsistent", **case["other"])]
    flagged = differential_missingness(rates, "clean", 0.05)
    assert bool(flagged) is case["flagged"]
    if flagged:
        line = missingness_line(flagged[0])
        other, reference = case["other"], case["reference"]
        assert f"inconsistent has {other['unscored']} of {other['cells']} cells not scored" in line
        assert f"clean {reference['unscored']} of {reference['cells']}" in line


def test_a_rate_says_its_numerator_denominator_and_what_is_not_scored() -> None:
    assert ArmRate(arm="clean", hits=10, scored=14, cells=24).text() == (
        "10 of 14 (0.71), 10 not scored"
    )
    assert ArmRate(arm="clean", hits=0, scored=0, cells=24).text() == (
        "— (0 scored), 24 not scored"
    )
