"""Ordinal reducers and the exact paired sign test (the seed's paired-v2 analysis).

* :func:`lower_median`: the lower ordinal median of one cell's repeats; with two repeats a
  disagreement resolves to the lower category.
* :func:`sign_test`: the exact two-sided binomial test (p = 1/2) over non-tied pairs, computed
  by ``scipy.stats.binomtest``; the result echoes its inputs. Up to :data:`TABLE_PAIRS` pairs
  the p-value is read from scipy's own table of every such test, computed once per machine and
  scipy version and remembered (:mod:`assay.core.memo`, kind ``sign-test``): importing
  ``scipy.stats`` costs about a second, and every export and report stage needs a p-value. A
  remembered table is read only when its sha256 is the one :data:`SIGN_TEST_TABLES` pins for
  the installed scipy, so a tampered or corrupted memo is never published.
* :func:`paired_comparison`: per subject, the lower median of each arm over its repeats; a
  subject is complete only when every repeat of both compared arms is on the scale (``None``,
  ``ambiguous``, ``rejected``, ``evaluator-failure`` and anything else off the scale are missing
  evidence). Complete subjects are compared pairwise: *favouring the reference* when the
  reference arm's median is higher on the scale (clean ``reused`` against inconsistent
  ``duplicated``), *favouring the other* when lower, a tie otherwise. Ties are counted and
  excluded from the test. Fewer complete subjects than the minimum inference set makes the
  comparison descriptive-only (the test is still computed and reported).
* :func:`holm`: Holm's step-down adjustment of a family of p-values (a run compares its
  reference arm with several arms; the preregistered test is per arm and unadjusted, so the
  reports show the adjusted p beside it as a qualifier, never instead of it).
* :func:`decide`: the one place ``significant`` and ``descriptive_only`` are decided. Every
  result here and every report row comes from it, so nothing says *significant* about a
  comparison below the minimum inference set; a null result with many ties says it is weak
  detection power, not equivalence.

Invalid arguments raise as scipy does: ``TypeError`` for a count that is not an integer or an
alpha that is not a number, ``ValueError`` for negative counts, alpha outside (0, 1) or a bad
scale.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Literal, TypeGuard

from assay.core.records import Frozen

MINIMUM_SUBJECTS = 10
"""The seed's minimum inference set: ten complete paired subjects."""
ALPHA = 0.05

Direction = Literal["reference", "other", "tie"]


MANY_TIES_NOTE = "weak detection power, not evidence that the arms are equivalent"


class Inference(Frozen):
    """What may be said about one test: decided only by :func:`decide`."""

    significant: bool
    """``p_value < alpha`` and not descriptive-only."""
    descriptive_only: bool
    """Fewer complete subjects than the minimum inference set: report, do not infer."""
    note: str
    """One line for readers: significant, descriptive-only, or what a null result means."""


def decide(
    p_value: float,
    alpha: float,
    *,
    non_tied: int,
    ties: int = 0,
    complete_subjects: int | None = None,
    minimum_subjects: int = MINIMUM_SUBJECTS,
) -> Inference:
    """``significant`` and ``descriptive_only`` for one sign test, and how to read it.

    ``complete_subjects=None`` judges a bare sign test (no minimum inference set applies).
    A null result with at least as many ties as non-tied pairs is weak detection power, not
    evidence of equivalence (the seed's method note), and says so.
    """
    descriptive = complete_subjects is not None and complete_subjects < minimum_subjects
    significant = (not descriptive) and p_value < alpha
    if descriptive:
        note = (
            f"descriptive only: {complete_subjects} complete subjects, fewer than the "
            f"minimum inference set of {minimum_subjects}"
        )
    elif significant:
        note = f"significant at alpha {alpha:g}"
    elif ties and ties >= non_tied:
        note = f"not significant with {ties} tied subjects: {MANY_TIES_NOTE}"
    else:
        note = "not significant: no evidence of a difference, which is not evidence of none"
    return Inference(significant=significant, descriptive_only=descriptive, note=note)


class SignTestResult(Frozen):
    positive: int
    """Non-tied pairs in the positive direction (the reference arm higher)."""
    negative: int
    n: int
    alpha: float
    p_value: float
    significant: bool
    """Decided by :func:`decide`: ``p_value < alpha`` and not descriptive-only."""
    descriptive_only: bool
    """Below the minimum inference set (only when the caller gave ``complete_subjects``)."""


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _alpha(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"alpha must be a number in (0, 1), got {value!r}")
    alpha = float(value)
    if not (0.0 < alpha < 1.0) or math.isnan(alpha):
        raise ValueError(f"alpha must be in (0, 1), got {value!r}")
    return alpha


