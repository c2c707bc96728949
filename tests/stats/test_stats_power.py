"""The power of paired-v2 (``assay.science.power``) against independent exact computations: a
brute-force enumeration of every subject's outcome, an enumeration of the counts with rational
multinomial coefficients, the study-power review's figures, and the p-values the reports use."""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from assay.science.power import (
    power,
    power_curve,
    sign_test_p_values,
    subjects_needed,
)
from assay.science.stats import decide, sign_test_p

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "power.yaml").read_text())
TOLERANCE = 1e-9


def _judge(alpha: float, minimum: int):
    """The reports' decision for (favouring, against, complete): scipy's p-value
    (``sign_test_p``, remembered per pair of counts) judged by ``decide``."""
    p_values: dict[tuple[int, int], float] = {}

    def significant(k: int, j: int, m: int) -> bool:
        if (k, j) not in p_values:
            p_values[(k, j)] = sign_test_p(k, j)
        return decide(
            p_values[(k, j)], alpha, non_tied=k + j, complete_subjects=m, minimum_subjects=minimum
        ).significant

    return significant


def enumerated_power(
    subjects: int, complete: float, favour: float, against: float, alpha: float, minimum: int
) -> tuple[float, float]:
    """Power and P(enough complete) by summing over every subject's outcome."""
    chance = {
        "incomplete": 1 - complete,
        "favour": complete * favour,
        "against": complete * against,
        "tie": complete * (1 - favour - against),
    }
    significant = _judge(alpha, minimum)
    total = enough = 0.0
    for outcome in itertools.product(chance, repeat=subjects):
        probability = math.prod(chance[o] for o in outcome)
        k, j = outcome.count("favour"), outcome.count("against")
        m = subjects - outcome.count("incomplete")
        enough += probability if m >= minimum else 0.0
        total += probability if significant(k, j, m) else 0.0
    return total, enough


def counted_power(subjects: int, complete: float, favour: float, against: float) -> Fraction:
    """Power at alpha 0.05 and ten subjects, summed over (complete, favouring, against) counts
    with multinomial coefficients, in rationals (the decimals read as the fractions they name)."""
    c, f, a = (Fraction(str(x)) for x in (complete, favour, against))
    t = 1 - f - a
    significant = _judge(0.05, 10)
    total = Fraction(0)
    for m in range(subjects + 1):
        completes = math.comb(subjects, m) * c**m * (1 - c) ** (subjects - m)
        for k in range(m + 1):
            for j in range(m - k + 1):
                if significant(k, j, m):
                    ways = math.factorial(m) // (
                        math.factorial(k) * math.factorial(j) * math.factorial(m - k - j)
                    )
                    total += completes * ways * f**k * a**j * t ** (m - k - j)
    return total


@pytest.mark.parametrize("case", CASES["enumerated"])
def test_power_matches_enumerating_every_subject(case: dict) -> None:
    result = power(
        case["subjects"],
        case["complete"],
        case["favour"],
        case["against"],
        alpha=case["alpha"],
        minimum_subjects=case["minimum"],
    )
    expected, enough = enumerated_power(
        case["subjects"],
        case["complete"],
        case["favour"],
        case["against"],
        case["alpha"],
        case["minimum"],
    )
    assert result.power == pytest.approx(expected, abs=TOLERANCE)
    assert result.enough_complete == pytest.approx(enough, abs=TOLERANCE)


def test_the_enumerated_cases_include_significant_results() -> None:
    """The brute-force table is not all zeros: most of its designs can decide."""
    powers = [
        power(
            c["subjects"], c["complete"], c["favour"], c["against"],
            alpha=c["alpha"], minimum_subjects=c["minimum"],
        ).power
        for c in CASES["enumerated"]
    ]  # fmt: skip
    assert sum(0.01 < p < 0.99 for p in powers) >= 5 and 1.0 in {round(p, 12) for p in powers}


