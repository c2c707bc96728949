"""Power before paying: the exact probability that paired-v2 declares significance.

The model of a design: ``n`` subjects, each *complete* (every repeat of both compared arms
scored) with probability ``c``, independently; a complete subject favours the reference arm with
probability ``F``, the other arm with probability ``A``, and is tied otherwise (``T = 1 - F - A``).
The decision is the one the reports apply (:func:`assay.science.stats.decide`): significant when
the exact two-sided sign test over the non-tied complete subjects gives ``p < alpha`` and at
least ``minimum`` subjects are complete. So the power is

    P(significant) = sum over m >= minimum of  Binom(m; n, c)
                     * sum over k + j <= m of  m! / (k! j! (m-k-j)!) F^k A^j T^(m-k-j)
                                               * [p(k, j) < alpha]

a binomial sum over the complete subjects and a multinomial one over their directions, computed
exactly (no simulation). The multinomial term is summed as the equal product of two binomials:
of ``m`` complete subjects, ``t = k + j`` are non-tied with probability ``Binom(t; m, F + A)``,
and of those ``k`` favour the reference with probability ``Binom(k; t, F / (F + A))``. The
inner sum depends on ``m`` only, so one pass serves every ``n`` (:class:`PowerCurve`).

``p(k, j)`` is the exact two-sided binomial p-value at 1/2 over ``t = k + j`` pairs,
``min(1, 2 P(X <= min(k, j)))`` for ``X ~ Binom(t, 1/2)``, in integer arithmetic: the value
scipy's ``binomtest`` gives and :func:`~assay.science.stats.sign_test_p` reads (the tests hold
them equal), without importing scipy or computing a test per pair. Whether ``p`` is significant
and whether ``m`` complete subjects are too few are both asked of
:func:`~assay.science.stats.decide`.

The sign test's power is not monotone in the number of pairs (a sawtooth: at alpha 0.05, 6 of 6
decides and 6 of 7 does not), and the mixture over completeness and ties smooths the teeth
without removing them. :func:`subjects_needed` therefore gives both the fewest subjects whose
power reaches the target and the fewest from which every larger number up to a stated bound
reaches it.

Invalid arguments raise as :mod:`assay.science.stats` does (as scipy does): ``TypeError`` for a
count that is not an integer or a probability that is not a number, ``ValueError`` for a value
out of range.
"""

from __future__ import annotations

import functools
import math
import numbers

from assay.core.records import Frozen
from assay.science.stats import ALPHA, MINIMUM_SUBJECTS, decide

MAX_SUBJECTS = 1000
"""The most subjects a power is computed for (the study's designs have 12 to 36)."""
SEARCH_BOUND = 200
"""How far :func:`subjects_needed` looks by default."""


class PowerResult(Frozen):
    """The power of one design under one alternative; echoes its inputs."""

    subjects: int
    complete: float
    """P(a subject is complete)."""
    favour: float
    """P(a complete subject favours the reference arm)."""
    against: float
    """P(a complete subject favours the other arm)."""
    alpha: float
    minimum_subjects: int
    power: float
    """P(the primary result is significant)."""
    enough_complete: float
    """P(at least ``minimum_subjects`` complete): the most any effect can give this design."""


class SampleSize(Frozen):
    """How many subjects a target power needs under one alternative; echoes its inputs."""

    target: float
    complete: float
    favour: float
    against: float
    alpha: float
    minimum_subjects: int
    bound: int
    """The most subjects looked at."""
    smallest: int | None
    """The fewest subjects whose power reaches ``target`` (``None``: none up to ``bound``)."""
    smallest_power: float | None
    steady: int | None
    """The fewest subjects from which every number up to ``bound`` reaches ``target``: at or
    above ``smallest``, since the power zig-zags (``None``: ``bound`` itself falls short)."""
    steady_power: float | None