def sign_test_p(positive: int, negative: int) -> float:
    """The exact two-sided p-value over ``positive`` + ``negative`` non-tied pairs."""
    k = _count(positive, "positive")
    n = k + _count(negative, "negative")
    if n == 0:
        return 1.0
    table = _sign_test_table() if n <= TABLE_PAIRS else None
    return table[n][k] if table is not None else _binomtest_p(k, n)


TABLE_PAIRS = 64
"""The most non-tied pairs whose p-values :func:`sign_test_p` reads from the remembered table."""


def _binomtest_p(k: int, n: int) -> float:
    # imported here: scipy.stats takes ~0.8 s to import, and most processes that load this
    # module (`assay sql`, `assay show`, an export with nothing tested) never compute a p-value
    from scipy.stats import binomtest

    return float(binomtest(k, n, p=0.5, alternative="two-sided").pvalue)


SIGN_TEST_TABLES = {
    "1.17.1": "ad8beac1b847e90a95210595f7ddf037a5b5f1c53dbbd7b684fba91fdc6e8bd8",
}
"""The sha256 of the canonical JSON of scipy's table (:func:`_sign_test_table`), by scipy
version: a remembered table is read only when its digest is this one. The memo lives outside DVC,
where nothing else checks it, so a table of the right shape with one value changed (by hand, by a
disk, by another program) is computed again, never published. A scipy version without a digest
here is not read from the memo at all (each p-value is one ``binomtest``, as with the memo off);
``tests/stats/test_stats_sign.py`` fails until the installed version's digest is added."""


def table_digest(table: object) -> str:
    """The digest :data:`SIGN_TEST_TABLES` holds for ``table``."""
    from assay.core.digest import canonical_json, sha256_hex

    return sha256_hex(canonical_json(table))


def computed_sign_test_table() -> list[list[float]]:
    """``table[n][k]``: scipy's p-value for ``k`` of ``n`` pairs, for every ``n`` up to
    :data:`TABLE_PAIRS` (2,145 ``binomtest`` calls)."""
    return [
        [_binomtest_p(k, n) if n else 1.0 for k in range(n + 1)] for n in range(TABLE_PAIRS + 1)
    ]


@functools.cache
def _sign_test_table() -> list[list[float]] | None:
    """:func:`computed_sign_test_table`, from the memo when it holds this scipy version's table
    with the digest :data:`SIGN_TEST_TABLES` pins (floats survive its JSON unchanged), else
    computed and remembered. ``None`` with the memo off (``ASSAY_MEMO=off``), where nothing would
    keep the 2,145 values, and for a scipy version without a pinned digest, where nothing could
    check them: each p-value is one ``binomtest`` instead."""
    from importlib.metadata import version

    from assay.core.memo import Memo, key_of

    memo = Memo("sign-test")
    scipy_version = version("scipy")
    pinned = SIGN_TEST_TABLES.get(scipy_version)
    if not memo.enabled or pinned is None:
        return None
    key = key_of({"scipy": scipy_version, "pairs": TABLE_PAIRS, "test": "binomtest p=0.5"})
    found = memo.get(key)
    if _is_table(found) and table_digest(found) == pinned:
        return found
    table = computed_sign_test_table()
    if table_digest(table) == pinned:  # else this machine's scipy differs: use, never remember
        memo.put(key, table)
    return table


