"""The primary paired comparison over any set of structural verdicts, not only the SQL view.

Rescoring (another evaluator version) and adjudication (human decisions on ambiguous cells)
each give a run a second set of verdicts. Both are compared with the same
:func:`assay.science.stats.paired_comparison` the SQL report agrees with (tests/report), so a "before"
and an "after" differ only in the verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assay.core.records import ORDINAL_VERDICTS, CellKey, Frozen
from assay.evidence import RunRow
from assay.science.stats import paired_comparison


class Decision(Frozen):
    """What a comparison's test decides (:func:`assay.science.stats.decide`), or that there is none."""

    significant: bool | None
    descriptive_only: bool
    note: str


NOTHING_TO_TEST = Decision(
    significant=None,
    descriptive_only=True,
    note="no complete subject: nothing to test, so no p-value",
)
"""A comparison without one complete subject has no p-value and no decision."""


Verdicts = Mapping[tuple[str, int], str | None]
"""A run's verdicts by ``(cell_id, step)``."""


class CellVerdict(CellKey):
    """A cell's verdict under one structural evaluator version (``None``: missing)."""

    verdict: str | None


class SetComparison(Frozen):
    """The reference arm against one arm at one step, over one set of verdicts."""

    step: int
    arm: str
    complete_subjects: int
    favouring_reference: int
    favouring_arm: int
    ties: int
    p_value: float | None
    significant: bool | None
    descriptive_only: bool
    note: str


def outcomes_by_step(
    cells: Iterable[CellKey], verdicts: Verdicts
) -> dict[int, dict[str, dict[str, list[str | None]]]]:
    """``{step: {subject: {arm: [verdict of each repeat, in repeat order]}}}``."""
    grouped: dict[int, dict[str, dict[str, list[tuple[int, str | None]]]]] = {}
    for cell in cells:
        arms = grouped.setdefault(cell.step, {}).setdefault(cell.subject, {})
        arms.setdefault(cell.arm, []).append((cell.repeat, verdicts.get((cell.cell_id, cell.step))))
    return {
        step: {
            subject: {arm: [v for _, v in sorted(values)] for arm, values in arms.items()}
            for subject, arms in subjects.items()
        }
        for step, subjects in grouped.items()
    }


def comparisons(cells: Iterable[CellKey], verdicts: Verdicts, run: RunRow) -> list[SetComparison]:
    """The reference arm against every other arm, per step, as the primary report computes it."""
    rows = []
    for step, outcomes in sorted(outcomes_by_step(cells, verdicts).items()):
        for arm in run.arms:
            if arm == run.reference_arm:
                continue
            result = paired_comparison(
                outcomes,
                reference_arm=run.reference_arm,
                other_arm=arm,
                repeats=run.repeats,
                scale=ORDINAL_VERDICTS,
                alpha=run.alpha,
                minimum_subjects=run.minimum_subjects,
            )
            complete = bool(result.complete_subjects)
            decision = (
                Decision(
                    significant=result.significant,
                    descriptive_only=result.descriptive_only,
                    note=result.note,
                )
                if complete
                else NOTHING_TO_TEST
            )
            rows.append(
                SetComparison(
                    step=step,
                    arm=arm,
                    complete_subjects=len(result.complete_subjects),
                    favouring_reference=result.favouring_reference,
                    favouring_arm=result.favouring_other,
                    ties=result.ties,
                    p_value=round(result.test.p_value, 10) if complete else None,
                    **decision.model_dump(),
                )
            )
    return rows


def before_and_after(
    before: Iterable[SetComparison], after: Iterable[SetComparison], labels: tuple[str, str]
) -> list[dict[str, object]]:
    """Each comparison of ``before`` beside the same step and arm's of ``after``: its ``step``
    and ``arm``, and ``p_``, ``significant_`` and ``complete_`` of each, suffixed with its
    label (``before``/``after``, ``without``/``with``): the fields of a side-by-side record."""
    matched = {(t.step, t.arm): t for t in after}
    rows = []
    for test in before:
        row: dict[str, object] = {"step": test.step, "arm": test.arm}
        for label, side in zip(labels, (test, matched[(test.step, test.arm)]), strict=True):
            row |= {
                f"p_{label}": side.p_value,
                f"significant_{label}": side.significant,
                f"complete_{label}": side.complete_subjects,
            }
        rows.append(row)
    return rows
