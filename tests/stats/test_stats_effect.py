"""sign_flip_effect against independent computations: the case table worked by hand, brute
force over every sign pattern with exact fractions, the interval found by testing shifted
differences, scipy's own permutation test, and properties over generated rate differences."""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.science.effect import ENUMERATE_UP_TO, SignFlipEffect, sign_flip_effect

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "effect.yaml").read_text())


def brute_p(differences: list[Fraction], shift: Fraction = Fraction(0)) -> Fraction:
    """The two-sided sign-flip p of ``theta = shift``: every pattern of every difference."""
    centred = [d - shift for d in differences]
    observed = abs(sum(centred))
    patterns = list(itertools.product((1, -1), repeat=len(centred)))
    hits = sum(abs(sum(s * d for s, d in zip(signs, centred, strict=True))) >= observed
               for signs in patterns)  # fmt: skip
    return Fraction(hits, len(patterns))


def accepted(differences: list[Fraction], shift: Fraction) -> bool:
    return brute_p(differences, shift) >= Fraction(1, 20)


def gap(differences: list[Fraction]) -> Fraction:
    """Less than the distance between any two distinct subset means."""
    n = len(differences)
    return Fraction(1, 4 * n * n * math.lcm(*(d.denominator for d in differences)))


def exact(bound: float) -> Fraction:
    """The rational a bound's float rounds (denominators here are far below 10^9)."""
    return Fraction(bound).limit_denominator(10**9)


def check_interval_by_shifts(differences: list[Fraction], result: SignFlipEffect) -> None:
    """The interval is exactly the shifts the test does not reject: both bounds are accepted,
    and just outside each (inside [-1, 1]) is rejected."""
    low, high = exact(result.ci_low), exact(result.ci_high)
    eps = gap(differences)
    assert accepted(differences, low) and accepted(differences, high)
    if low > -1:
        assert not accepted(differences, low - eps)
    if high < 1:
        assert not accepted(differences, high + eps)


def fractions(texts: list[str]) -> list[Fraction]:
    return [Fraction(text) for text in texts]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_worked_cases(case: dict) -> None:
    differences = fractions(case["differences"])
    result = sign_flip_effect(differences)
    assert (result.estimate, result.p_value, [result.ci_low, result.ci_high]) == (
        case["estimate"],
        case["p_value"],
        case["ci"],
    )
    assert (result.subjects, result.non_zero) == (len(differences), case["non_zero"])
    assert result.p_value == float(brute_p(differences))
    check_interval_by_shifts(differences, result)
    assert result.draws is None and result.seed is None
    assert f"all 2^{case['non_zero']} sign patterns" in result.method


def test_the_study_power_review_is_reproduced_from_qwen_v1s_verdicts() -> None:
    """The review's per-subject reuse rates (clean minus inconsistent over scored cells, both
    repeats): p = 0.039 over the 2^9 sign patterns of the non-zero differences."""
    rates = {  # subject: (clean reused, clean scored), (inconsistent reused, inconsistent scored)
        "a": ((2, 2), (0, 2)), "b": ((2, 2), (0, 2)), "c": ((0, 1), (1, 1)),
        "d": ((2, 2), (0, 2)), "e": ((1, 1), (1, 2)), "f": ((2, 2), (0, 2)),
        "g": ((2, 2), (0, 2)), "h": ((2, 2), (0, 1)), "i": ((2, 2), (2, 2)),
        "j": ((2, 2), (0, 2)),
    }  # fmt: skip
    differences = [Fraction(*ref) - Fraction(*other) for ref, other in rates.values()]
    result = sign_flip_effect(differences)
    assert round(result.estimate, 2) == 0.65 and round(result.p_value, 3) == 0.039
    assert result.non_zero == 9 and result.p_value == 20 / 2**9


def test_scipys_permutation_test_agrees() -> None:
    from scipy.stats import permutation_test

    differences = fractions(CASES[0]["differences"])
    scipy = permutation_test(
        ([float(d) for d in differences],),
        np.mean,
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    assert sign_flip_effect(differences).p_value == pytest.approx(scipy.pvalue, rel=1e-12)


rates = st.builds(
    lambda hits, scored: Fraction(hits % (scored + 1), scored),
    st.integers(0, 8),
    st.integers(1, 4),
)
differences = st.lists(st.builds(lambda a, b: a - b, rates, rates), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(differences)
def test_matches_brute_force_and_inverts_the_test(values: list[Fraction]) -> None:
    result = sign_flip_effect(values)
    assert result.estimate == float(sum(values) / len(values))
    assert result.p_value == float(brute_p(values))
    check_interval_by_shifts(values, result)
    # every shift between candidate points is judged as the bounds say
    means = sorted({sum(s, Fraction(0)) / len(s) for r in range(1, len(values) + 1)
                    for s in itertools.combinations(values, r)})  # fmt: skip
    eps = gap(values)
    for shift in [m + e for m in means for e in (-eps, 0, eps)]:
        inside = exact(result.ci_low) <= shift <= exact(result.ci_high)
        assert accepted(values, shift) == inside or not -1 <= shift <= 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.builds(lambda a, b: a - b, rates, rates), min_size=1, max_size=12))