@pytest.mark.parametrize("case", CASES["counted"])
def test_power_matches_the_multinomial_sum(case: dict) -> None:
    result = power(case["subjects"], case["complete"], case["favour"], case["against"])
    expected = counted_power(case["subjects"], case["complete"], case["favour"], case["against"])
    assert result.power == pytest.approx(float(expected), abs=TOLERANCE)


@pytest.mark.parametrize("case", CASES["reference"])
def test_the_review_figures(case: dict) -> None:
    result = power(case["subjects"], case["complete"], case["favour"], case["against"])
    assert round(result.power, 3) == case["power"]
    if "enough_complete" in case:
        assert round(result.enough_complete, 3) == case["enough_complete"]
    assert result.power <= result.enough_complete + TOLERANCE


def test_the_result_echoes_its_inputs() -> None:
    result = power(12, 0.75, 0.8, 0, alpha=0.01, minimum_subjects=8)
    assert result.model_dump(exclude={"power", "enough_complete"}) == {
        "subjects": 12,
        "complete": 0.75,
        "favour": 0.8,
        "against": 0.0,
        "alpha": 0.01,
        "minimum_subjects": 8,
    }


@pytest.mark.parametrize("pairs", [*range(41), 64, 100, 150])
def test_the_exact_p_values_are_the_reports(pairs: int) -> None:
    """Every p-value power judges is the one ``sign_test_p`` (scipy's binomtest) gives."""
    computed = sign_test_p_values(pairs)
    assert len(computed) == pairs + 1
    for k, p_value in enumerate(computed):
        assert p_value == pytest.approx(sign_test_p(k, pairs - k), rel=1e-12, abs=0)


def test_one_curve_serves_every_number_of_subjects() -> None:
    curve = power_curve(0.75, 0.6, 0.1)
    for n in (36, 12, 24, 0):
        assert curve.at(n) == power(n, 0.75, 0.6, 0.1)


def test_no_effect_and_no_subjects_give_no_power() -> None:
    assert power(36, 0.75, 0.0, 0.0).power == 0.0  # every complete subject tied
    assert power(9, 1.0, 1.0, 0.0).power == 0.0  # fewer than ten subjects: descriptive only
    assert power(10, 1.0, 1.0, 0.0).power == pytest.approx(1.0, abs=TOLERANCE)
    null = power(30, 1.0, 0.5, 0.5)  # no effect: the size of the test, at most alpha
    assert 0.0 < null.power <= 0.05


@pytest.mark.parametrize("case", CASES["needed"])
def test_subjects_needed_and_the_sawtooth(case: dict) -> None:
    found = subjects_needed(
        case["target"],
        case["complete"],
        case["favour"],
        case["against"],
        minimum_subjects=case["minimum"],
    )
    assert (found.smallest, found.steady) == (case["smallest"], case["steady"])
    curve = power_curve(
        case["complete"], case["favour"], case["against"], minimum_subjects=case["minimum"]
    )
    powers = [curve.at(n).power for n in range(found.bound + 1)]
    assert all(p < case["target"] for p in powers[: found.smallest])
    assert all(p >= case["target"] for p in powers[found.steady :])
    assert found.smallest_power == powers[found.smallest]
    if found.steady != found.smallest:
        assert min(powers[found.smallest : found.steady]) < case["target"]


def test_a_target_out_of_reach_is_none() -> None:
    found = subjects_needed(0.9, 0.75, 0.6, 0.1, bound=20)
    assert (found.smallest, found.steady, found.bound) == (None, None, 20)
    assert found.smallest_power is None


@pytest.mark.parametrize("case", CASES["invalid"])
def test_invalid_arguments(case: dict) -> None:
    error = {"ValueError": ValueError, "TypeError": TypeError}[case["error"]]
    options = {
        name: case[key]
        for key, name in (("alpha", "alpha"), ("minimum", "minimum_subjects"))
        if key in case
    }
    with pytest.raises(error, match=re.escape(case["message"])):
        power(*case["args"], **options)


@pytest.mark.parametrize(
    ("target", "message"), [(0.0, "target must be in"), (1.0, "target must be in")]
)
def test_invalid_targets(target: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        subjects_needed(target, 0.75, 0.8, 0.0)
