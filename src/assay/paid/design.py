"""What a run's design can decide, as ``assay plan show`` states it before anything is authorized.

For each comparison of the reference arm with another arm: the subjects whose cells of both arms
the plan sends (every repeat), the plan's preregistered alpha and minimum inference set, and the
power of paired-v2 (:mod:`assay.science.power`) at each alternative ``params.yaml: power`` states,
with each subject complete with the stated completeness scaled to the plan's repeats
(:meth:`~assay.config.params.PowerAssumptions.completeness_at`). The assumptions are not part of
any plan: they describe answers not yet seen. A reproduction check and a qualification run are
checks of a route or of determinism, not studies, and get no power.
"""

from __future__ import annotations

from collections import defaultdict

from assay.config.params import PowerAssumptions
from assay.core.records import Frozen
from assay.evidence.plan import Plan
from assay.science.power import PowerResult, power_curve


class ComparisonPower(Frozen):
    """The power of the comparisons of the reference arm with ``arms``, which share a number
    of subjects."""

    reference_arm: str
    arms: tuple[str, ...]
    subjects: int
    powers: dict[str, PowerResult]
    """By the alternative's name in ``params.yaml: power.alternatives``."""


def compared_subjects(plan: Plan) -> dict[str, int]:
    """Per arm other than the reference: the subjects whose cells of both arms the plan sends,
    every repeat of each."""
    sent: dict[tuple[str, str], int] = defaultdict(int)
    subjects = sorted({cell.subject for cell in plan.cells})
    for cell in plan.sendable:
        sent[(cell.subject, cell.arm)] += 1
    return {
        arm: sum(
            1
            for subject in subjects
            if sent[(subject, plan.reference_arm)] >= plan.repeats
            and sent[(subject, arm)] >= plan.repeats
        )
        for arm in plan.arms
        if arm != plan.reference_arm
    }


def design_power(plan: Plan, assumptions: PowerAssumptions) -> tuple[ComparisonPower, ...]:
    """The plan's comparisons grouped by their number of subjects, each with its power at every
    stated alternative."""
    complete = assumptions.completeness_at(plan.repeats)
    curves = {
        name: power_curve(
            complete,
            alternative.favour,
            alternative.against,
            alpha=plan.analysis.alpha,
            minimum_subjects=plan.analysis.minimum_subjects,
        )
        for name, alternative in assumptions.alternatives.items()
    }
    by_size: dict[int, list[str]] = defaultdict(list)
    for arm, subjects in compared_subjects(plan).items():
        by_size[subjects].append(arm)
    return tuple(
        ComparisonPower(
            reference_arm=plan.reference_arm,
            arms=tuple(arms),
            subjects=subjects,
            powers={name: curve.at(subjects) for name, curve in curves.items()},
        )
        for subjects, arms in sorted(by_size.items(), reverse=True)
    )


def _compared(comparison: ComparisonPower) -> str:
    if len(comparison.arms) == 1:
        return f"{comparison.reference_arm} vs {comparison.arms[0]}"
    return (
        f"{comparison.reference_arm} vs each of {len(comparison.arms)} arms "
        f"({', '.join(comparison.arms)})"
    )


def lines(plan: Plan, assumptions: PowerAssumptions) -> list[str]:
    """The power lines of ``assay plan show``."""
    if plan.reproduces is not None or plan.qualification is not None:
        return ["power          not stated: a check of a route or of determinism, not a study"]
    comparisons = design_power(plan, assumptions)
    if not comparisons:
        return []
    analysis = plan.analysis
    shown = []
    for comparison in comparisons:
        at = ", ".join(
            f"{result.power:.3f} if {name} (favour {result.favour:g}, against {result.against:g})"
            for name, result in comparison.powers.items()
        )
        shown.append(
            f"power          {_compared(comparison)}: {comparison.subjects} subjects, alpha "
            f"{analysis.alpha:g}, at least {analysis.minimum_subjects} complete: {at}"
        )
    first = next(iter(comparisons[0].powers.values()))
    shown.append(
        f"assumed        each subject complete with probability {first.complete:.3f} at "
        f"{plan.repeats} repeat{'s' if plan.repeats != 1 else ''} (params.yaml power: "
        f"{assumptions.completeness:g} at "
        f"{assumptions.completeness_repeats}), so P(at least {analysis.minimum_subjects} complete) "
        f"= {first.enough_complete:.3f} over {comparisons[0].subjects} subjects; other designs: "
        "`assay power`"
    )
    return shown
