"""The headline of each run: a dozen numbers, for ``reports/metrics.json`` (so ``dvc exp show``
stays readable) and the top of the HTML report. The full tables live in the reports.

Keys are short because ``dvc exp show`` makes a column of each, and there are at most
:data:`MOST_NUMBERS` per run: ``reuse_ref`` / ``reuse_min`` / ``reuse_max`` are reused cells over
the arm's *scored* cells (duplicated, mixed or reused) at step 1 for the reference arm and the
lowest and highest other arm; ``correct_ref`` the same for correct cells over correct and
incorrect ones (secondary); ``scored_ref`` is ``reuse_ref``'s denominator and ``missing_ref``
the reference arm's step-1 cells left out of it; ``complete`` the fewest complete subjects of
any comparison (below the plan's minimum inference set, ten unless it says otherwise, a
comparison is descriptive only); ``p_min`` the smallest exact sign-test p over the compared arms
and ``sig_arms`` the arms significantly different from the reference, both over the comparisons
with at least the minimum set only (``null`` when there is none); ``effect`` with ``effect_lo``
and ``effect_hi`` the effect size of the step-1 comparison of the reference arm with the last
arm of the plan's order (the strongest manipulation: ``inconsistent``, ``mess-10``, ``ctx-90``)
and its exact 95% interval, a preregistered secondary analysis (:mod:`assay.report.effects`);
``calls_done`` completed provider calls; ``spent_usd`` reported spend; ``identical``, for a run
with other fresh runs of its plan, the share of the answers both gave that are byte-identical.
Missing is never zero: a rate without a scored cell, ``p_min``/``sig_arms`` without a complete
subject, and the effect without a subject scored in both arms are ``null``. What a plan fixes
(its cells, its worst case, whether it awaits authorization) is in the reports and
``assay plan show``, not here; so is whether a run is descriptive only (``complete`` below the
minimum inference set, where ``p_min`` and ``sig_arms`` are ``null``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import Field

from assay.core.records import Frozen
from assay.report.kinds import ABSTRACTION, CORRECTNESS
from assay.report.run_records import OutcomeCount, RunReport
from assay.science.effect import SignFlipEffect

MOST_NUMBERS = 16
"""The most numbers a run's ``reports/metrics.json`` entry holds (docs/reports.md)."""


class Headline(Frozen):
    """One run's headline numbers (a ``reports/metrics.json`` entry; keys as the module says)."""

    simulated: int
    calls_done: int
    complete: int
    reuse_ref: float | None
    scored_ref: int
    missing_ref: int
    reuse_min: float | None
    reuse_max: float | None
    p_min: float | None
    sig_arms: int | None
    effect: float | None
    effect_lo: float | None
    effect_hi: float | None
    correct_ref: float | None
    spent_usd: int | float
    """Reported spend (0 when no call reported any)."""
    identical: float | None = Field(default=None, exclude_if=lambda value: value is None)
    """Only for a run with other fresh runs of its plan."""


def _rate(
    counts: Sequence[OutcomeCount], arm: str, top: str, scale: tuple[str, ...]
) -> float | None:
    cells = [r for r in counts if r.arm == arm and r.step == 1 and r.outcome in scale]
    scored = sum(r.cells for r in cells)
    hit = sum(r.cells for r in cells if r.outcome == top)
    return round(hit / scored, 4) if scored else None


def _denominators(counts: Sequence[OutcomeCount], arm: str) -> tuple[int, int]:
    """The arm's step-1 cells scored on the abstraction scale (``reuse_ref``'s denominator), and
    those that are not (missing evidence, never-sent or ambiguous cells)."""
    cells = [r for r in counts if r.arm == arm and r.step == 1]
    scored = sum(r.cells for r in cells if r.outcome in ABSTRACTION.scale)
    return scored, sum(r.cells for r in cells) - scored


def headline_effect(report: RunReport) -> SignFlipEffect | None:
    """The effect size the headline shows: step 1, the reference arm against the last arm of
    the plan's order."""
    last = report.run.arms[-1]
    return next((t.effect for t in report.sign_tests if t.step == 1 and t.arm == last), None)


def run_headline(abstraction: RunReport, correctness: RunReport) -> Headline:
    run = abstraction.run
    reference = run.reference_arm
    others = [a for a in run.arms if a != reference]
    counts = abstraction.outcome_counts
    tests = [t for t in abstraction.sign_tests if t.step == 1]
    complete = [t.complete_subjects for t in tests]
    # below the minimum inference set a comparison is descriptive only: no p, no significance
    inferred = [t for t in tests if not t.descriptive_only]
    p_values = [t.p_value for t in inferred if t.p_value is not None]
    completed = sum(row.calls for row in abstraction.execution if row.status == "completed")
    reported = sum(row.reported_usd or 0.0 for row in abstraction.execution)
    other_rates = [
        r for r in (_rate(counts, a, "reused", ABSTRACTION.scale) for a in others) if r is not None
    ]
    scored, missing = _denominators(counts, reference)
    effect = headline_effect(abstraction)
    compared = abstraction.reproduction or ()
    both = sum(r.both_answered for r in compared)
    return Headline(
        simulated=int(run.simulated),
        calls_done=completed,
        complete=min(complete) if complete else 0,
        reuse_ref=_rate(counts, reference, "reused", ABSTRACTION.scale),
        scored_ref=scored,
        missing_ref=missing,
        reuse_min=min(other_rates) if other_rates else None,
        reuse_max=max(other_rates) if other_rates else None,
        p_min=min(p_values) if p_values else None,
        sig_arms=sum(1 for t in inferred if t.significant) if p_values else None,
        effect=round(effect.estimate, 4) if effect else None,
        effect_lo=round(effect.ci_low, 4) if effect else None,
        effect_hi=round(effect.ci_high, 4) if effect else None,
        correct_ref=_rate(correctness.outcome_counts, reference, "correct", CORRECTNESS.scale),
        spent_usd=round(reported, 6),
        # fresh runs of the same plan: the share of answers both gave that are byte-identical
        identical=round(sum(r.identical for r in compared) / both, 4) if compared else None,
    )


def headlines(reports: Mapping[str, Mapping[str, RunReport]]) -> dict[str, Headline]:
    """Per run: the headline numbers (``metrics.json``)."""
    return {
        name: run_headline(report, reports[CORRECTNESS.name][name])
        for name, report in sorted(reports[ABSTRACTION.name].items())
    }
