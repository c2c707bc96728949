"""The effect size beside every paired sign test: the mean per-subject rate difference, its
two-sided sign-flip permutation p-value and the exact confidence interval that inverts that test.

A preregistered *secondary* analysis (issue 49): it never replaces the paired-v2 sign test,
which alone decides ``significant``. Per subject, the reference arm's rate minus the other arm's
(each rate over that arm's scored cells, every repeat); the effect is their mean.

The model: subject ``i``'s difference is ``d_i = θ + e_i`` with the ``e_i`` independent and each
symmetric about 0 (not necessarily identically distributed). Under ``θ = δ`` the signs of
``d_i − δ`` are exchangeable with their flips, so

* the p-value of ``θ = 0`` is the share of sign patterns whose ``|Σ ±d_i|`` is at least the
  observed ``|Σ d_i|``: all ``2^m`` patterns of the ``m`` non-zero differences when ``m`` is at
  most :data:`ENUMERATE_UP_TO` (a zero difference flips to itself, so leaving it out changes no
  share), else :data:`DRAWS` seeded random patterns, ``p = (1 + hits) / (draws + 1)``;
* the interval is every ``δ`` that test does not reject at ``1 − confidence``. Flipping the
  subjects of a set ``S`` moves the statistic past the observed one exactly when the mean of
  ``d`` over ``S`` is on the far side of ``δ``, so the bounds are order statistics of subset
  means (Hartigan 1969): with every subset, the ``k``-th smallest and ``k``-th largest of the
  ``2^n − 1`` subset means, ``k = ⌈(1 − confidence)·2^(n−1)⌉ − 1``; with random patterns the same
  over the drawn subsets and their complements. Coverage is at least ``confidence`` whatever the
  errors' distributions (exact for continuous ones), because the test it inverts is exact.

Computed in integers (every difference over the common denominator), so ties are exact and the
result is byte-identical on every run; ``p < 1 − confidence`` exactly when 0 lies outside the
interval (see docs/statistics.md for the one case where the two use different patterns).

Invalid arguments raise as scipy does: ``TypeError`` for a difference that is not a rational
number (a float is not: ties need exact values) or a confidence that is not a number,
``ValueError`` for no differences, one outside [−1, 1], or a confidence outside (0, 1).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from assay.core.records import Frozen

ENUMERATE_UP_TO = 20
"""The most non-zero differences whose every sign pattern is enumerated (2^20 = 1,048,576)."""
DRAWS = 100_000
"""Random sign patterns above :data:`ENUMERATE_UP_TO`."""
SEED = 49
"""The seed of those patterns (``numpy.random.PCG64``, whose raw stream numpy keeps stable)."""
CONFIDENCE = 0.95
LARGEST_SCALE = 2**50
"""Above ``n² · common denominator`` two distinct subset means could share a float64."""
_CHUNK = 8_192

Ints = npt.NDArray[np.int64]


class SignFlipEffect(Frozen):
    """The result, echoing its inputs as ``scipy.stats.binomtest``'s does."""

    estimate: float
    """The mean of the per-subject differences."""
    subjects: int
    """Subjects with a difference (each scored in both arms)."""
    non_zero: int
    """Those whose difference is not 0 (the only ones a sign flip moves)."""
    p_value: float
    """Two-sided sign-flip permutation p of ``θ = 0``."""
    ci_low: float
    ci_high: float
    """The interval that inverts the test (clipped to [−1, 1], the range of a rate difference)."""
    confidence: float
    method: str
    """How the p-value and the interval were computed, in words (enumeration or Monte Carlo
    with its draws and seed)."""
    draws: int | None = None
    """``None`` when every sign pattern was enumerated."""
    seed: int | None = None


def _rational(value: object, index: int) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, numbers.Rational):
        raise TypeError(
            f"difference {index} must be a rational number (int or Fraction), got {value!r}"
        )
    difference = Fraction(int(value.numerator), int(value.denominator))
    if not -1 <= difference <= 1:
        raise ValueError(f"difference {index} must be in [-1, 1], got {value}")
    return difference


