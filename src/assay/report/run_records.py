"""The per-run report as declared records: the rows each query gives (one record per query,
read at the SQL boundary, :mod:`assay.report.query`), the rows Python adds, and
:class:`RunReport`, whose ``model_dump(mode="json")`` is the report's JSON file
(``data/report/runs/<run>/<kind>.json``; export recomputes it byte for byte).

Field names are the JSON's keys. A row record leaves out the ``run`` column its query groups by.
"""

from __future__ import annotations

from pydantic import Field

from assay.core.records import Frozen
from assay.evidence import RunRow
from assay.evidence.plan import PreregisteredChange, Preregistration, Replanned
from assay.science.effect import SignFlipEffect


def _absent(value: object) -> bool:
    return value is None


def preregistration_of(run: RunRow) -> Preregistration:
    """The run's preregistration as its plan gave it (the report's ``runs`` row)."""
    return Preregistration(
        alpha=run.alpha,
        minimum_subjects=run.minimum_subjects,
        repeats=run.repeats,
        structure_evaluator=run.preregistered_structure_evaluator,
        extraction=run.preregistered_extraction,
    )


class LabelledRun(RunRow):
    """The ``runs`` view: :class:`~assay.evidence.RunRow` and its labels in words."""

    mode: str
    """How the run was prompted (:func:`assay.report.modes.plan_mode`)."""
    kind: str
    """What answered it (:func:`assay.report.modes.plan_kind`)."""


class ReportedRun(LabelledRun):
    """A run as its report states it: with the versions its evidence was actually scored and
    extracted with."""

    structure_evaluator: tuple[int, ...] = ()
    """The structural evaluator versions of the run's verdicts (empty in a correctness report)."""
    extraction: tuple[int, ...] = ()
    """The extraction versions of the run's candidates."""


class Comparison(Frozen):
    """``comparisons.sql``: the reference arm against one arm at one step."""

    step: int
    arm: str
    reference_arm: str
    complete_subjects: int
    incomplete_subjects: int
    favouring_reference: int
    favouring_arm: int
    ties: int
    p_value: float | None
    alpha: float
    minimum_subjects: int


class SignTest(Comparison):
    """A comparison with its decision (:func:`assay.science.stats.decide`) and Holm-adjusted p,
    and beside it the effect size (:mod:`assay.report.effects`): a preregistered secondary
    analysis that never decides ``significant``."""

    p_holm: float | None = None
    significant: bool | None
    descriptive_only: bool
    note: str
    effect: SignFlipEffect | None = None
    """The mean per-subject rate difference with its exact p and 95% interval; ``None`` when no
    subject has a scored cell in both arms."""


class OutcomeCount(Frozen):
    """``verdict_counts.sql``: cells per step, arm and outcome."""

    step: int
    arm: str
    outcome: str
    cells: int


class SubjectCells(Frozen):
    """``subject_table.sql``: one subject's cells at one arm and step, and their lower median."""

    step: int
    subject: str
    arm: str
    cells: str
    complete: bool
    lower_median: str | None


class ExecutionCount(Frozen):
    """``execution.sql``: provider calls per status with what they reserved and reported."""

    status: str
    calls: int
    reserved_usd: float | None
    reported_usd: float | None


class Excluded(Frozen):
    """``scenario_excluded.sql``: cells the plan left out, per arm and reason."""

    scenario: str
    arm: str
    model: str
    cells: int
    reason: str


class StopCause(Frozen):
    """``stops.sql``: calls not completed (or halting), by status and cause."""

    status: str
    cause: str
    calls: int
    example: str


class FirstFailure(Frozen):
    """``halts.sql``: the run's first failing call."""

    cell_id: str
    step: int
    status: str
    reason: str | None
    detail: str | None
    halted: bool


class Retry(Frozen):
    """``retries.sql``: a call that took more than one attempt."""

    cell_id: str
    step: int
    status: str
    attempts: int


class Agreement(Frozen):
    """``repeat_agreement.sql``: how often one arm's repeats agree at one step."""

    step: int
    arm: str
    subjects: int
    scored_subjects: int
    same_outcome: int
    answered_subjects: int
    identical_text: int


