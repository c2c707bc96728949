"""The two reports and their scales. They share one SQL structure (lower median over repeats,
complete subjects only, the paired sign test) but never share evidence: the abstraction report
reads only structural verdicts and the correctness report only correctness results."""

from __future__ import annotations

from assay.core.records import MISSING_STATES, ORDINAL_CORRECTNESS, ORDINAL_VERDICTS, Frozen


class ReportKind(Frozen):
    name: str
    """``abstraction`` (primary) or ``correctness`` (secondary)."""
    prefix: str
    """Prefix of its SQL views: ``outcomes``/``arm_medians``/``pairs`` vs ``correctness_…``."""
    scale: tuple[str, ...]
    """Lowest first."""
    title: str
    confirmatory: bool
    """Only the primary (abstraction) report tests a hypothesis; the correctness report is a
    secondary diagnostic: its sign tests are descriptive and never called significant."""
    off_scale: tuple[str, ...]
    """Every other outcome a cell can have, in legend order: off-scale values, then the missing
    states (:data:`assay.core.records.MissingState`)."""

    @property
    def outcomes(self) -> tuple[str, ...]:
        """Every outcome in legend order: the scale from the top, then :attr:`off_scale`."""
        return (*reversed(self.scale), *self.off_scale)

    @property
    def scale_sql(self) -> str:
        return "[" + ", ".join(f"'{value}'" for value in self.scale) + "]"


def _kind(
    name: str, scale: tuple[str, ...], title: str, unscored: str, *, confirmatory: bool
) -> ReportKind:
    """The primary (confirmatory) report's views carry no prefix, a secondary report's its name;
    off its scale are ``unscored`` (its own), ``rejected`` and the missing states."""
    return ReportKind(
        name=name,
        prefix="" if confirmatory else f"{name}_",
        scale=scale,
        title=title,
        confirmatory=confirmatory,
        off_scale=(unscored, "rejected", *MISSING_STATES),
    )


ABSTRACTION = _kind(
    "abstraction", ORDINAL_VERDICTS, "Abstraction report (primary)", "ambiguous", confirmatory=True
)
CORRECTNESS = _kind(
    "correctness",
    ORDINAL_CORRECTNESS,
    "Correctness report (secondary: finite-case correctness, not evidence of reuse)",
    "skipped",
    confirmatory=False,
)
KINDS = (ABSTRACTION, CORRECTNESS)
