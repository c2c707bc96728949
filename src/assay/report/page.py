"""What the HTML study report's template reads: the page and its views, as records built by
:mod:`assay.report.html` from the report records (nothing here is written to a JSON file but
the parts the page embeds as JSON, which are plain JSON documents)."""

from __future__ import annotations

from assay.core.records import Frozen
from assay.report.charts import VegaLite
from assay.report.codebase_sets import CodebaseSets
from assay.report.compare import ModelComparison
from assay.report.costs import Costs, PivotRow
from assay.report.headline import Headline
from assay.report.provenance import Provenance
from assay.report.run_records import Adjudicated, ReportedRun, RunReport
from assay.report.scenarios import (
    ArmCells,
    ScenarioExcluded,
    ScenarioRun,
    ScenarioTest,
    SubjectMedians,
)

Pairs = dict[str, dict[str, list[str]]]
"""Per ``step/arm`` compared with the reference: the subjects in each direction (``for`` = the
reference arm higher, ``against``, ``tie``, ``incomplete``)."""

Json = dict[str, object]
"""A JSON document the page embeds (``tojson``): the paired view's data."""


class OutcomeTableRow(Frozen):
    step: int
    arm: str
    counts: dict[str, int]
    """Cells by outcome."""


class OutcomeTable(Frozen):
    """Cells per step and arm by outcome, columns in legend order (only outcomes present)."""

    columns: list[str]
    rows: list[OutcomeTableRow]


class RunView(Frozen):
    """One run's section: the report, its qualifiers and the links behind its numbers."""

    run: ReportedRun
    report: RunReport
    secondary: RunReport
    deviation: bool
    extraction_deviation: bool
    rescoring: list[str]
    adjudication: Adjudicated | None
    arms_note: str | None
    pairs: Pairs
    secondary_pairs: Pairs
    outcomes: OutcomeTable
    secondary_outcomes: OutcomeTable


class QualifiedHeadline(Frozen):
    """The headline's rates with their numerators and denominators, and what stands in place
    of a p-value below the minimum inference set."""

    reference: str
    lowest: str
    highest: str
    unscored_others: int
    descriptive: str | None
    missingness: bool


class ScenarioRowView(Frozen):
    """One arm of a scenario step, each run's value side by side (``None``: no such cell)."""

    arm: str
    cells: list[ArmCells | None]
    subjects: list[SubjectMedians | None]
    tests: list[ScenarioTest | None]


class ScenarioStepView(Frozen):
    step: int
    rows: list[ScenarioRowView]


class ScenarioView(Frozen):
    name: str
    codebase: bool
    runs: tuple[ScenarioRun, ...]
    simulated: bool
    steps: list[ScenarioStepView]
    excluded: tuple[ScenarioExcluded, ...]
    comparisons: tuple[ModelComparison, ...]


class HaltedRun(Frozen):
    run: str
    summary: str


class Page(Frozen):
    """Everything the page's template reads."""

    provenance: Provenance
    runs: list[ReportedRun]
    """Real runs first, then simulated ones, each by name."""
    run_views: list[RunView]
    pooled_runs: list[str]
    headlines: dict[str, Headline]
    qualified: dict[str, QualifiedHeadline]
    any_simulated: bool
    all_simulated: bool
    awaiting: list[ReportedRun]
    primary: list[RunReport]
    secondary: list[RunReport]
    test_columns: list[str]
    charts: dict[str, VegaLite | None]
    scenarios: list[ScenarioView]
    codebase_scenarios: list[ScenarioView]
    codebase_sets: CodebaseSets
    codebase_table: list[tuple[str, list[tuple[str, str | None]]]]
    costs: Costs
    cost_by_verdict: list[PivotRow]
    cost_labels: dict[str, str]
    verdicts: tuple[str, ...]
    undrawn: list[str]
    halted: list[HaltedRun]
    cells: str
    """Every cell, its texts stored once, compressed (:mod:`assay.report.cell_payload`)."""
    paired: Json
    style: str
    script: str
    vega: str