def test_interval_holds_the_estimate_and_agrees_with_p(values: list[Fraction]) -> None:
    result = sign_flip_effect(values)
    assert result.ci_low <= result.estimate <= result.ci_high
    assert (result.p_value < 0.05) == (not result.ci_low <= 0 <= result.ci_high)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.builds(lambda a, b: a - b, rates, rates), min_size=1, max_size=9), st.randoms())
def test_subject_order_changes_nothing(values: list[Fraction], rng) -> None:
    shuffled = list(values)
    rng.shuffle(shuffled)
    assert sign_flip_effect(shuffled) == sign_flip_effect(values)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.builds(lambda a, b: a - b, rates, rates), min_size=3, max_size=14))
def test_monte_carlo_agrees_with_p_and_holds_the_estimate(values: list[Fraction]) -> None:
    result = sign_flip_effect(values, enumerate_up_to=2, draws=2_000, seed=7)
    assert result.draws == 2_000 and result.seed == 7
    assert result.ci_low <= result.estimate <= result.ci_high
    assert (result.p_value < 0.05) == (not result.ci_low <= 0 <= result.ci_high)


def test_monte_carlo_is_determined_by_its_seed_and_near_the_exact_result() -> None:
    values = fractions(CASES[0]["differences"]) * 2  # 20 subjects, 18 non-zero
    exact = sign_flip_effect(values)
    drawn = sign_flip_effect(values, enumerate_up_to=10)
    assert drawn == sign_flip_effect(values, enumerate_up_to=10)
    assert drawn.draws == 100_000 and "Monte Carlo" in drawn.method and "seed 49" in drawn.method
    assert drawn != sign_flip_effect(values, enumerate_up_to=10, seed=50)
    # p within 5 standard errors of the exact one; the bounds near the exact bounds
    assert abs(drawn.p_value - exact.p_value) < 5 * (exact.p_value / 100_000) ** 0.5
    assert abs(drawn.ci_low - exact.ci_low) < 0.05 and drawn.ci_high == exact.ci_high


def test_more_than_twenty_non_zero_differences_draw_at_least_100000_patterns() -> None:
    values = [Fraction(1, 2)] * 15 + [Fraction(-1, 4)] * 6
    result = sign_flip_effect(values)
    assert result.non_zero == ENUMERATE_UP_TO + 1 and result.draws == 100_000
    assert result.p_value == sign_flip_effect(values).p_value


def test_zeros_beyond_twenty_subjects_keep_the_p_value_exact() -> None:
    """20 non-zero differences among 24 subjects: p from all 2^20 patterns, the interval from
    drawn subsets (the one case where the two come from different patterns)."""
    values = [Fraction(1)] * 12 + [Fraction(-1, 2)] * 8 + [Fraction(0)] * 4
    result = sign_flip_effect(values)
    assert result.non_zero == 20 and "all 2^20 sign patterns" in result.method
    assert "random subsets" in result.method and result.draws == 100_000
    assert result.p_value == sign_flip_effect(values[:20]).p_value


def test_twenty_non_zero_differences_enumerate_quickly() -> None:
    """Full enumeration at the limit stays well under a second (docs/statistics.md)."""
    values = [Fraction((i % 7) - 3, 4) or Fraction(1, 3) for i in range(20)]
    started = time.perf_counter()
    result = sign_flip_effect(values)
    assert time.perf_counter() - started < 10  # generous: a guard against a non-vectorised path
    assert result.draws is None and result.non_zero == 20


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"differences": []}, ValueError),
        ({"differences": [0.5]}, TypeError),
        ({"differences": [True]}, TypeError),
        ({"differences": [Fraction(3, 2)]}, ValueError),
        ({"differences": [1], "confidence": 1.0}, ValueError),
        ({"differences": [1], "confidence": "0.95"}, TypeError),
        ({"differences": [1], "draws": 0, "enumerate_up_to": 0}, ValueError),
        ({"differences": [Fraction(1, 2**45)] * 30}, ValueError),
    ],
)
def test_rejects_bad_arguments(arguments: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        sign_flip_effect(**arguments)