def _confidence(value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"confidence must be a number in (0, 1), got {value!r}")
    level = Fraction(repr(float(value)))  # 0.95 is 19/20, not the float nearest it
    if not 0 < level < 1:
        raise ValueError(f"confidence must be in (0, 1), got {value!r}")
    return level


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def rate_difference(reference: tuple[int, int], other: tuple[int, int]) -> Fraction:
    """``hits / scored`` of the reference arm minus the other's: one subject's difference."""
    return Fraction(reference[0], reference[1]) - Fraction(other[0], other[1])


def _all_subsets(values: Ints) -> tuple[Ints, Ints]:
    """Every subset's sum and size, the empty one first (``2^len(values)`` of each)."""
    sums = np.zeros(2 ** len(values), dtype=np.int64)
    sizes = np.zeros(2 ** len(values), dtype=np.int64)
    for bit, value in enumerate(values):
        half = 1 << bit  # subsets of the first `bit` values are filled; add this value to each
        np.add(sums[:half], value, out=sums[half : 2 * half])
        np.add(sizes[:half], 1, out=sizes[half : 2 * half])
    return sums, sizes


def _drawn_subsets(values: Ints, draws: int, seed: int) -> tuple[Ints, Ints]:
    """The subsets ``draws`` random sign patterns flip (bit ``i`` of a pattern flips subject
    ``i``), from PCG64's raw stream: its sums and sizes."""
    n = len(values)
    words = math.ceil(draws * n / 64)
    raw = np.random.PCG64(seed).random_raw(words).astype("<u8")
    bits = np.unpackbits(raw.view(np.uint8), bitorder="little")[: draws * n].reshape(draws, n)
    sums = np.empty(draws, dtype=np.int64)
    sizes = np.empty(draws, dtype=np.int64)
    for start in range(0, draws, _CHUNK):
        chunk = bits[start : start + _CHUNK].astype(np.int64)
        sums[start : start + _CHUNK] = chunk @ values
        sizes[start : start + _CHUNK] = chunk.sum(axis=1)
    return sums, sizes


def _bounds(sums: Ints, sizes: Ints, need: int, scale: int) -> tuple[Fraction, Fraction]:
    """The interval over a family of subsets closed under complement: the ``(need − e)``-th
    smallest and largest mean of its non-empty members (``e`` its empty ones, which count on
    both sides); the whole range [−1, 1] when too few subsets exist to reject anything."""
    empty = int(np.count_nonzero(sizes == 0))
    rank = need - empty
    if rank <= 0:
        return Fraction(-1), Fraction(1)
    members = sizes > 0
    member_sums, member_sizes = sums[members], sizes[members]
    means = member_sums / member_sizes  # exact order: distinct means differ beyond float64 noise
    low = int(np.argpartition(means, rank - 1)[rank - 1])
    high = int(np.argpartition(means, len(means) - rank)[len(means) - rank])

    def exact(index: int) -> Fraction:
        return Fraction(int(member_sums[index]), int(member_sizes[index]) * scale)

    return exact(low), exact(high)