class AgreementRow(Agreement):
    """:class:`Agreement` as the query gives it: with the arm's place in the run's arm order."""

    arm_order: int


class Reproduction(Frozen):
    """``reproduction.sql``: the run's answers against another fresh run of the same plan."""

    other_run: str
    both_answered: int
    identical: int
    answered: int
    other_answered: int


class Stopped(Frozen):
    """Why a run stopped, in words, with the counts behind it."""

    summary: str
    first_failure: FirstFailure | None
    causes: tuple[StopCause, ...]
    retried: tuple[Retry, ...]
    overspend: str | None


class ShownRate(Frozen):
    """An arm's step-1 rate with its numerator, denominator and unscored cells."""

    arm: str
    hits: int
    scored: int
    cells: int
    unscored: int
    rate: float | None
    text: str


class MissingnessFlag(Frozen):
    """An arm whose share of unscored cells differs from the reference arm's (Fisher exact)."""

    arm: str
    reference_arm: str
    unscored: int
    cells: int
    reference_unscored: int
    reference_cells: int
    p_value: float


class AdjudicatedEntry(Frozen):
    """A decided cell, by its cell id."""

    cell_id: str
    step: int
    verdict: str
    rationale: str
    adjudicator: str


class AdjudicatedTest(Frozen):
    """One comparison without and with the adjudicated verdicts."""

    step: int
    arm: str
    p_without: float | None
    p_with: float | None
    significant_without: bool | None
    significant_with: bool | None
    complete_without: int
    complete_with: int


class Adjudicated(Frozen):
    """The primary comparison with and without human adjudication of ambiguous cells."""

    source: str
    version: int
    ambiguous_cells: int
    adjudicated_cells: int
    entries: tuple[AdjudicatedEntry, ...]
    tests: tuple[AdjudicatedTest, ...]
    entries_for_undeclared_runs: tuple[str, ...]


class Deviation(Frozen):
    """A second result beside the primary one, computed with the analysis params.yaml gives now
    where it differs from the run's preregistration (``assay.report.deviation``); never in the
    primary result's place."""

    label: str
    """``deviation from the preregistered analysis``: what this result is, in every report."""
    preregistered: Preregistration
    now: Preregistration
    changes: tuple[PreregisteredChange, ...]
    """Each field that differs, preregistered → now."""
    sign_tests: tuple[SignTest, ...]
    """The sign tests decided with the alpha and minimum subjects params.yaml gives now (empty
    when neither changed)."""
    not_recomputed: tuple[str, ...]
    """Each changed field this result cannot apply, and where its effect is shown instead."""


class RunReport(Frozen):
    """One run's report of one kind (abstraction, or correctness beside it). ``reproduction``,
    ``rescoring`` and ``adjudication`` come from other evidence than the run's own (other runs,
    other versions, human decisions): present only when there is some, and never in an export
    bundle's report."""

    report: str
    """The kind's name: ``abstraction`` or ``correctness``."""
    scale: tuple[str, ...]
    scope: str | None = Field(default=None, exclude_if=_absent)
    """The primary report's statement of what its tasks are (the seed's controlled-probes
    sentence, :data:`assay.report.effects.CONTROLLED_PROBES`)."""
    run: ReportedRun
    execution: tuple[ExecutionCount, ...]
    excluded: tuple[Excluded, ...]
    stopped: Stopped
    outcome_counts: tuple[OutcomeCount, ...]
    subjects: tuple[SubjectCells, ...]
    sign_tests: tuple[SignTest, ...]
    repeat_agreement: tuple[Agreement, ...]
    rates: tuple[ShownRate, ...]
    missingness: tuple[MissingnessFlag, ...]
    reproduction: tuple[Reproduction, ...] | None = Field(default=None, exclude_if=_absent)
    rescoring: tuple[str, ...] | None = Field(default=None, exclude_if=_absent)
    adjudication: Adjudicated | None = Field(default=None, exclude_if=_absent)
    deviation: Deviation | None = Field(default=None, exclude_if=_absent)
    """Present only when params.yaml's analysis differs from the run's preregistration."""
    replanned: Replanned | None = Field(default=None, exclude_if=_absent)
    """Present only for a free run planned anew after it began under another plan."""
