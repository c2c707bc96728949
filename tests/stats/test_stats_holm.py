"""Holm's adjustment of a run's several arm comparisons (case table in cases/holm.yaml)."""

from pathlib import Path

import pytest
import yaml

from assay.science.stats import holm

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "holm.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_holm_matches_r(case: dict) -> None:
    adjusted = holm(case["p"])
    assert [a is None for a in adjusted] == [e is None for e in case["holm"]]
    assert [a for a in adjusted if a is not None] == pytest.approx(
        [e for e in case["holm"] if e is not None]
    )
