"""Every rate with its numerator, its denominator and what is missing, per arm; and arms whose
missing evidence differs more than chance would make it.

A reuse rate is reused cells over the arm's *scored* cells (duplicated, mixed or reused) at step
1; the cells that are not scored (ambiguous, rejected, and the missing states) are counted
beside it, never hidden in it. When the share of unscored cells differs between the reference
arm and another arm (two-sided Fisher exact test at the plan's alpha), the arms are no longer
compared on like samples: the report flags it, with both counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.core.records import Frozen
from assay.report.kinds import ReportKind
from assay.report.run_records import MissingnessFlag, OutcomeCount


class ArmRate(Frozen):
    arm: str
    hits: int
    """Cells at the top of the scale (reused; correct)."""
    scored: int
    """Cells on the scale: the rate's denominator."""
    cells: int
    """Every cell of the arm at step 1."""

    @property
    def unscored(self) -> int:
        return self.cells - self.scored

    @property
    def rate(self) -> float | None:
        return round(self.hits / self.scored, 4) if self.scored else None

    def text(self) -> str:
        """``10 of 14 (0.71), 10 not scored`` — or ``— (0 scored), 24 not scored``."""
        rate = f"{self.hits} of {self.scored} ({self.rate:.2f})" if self.scored else "— (0 scored)"
        return f"{rate}, {self.unscored} not scored" if self.unscored else rate


def arm_rates(
    outcome_counts: Sequence[OutcomeCount], arms: Sequence[str], kind: ReportKind
) -> list[ArmRate]:
    """Step 1 of every arm of the run (``arms``, in the run's arm order)."""
    counts = [row for row in outcome_counts if row.step == 1]
    rates = []
    for arm in arms:
        rows = [row for row in counts if row.arm == arm]
        rates.append(
            ArmRate(
                arm=arm,
                hits=sum(r.cells for r in rows if r.outcome == kind.scale[-1]),
                scored=sum(r.cells for r in rows if r.outcome in kind.scale),
                cells=sum(r.cells for r in rows),
            )
        )
    return rates


def differential_missingness(
    rates: list[ArmRate], reference: str, alpha: float
) -> list[MissingnessFlag]:
    """Arms whose share of unscored cells differs from the reference arm's (Fisher exact)."""
    by_arm = {rate.arm: rate for rate in rates}
    base = by_arm.get(reference)
    if base is None:
        return []
    flagged = []
    for rate in rates:
        if rate.arm == reference or rate.unscored == base.unscored:
            continue
        # imported only for a table to test: scipy.stats costs about a second to import
        from scipy.stats import fisher_exact

        table = [[base.unscored, base.scored], [rate.unscored, rate.scored]]
        p = float(fisher_exact(table).pvalue)
        if p < alpha:
            flagged.append(
                MissingnessFlag(
                    arm=rate.arm,
                    reference_arm=reference,
                    unscored=rate.unscored,
                    cells=rate.cells,
                    reference_unscored=base.unscored,
                    reference_cells=base.cells,
                    p_value=round(p, 6),
                )
            )
    return flagged


def missingness_line(flag: MissingnessFlag) -> str:
    return (
        f"**Missing evidence differs between arms:** {flag.arm} has {flag.unscored} of "
        f"{flag.cells} cells not scored, {flag.reference_arm} {flag.reference_unscored} "
        f"of {flag.reference_cells} (two-sided Fisher exact p = {flag.p_value:.3g}): the "
        "arms are compared on unlike samples, and the sign test sees only complete subjects."
    )


def descriptive_text(complete: int, minimum: int) -> str:
    """What stands in place of a p-value below the minimum inference set."""
    return f"descriptive only ({complete} of {minimum})"