def sign_flip_effect(
    differences: Sequence[numbers.Rational],
    *,
    confidence: float = CONFIDENCE,
    enumerate_up_to: int = ENUMERATE_UP_TO,
    draws: int = DRAWS,
    seed: int = SEED,
) -> SignFlipEffect:
    """The mean of ``differences`` with its sign-flip p-value and exact interval (module doc)."""
    exact = [_rational(value, index) for index, value in enumerate(differences)]
    if not exact:
        raise ValueError("sign_flip_effect needs at least one difference")
    level = _confidence(confidence)
    limit = _positive(enumerate_up_to, "enumerate_up_to")
    n = len(exact)
    scale = math.lcm(*(d.denominator for d in exact))
    if n * n * scale > LARGEST_SCALE:
        raise ValueError(
            f"differences' common denominator {scale} is too large for exact subset means"
        )
    values = np.array([int(d * scale) for d in exact], dtype=np.int64)
    non_zero = values[values != 0]
    total = int(values.sum())
    alpha = 1 - level
    drawing = n > limit  # some subsets are drawn (for the p-value too above `limit` non-zero)
    if drawing:
        draws = _positive(draws, "draws")
    patterns = (
        _enumerated(values, non_zero, total, limit, draws, seed)
        if len(non_zero) <= limit
        else _drawn(values, total, draws, seed)
    )
    p_value, sums, sizes, family, method = patterns
    need = math.ceil(alpha * family / 2)
    low, high = _bounds(sums, sizes, need, scale)
    return SignFlipEffect(
        estimate=float(Fraction(total, n * scale)),
        subjects=n,
        non_zero=len(non_zero),
        p_value=float(min(p_value, Fraction(1))),
        ci_low=float(low),
        ci_high=float(high),
        confidence=float(level),
        method=method.format(level=_percent(level)),
        draws=draws if drawing else None,
        seed=seed if drawing else None,
    )


Patterns = tuple[Fraction, Ints, Ints, int, str]
"""The p-value, the interval's family of subsets (sums, sizes, how many) and the method in words
(``{level}`` left for the confidence)."""


def _enumerated(
    values: Ints, non_zero: Ints, total: int, limit: int, draws: int, seed: int
) -> Patterns:
    """Every sign pattern of the non-zero differences; the interval over every subset when the
    subjects are within ``limit`` too, else over drawn subsets (zeros beyond the limit)."""
    if len(values) <= limit:  # every subset: the p-value's share is the same over all 2^n
        sums, sizes = _all_subsets(values)
        flipped, family = sums, 2 ** len(values)
        interval = f"all 2^{len(values)} subsets"
    else:
        flipped, _ = _all_subsets(non_zero)
        sums, sizes, family = _family(values, total, draws, seed)
        interval = f"{draws} seeded random subsets (PCG64 seed {seed}) and their complements"
    hits = int(np.count_nonzero(np.abs(total - 2 * flipped) >= abs(total)))
    method = (
        f"exact sign-flip permutation test: all 2^{len(non_zero)} sign patterns of the "
        f"{len(non_zero)} non-zero differences; {{level}} interval by inverting it over the "
        f"means of {interval}"
    )
    return Fraction(hits, len(flipped)), sums, sizes, family, method


def _drawn(values: Ints, total: int, draws: int, seed: int) -> Patterns:
    """``draws`` seeded random sign patterns: p = (1 + hits) / (draws + 1), and the interval over
    the same subsets and their complements."""
    sums, sizes, family = _family(values, total, draws, seed)
    drawn = sums[2 : 2 + draws]
    hits = int(np.count_nonzero(np.abs(total - 2 * drawn) >= abs(total)))
    method = (
        f"Monte Carlo sign-flip permutation test: {draws} seeded random sign patterns "
        f"(PCG64 seed {seed}), p = (1 + hits) / ({draws} + 1); {{level}} interval by inverting "
        "it over the means of the same subsets and their complements"
    )
    return Fraction(1 + hits, draws + 1), sums, sizes, family, method


def _family(values: Ints, total: int, draws: int, seed: int) -> tuple[Ints, Ints, int]:
    """The random family, closed under complement: the empty set (the observed pattern), the
    whole set (its negation), then each drawn subset and then each one's complement."""
    n = len(values)
    drawn, drawn_sizes = _drawn_subsets(values, draws, seed)
    sums = np.concatenate(([0, total], drawn, total - drawn)).astype(np.int64)
    sizes = np.concatenate(([0, n], drawn_sizes, n - drawn_sizes)).astype(np.int64)
    return sums, sizes, 2 * draws + 2


def _percent(level: Fraction) -> str:
    return f"{float(level * 100):g}%"