def _is_table(found: object) -> TypeGuard[list[list[float]]]:
    return (
        isinstance(found, list)
        and len(found) == TABLE_PAIRS + 1
        and all(
            isinstance(row, list)
            and len(row) == n + 1
            and all(isinstance(p, float) and 0.0 <= p <= 1.0 for p in row)
            for n, row in enumerate(found)
        )
    )


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values, in the given order; ``None`` (no test) stays ``None`` and is
    not counted in the family. The k-th smallest of m p-values becomes the running maximum of
    ``(m - j + 1) * p_(j)`` over j <= k, capped at 1 (R's ``p.adjust(method = "holm")``)."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p))
        adjusted[index] = running
    return adjusted


def sign_test(
    positive: int,
    negative: int,
    *,
    alpha: float = ALPHA,
    complete_subjects: int | None = None,
    minimum_subjects: int = MINIMUM_SUBJECTS,
) -> SignTestResult:
    """Exact two-sided sign test over ``positive`` + ``negative`` non-tied pairs.

    With ``complete_subjects`` the minimum inference set applies (see :func:`decide`)."""
    k = _count(positive, "positive")
    m = _count(negative, "negative")
    level = _alpha(alpha)
    p_value = sign_test_p(k, m)
    inference = decide(
        p_value,
        level,
        non_tied=k + m,
        complete_subjects=complete_subjects,
        minimum_subjects=_count(minimum_subjects, "minimum_subjects"),
    )
    return SignTestResult(
        positive=k,
        negative=m,
        n=k + m,
        alpha=level,
        p_value=p_value,
        significant=inference.significant,
        descriptive_only=inference.descriptive_only,
    )


def _validated_scale(scale: Sequence[str]) -> tuple[str, ...]:
    ordered = tuple(scale)
    if len(ordered) < 2 or len(set(ordered)) != len(ordered):
        raise ValueError(f"scale must list at least two distinct categories, got {ordered!r}")
    return ordered


def lower_median(values: Sequence[str], scale: Sequence[str]) -> str:
    """The lower ordinal median: the ⌈n/2⌉-th lowest value on the scale (lowest first)."""
    ordered = _validated_scale(scale)
    rank = {category: index for index, category in enumerate(ordered)}
    if not values:
        raise ValueError("lower_median of no values")
    off_scale = [v for v in values if v not in rank]
    if off_scale:
        raise ValueError(f"values not on the scale {ordered!r}: {off_scale!r}")
    ranks = sorted(rank[v] for v in values)
    return ordered[ranks[(len(ranks) - 1) // 2]]


class SubjectPair(Frozen):
    subject: str
    complete: bool
    reference_median: str | None
    other_median: str | None
    direction: Direction | None
    """``None`` for an incomplete subject."""


class PairedComparison(Frozen):
    reference_arm: str
    other_arm: str
    repeats: int
    scale: tuple[str, ...]
    minimum_subjects: int
    subjects: tuple[SubjectPair, ...]
    complete_subjects: tuple[str, ...]
    incomplete_subjects: tuple[str, ...]
    favouring_reference: int
    favouring_other: int
    ties: int
    test: SignTestResult
    """Its ``significant`` already respects the minimum inference set."""
    descriptive_only: bool
    """Fewer complete subjects than ``minimum_subjects``: report, do not infer."""
    note: str
    """How to read the result (see :func:`decide`)."""

    @property
    def significant(self) -> bool:
        return self.test.significant


def _arm_median(
    arms: Mapping[str, Sequence[str | None]], arm: str, repeats: int, scale: tuple[str, ...]
) -> str | None:
    """The arm's lower median, or ``None`` when any of its repeats is missing."""
    values = arms.get(arm)
    if values is None:
        return None
    if len(values) > repeats:
        raise ValueError(f"arm {arm!r} has {len(values)} outcomes for {repeats} repeats")
    if len(values) < repeats or any(v not in scale for v in values):
        return None
    return lower_median([v for v in values if v is not None], scale)


def _direction(reference: str, other: str, scale: tuple[str, ...]) -> Direction:
    difference = scale.index(reference) - scale.index(other)
    return "reference" if difference > 0 else "other" if difference < 0 else "tie"


def paired_comparison(
    outcomes: Mapping[str, Mapping[str, Sequence[str | None]]],
    *,
    reference_arm: str,
    other_arm: str,
    repeats: int,
    scale: Sequence[str],
    alpha: float = ALPHA,
    minimum_subjects: int = MINIMUM_SUBJECTS,
) -> PairedComparison:
    """Compare two arms over subjects by the paired sign test on lower medians."""
    ordered = _validated_scale(scale)
    if reference_arm == other_arm:
        raise ValueError("reference_arm and other_arm must differ")
    if _count(repeats, "repeats") < 1:
        raise ValueError("repeats must be at least 1")
    minimum = _count(minimum_subjects, "minimum_subjects")
    pairs = []
    for subject in sorted(outcomes):
        arms = outcomes[subject]
        reference = _arm_median(arms, reference_arm, repeats, ordered)
        other = _arm_median(arms, other_arm, repeats, ordered)
        complete = reference is not None and other is not None
        pairs.append(
            SubjectPair(
                subject=subject,
                complete=complete,
                reference_median=reference,
                other_median=other,
                direction=_direction(reference, other, ordered)
                if reference is not None and other is not None
                else None,
            )
        )
    favouring_reference = sum(p.direction == "reference" for p in pairs)
    favouring_other = sum(p.direction == "other" for p in pairs)
    complete_subjects = tuple(p.subject for p in pairs if p.complete)
    ties = sum(p.direction == "tie" for p in pairs)
    test = sign_test(
        favouring_reference,
        favouring_other,
        alpha=alpha,
        complete_subjects=len(complete_subjects),
        minimum_subjects=minimum,
    )
    inference = decide(
        test.p_value,
        test.alpha,
        non_tied=test.n,
        ties=ties,
        complete_subjects=len(complete_subjects),
        minimum_subjects=minimum,
    )
    return PairedComparison(
        reference_arm=reference_arm,
        other_arm=other_arm,
        repeats=repeats,
        scale=ordered,
        minimum_subjects=minimum,
        subjects=tuple(pairs),
        complete_subjects=complete_subjects,
        incomplete_subjects=tuple(p.subject for p in pairs if not p.complete),
        favouring_reference=favouring_reference,
        favouring_other=favouring_other,
        ties=ties,
        test=test,
        descriptive_only=inference.descriptive_only,
        note=inference.note,
    )
