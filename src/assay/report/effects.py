"""The effect size beside every paired sign test, as the reports state it: a preregistered
secondary analysis that never replaces the paired-v2 sign test (which alone decides
``significant``).

Per subject, each arm's rate over its scored cells at one step, every repeat (``reused /
(reused + mixed + duplicated)``; ``correct / (correct + incorrect)`` in the correctness report),
from ``queries/rate_differences.sql``; the reference arm's rate minus the other arm's over the
subjects scored in both; their mean with its exact sign-flip p and 95% interval
(:func:`assay.science.effect.sign_flip_effect`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assay.core.records import Frozen
from assay.science.effect import SignFlipEffect, rate_difference, sign_flip_effect

EFFECT_NOTE = (
    "Effect size, a preregistered secondary analysis that never replaces the paired-v2 sign "
    "test above: per subject scored in both arms, the reference arm's rate over its scored "
    "cells (every repeat) minus the other arm's; the effect is their mean, with the exact "
    "two-sided sign-flip permutation p and the 95% interval that inverts that test "
    "(docs/statistics.md)."
)
CONTROLLED_PROBES = (
    "The tasks are controlled probes, not a representative sample of production software "
    "engineering."
)
"""The seed's sentence, stated in every primary report."""


class RatePair(Frozen):
    """``rate_differences.sql``: one subject's rates at the reference arm and one other arm."""

    step: int
    arm: str
    subject: str
    reference_hits: int
    reference_scored: int
    arm_hits: int
    arm_scored: int


def effect_of(pairs: Sequence[RatePair]) -> SignFlipEffect | None:
    """The effect over ``pairs`` (one comparison's subjects); ``None`` without a subject."""
    if not pairs:
        return None
    return sign_flip_effect(
        [
            rate_difference((p.reference_hits, p.reference_scored), (p.arm_hits, p.arm_scored))
            for p in pairs
        ]
    )


def effects_by_comparison(
    pairs: Iterable[RatePair],
) -> dict[tuple[int, str], SignFlipEffect | None]:
    """Per ``(step, arm)`` compared with the reference: its effect."""
    grouped: dict[tuple[int, str], list[RatePair]] = {}
    for pair in pairs:
        grouped.setdefault((pair.step, pair.arm), []).append(pair)
    return {key: effect_of(rows) for key, rows in grouped.items()}


def signed(value: float) -> str:
    """``+0.65``, ``−0.125``, ``0``: a rate difference to at most three decimals."""
    text = f"{value:+.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("+0", "-0") else text.replace("-", "−")


def interval_text(effect: SignFlipEffect) -> str:
    """``[+0.125, +1]``."""
    return f"[{signed(effect.ci_low)}, {signed(effect.ci_high)}]"


def effect_text(effect: SignFlipEffect | None) -> str:
    """``+0.65 [+0.125, +1], p = 0.03906 (10 subjects)``; ``—`` without a subject."""
    if effect is None:
        return "—"
    return (
        f"{signed(effect.estimate)} {interval_text(effect)}, p = {effect.p_value:.4g} "
        f"({effect.subjects} subject{'s' * (effect.subjects != 1)})"
    )


EFFECT_COLUMNS = ["step", "reference_arm", "arm", "subjects", "non-zero", "effect",
                  "95% interval", "p (sign-flip)", "method"]  # fmt: skip


def effect_cells(step: int, reference: str, arm: str, effect: SignFlipEffect | None) -> list[str]:
    """One comparison's row of :data:`EFFECT_COLUMNS`."""
    if effect is None:
        return [str(step), reference, arm, "0", "—", "—", "—", "—", "no subject scored in both"]
    return [
        str(step),
        reference,
        arm,
        str(effect.subjects),
        str(effect.non_zero),
        signed(effect.estimate),
        interval_text(effect),
        f"{effect.p_value:.4g}",
        effect.method,
    ]
