"""``measure`` stage: every gate-accepted output as a change to its arm's repository, measured
before and after by pinned, established tools (``assay.metrics``), in long form.

Only outputs that are code and passed the source gate are changes to measure; the others get
no rows (they are missing evidence in the other tables already). No provider and no sandbox are
involved, so metrics can be recomputed on any stored or replayed run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from assay import evidence
from assay.compute.measure import measure_placed
from assay.config.params import Compute
from assay.core.errors import EvidenceError
from assay.evidence import CandidateRow, MetricRow, PlacementRow
from assay.fixtures.model import Scenario
from assay.metrics import MeasureItem, Measurement, measure
from assay.pipeline.stage_params import Declaration, StageParams
from assay.science.gate import check_source


def load_items(candidates: Sequence[CandidateRow], scenario: Scenario) -> list[MeasureItem]:
    """Every gate-accepted code output of the run as a change to its arm's repository.

    Only a chain's first step is a change to the arm's repository as declared; later steps
    build on the model's own earlier outputs and are not measured.
    """
    items: list[MeasureItem] = []
    for candidate in candidates:
        if candidate.extract_status != "code" or candidate.source is None or candidate.step > 1:
            continue
        try:
            subject = scenario.subject(candidate.subject)
            arm = subject.arm(candidate.arm)
        except KeyError as exc:
            raise EvidenceError(f"cell {candidate.cell_id}: {exc.args[0]}") from None
        task = subject.task
        gate = check_source(candidate.source, helper=task.helper, helper_module=task.helper_module)
        if not gate.accepted:
            continue
        items.append(
            MeasureItem(
                cell_id=candidate.cell_id,
                repo_key=subject.arm_digest(arm.name),
                files=arm.files,
                target=subject.target,
                candidate=candidate.source,
            )
        )
    return items


def metric_rows(
    candidates: Sequence[CandidateRow], measurements: Sequence[Measurement]
) -> list[MetricRow]:
    """Each measurement with its output's whole cell key (only first steps are measured)."""
    keys = {c.cell_id: c.key() for c in candidates if c.step == 1}
    return [MetricRow(**keys[m.cell_id], **m.model_dump(exclude={"cell_id"})) for m in measurements]


def measure_run(
    candidates: Sequence[CandidateRow], scenario: Scenario, *, workers: int
) -> list[MetricRow]:
    """Measure a stored run's candidates: one row per (output, tool, metric)."""
    items = load_items(candidates, scenario)
    return metric_rows(candidates, measure(items, workers=workers))


def plan_metric_tools(tools: Mapping[str, str]) -> dict[str, str]:
    """The metric tool versions a run's plan recorded (its ``metrics/<tool>`` entries)."""
    return {k.removeprefix("metrics/"): v for k, v in tools.items() if k.startswith("metrics/")}


PARAMS = Declaration(placement=True)


def read_params(params: StageParams) -> Compute:
    """Where to measure (``compute``)."""
    return params.placement()


def run(run_id: str, params: StageParams) -> None:
    compute = read_params(params)
    plan = evidence.read_plan(run_id)
    scenario = evidence.read_run_scenario(run_id, plan.scenario)
    candidates = evidence.read_candidates(run_id)
    items = load_items(candidates, scenario)
    expected = plan_metric_tools(plan.tools) if compute.distributed else {}
    placed = measure_placed(items, compute, expected, local_workers=os.cpu_count() or 1)
    rows = metric_rows(candidates, [m for p in placed for m in p.value])
    keys = {c.cell_id: c.key() for c in candidates if c.step == 1}
    placements = [
        PlacementRow(**keys[item.cell_id], stage="measure", worker=p.worker, engine="-")
        for item, p in zip(items, placed, strict=True)
    ]
    evidence.write_table(evidence.METRICS, run_id, rows)
    evidence.write_table(evidence.METRIC_PLACEMENTS, run_id, placements)