def _count(value: object, name: str, *, largest: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    count = int(value)
    if count < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if largest is not None and count > largest:
        raise ValueError(f"{name} must be at most {largest}, got {value!r}")
    return count


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{name} must be a number, got {value!r}")
    return number


def _probability(value: object, name: str) -> float:
    number = _number(value, name)
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    return number


def _open_unit(value: object, name: str) -> float:
    number = _number(value, name)
    if not 0.0 < number < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return number


SUM_SLACK = 1e-12
"""How far above 1 ``favour + against`` may be from rounding alone (0.7 + 0.3 and the like)."""


def _binomial(n: int, p: float) -> list[float]:
    """``Binom(k; n, p)`` for ``k = 0..n`` (``0 ** 0 == 1``, so ``p`` may be 0 or 1). The
    binomial coefficients are exact integers, below the largest float up to
    :data:`MAX_SUBJECTS`."""
    q = 1.0 - p
    row, coefficient = [], 1
    for k in range(n + 1):
        row.append(coefficient * p**k * q ** (n - k))
        coefficient = coefficient * (n - k) // (k + 1)
    return row


def sign_test_p_values(pairs: int) -> tuple[float, ...]:
    """The exact two-sided p-value of ``k`` of ``pairs`` non-tied pairs at 1/2, for each ``k``:
    ``min(1, 2 P(X <= min(k, pairs - k)))`` for ``X ~ Binom(pairs, 1/2)``, as a quotient of
    exact integers (Python rounds it correctly)."""
    tails, running, coefficient = [], 0, 1
    for k in range(pairs // 2 + 1):
        running += coefficient
        tails.append(running)
        coefficient = coefficient * (pairs - k) // (k + 1)
    whole = 2**pairs
    return tuple(min(1.0, 2 * tails[min(k, pairs - k)] / whole) for k in range(pairs + 1))


@functools.cache
def _significant(pairs: int, alpha: float) -> tuple[bool, ...]:
    """Whether ``k`` of ``pairs`` non-tied pairs is significant, for each ``k``, as
    :func:`~assay.science.stats.decide` judges its p-value (the minimum is applied apart);
    asked once per p-value, which ``k`` and ``pairs - k`` share."""
    judged: dict[float, bool] = {}
    for p_value in sign_test_p_values(pairs):
        if p_value not in judged:
            judged[p_value] = decide(p_value, alpha, non_tied=pairs).significant
    return tuple(judged[p_value] for p_value in sign_test_p_values(pairs))


def _too_few(complete: int, minimum: int, alpha: float) -> bool:
    """Whether ``complete`` subjects are below the minimum inference set, as ``decide`` says."""
    return decide(
        1.0, alpha, non_tied=0, complete_subjects=complete, minimum_subjects=minimum
    ).descriptive_only


class PowerCurve:
    """The power of one alternative as a function of the number of subjects.

    Holds, for every number ``m`` of complete subjects computed so far, the probability that
    ``m`` complete subjects give a significant result; :meth:`at` mixes those over the number
    complete. Construct with validated inputs through :func:`power_curve`."""

    def __init__(
        self, complete: float, favour: float, against: float, alpha: float, minimum: int
    ) -> None:
        self.complete, self.favour, self.against = complete, favour, against
        self.alpha, self.minimum = alpha, minimum
        self.non_tied = min(1.0, favour + against)
        self.toward = favour / self.non_tied if self.non_tied > 0 else 0.5
        self._rejecting: list[float] = []
        """P(significant | t non-tied pairs), by t."""
        self._given_complete: list[float] = []
        """P(significant | m complete subjects), by m."""

    def _extend(self, largest: int) -> None:
        for pairs in range(len(self._rejecting), largest + 1):
            significant = _significant(pairs, self.alpha)
            self._rejecting.append(
                math.fsum(
                    weight
                    for weight, decided in zip(
                        _binomial(pairs, self.toward), significant, strict=True
                    )
                    if decided
                )
            )
        for complete in range(len(self._given_complete), largest + 1):
            if _too_few(complete, self.minimum, self.alpha):
                self._given_complete.append(0.0)
                continue
            weights = _binomial(complete, self.non_tied)
            self._given_complete.append(
                math.fsum(w * r for w, r in zip(weights, self._rejecting, strict=False))
            )

    def at(self, subjects: int) -> PowerResult:
        n = _count(subjects, "subjects", largest=MAX_SUBJECTS)
        self._extend(n)
        weights = _binomial(n, self.complete)
        enough = math.fsum(
            w for m, w in enumerate(weights) if not _too_few(m, self.minimum, self.alpha)
        )
        reaching = math.fsum(w * g for w, g in zip(weights, self._given_complete, strict=False))
        return PowerResult(
            subjects=n,
            complete=self.complete,
            favour=self.favour,
            against=self.against,
            alpha=self.alpha,
            minimum_subjects=self.minimum,
            power=min(1.0, reaching),
            enough_complete=min(1.0, enough),
        )


def power_curve(
    complete: float,
    favour: float,
    against: float,
    *,
    alpha: float = ALPHA,
    minimum_subjects: int = MINIMUM_SUBJECTS,
) -> PowerCurve:
    """The power of one alternative at any number of subjects (validated inputs)."""
    c = _probability(complete, "complete")
    f = _probability(favour, "favour")
    a = _probability(against, "against")
    if f + a > 1.0 + SUM_SLACK:
        raise ValueError(f"favour + against must be at most 1, got {f} + {a}")
    return PowerCurve(
        c, f, a, _open_unit(alpha, "alpha"), _count(minimum_subjects, "minimum_subjects")
    )


def power(
    subjects: int,
    complete: float,
    favour: float,
    against: float,
    *,
    alpha: float = ALPHA,
    minimum_subjects: int = MINIMUM_SUBJECTS,
) -> PowerResult:
    """The exact probability that ``subjects`` subjects give a significant primary result."""
    curve = power_curve(complete, favour, against, alpha=alpha, minimum_subjects=minimum_subjects)
    return curve.at(subjects)


def subjects_needed(
    target: float,
    complete: float,
    favour: float,
    against: float,
    *,
    alpha: float = ALPHA,
    minimum_subjects: int = MINIMUM_SUBJECTS,
    bound: int = SEARCH_BOUND,
) -> SampleSize:
    """The fewest subjects whose power reaches ``target``, and the fewest from which every number
    up to ``bound`` does (see the module's note on the sawtooth)."""
    goal = _open_unit(target, "target")
    largest = _count(bound, "bound", largest=MAX_SUBJECTS)
    curve = power_curve(complete, favour, against, alpha=alpha, minimum_subjects=minimum_subjects)
    powers = [curve.at(n).power for n in range(largest + 1)]
    reaching = [n for n, value in enumerate(powers) if value >= goal]
    steady = None
    for n in range(largest, -1, -1):
        if powers[n] < goal:
            break
        steady = n
    smallest = reaching[0] if reaching else None
    return SampleSize(
        target=goal,
        complete=curve.complete,
        favour=curve.favour,
        against=curve.against,
        alpha=curve.alpha,
        minimum_subjects=curve.minimum,
        bound=largest,
        smallest=smallest,
        smallest_power=None if smallest is None else powers[smallest],
        steady=steady,
        steady_power=None if steady is None else powers[steady],
    )
