"""``subjects`` stage: fixture declarations → every realised scenario and its digests.

One stage realises every scenario of ``params.yaml``: each already re-ran on any fixture edit
(they all read ``fixtures/`` and ``subject_subset``), and a scenario whose realisation is
unchanged keeps its bytes, so what reads it does not re-run. Every scenario is realised, and so
checked, before the first is written: its declarations, and that its arms differ only where the
scenario says they may (:mod:`assay.fixtures.manipulation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay import evidence
from assay.config.params import ParamsError
from assay.core.records import Frozen
from assay.evidence import SubjectRow
from assay.fixtures.codebase import SCENARIO_NAMES as CODEBASE_SCENARIOS
from assay.fixtures.codebase import SubjectProvenance
from assay.fixtures.codebase import build as build_codebase_scenario
from assay.fixtures.manipulation import ManipulationError
from assay.fixtures.manipulation import problems as manipulation_problems
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import fixture_sources, load_scenario
from assay.pipeline.stage_params import Declaration, StageParams


def subject_rows(scenario: Scenario) -> list[SubjectRow]:
    return [
        SubjectRow(
            scenario=scenario.name,
            subject=s.id,
            family=s.task.family,
            arm=arm.name,
            subject_digest=s.digest,
            arm_digest=s.arm_digest(arm.name),
            target=s.target,
            helper=s.task.helper,
            helper_module=s.task.helper_module,
            primitives=s.task.primitives,
            sandbox=arm.sandbox,
            repository_bytes=sum(len(f.text.encode()) for f in arm.files),
        )
        for s in scenario.subjects
        for arm in s.arms
    ]


def subset(scenario: Scenario, subject_ids: tuple[str, ...] | None) -> Scenario:
    """``scenario`` with only ``subject_ids`` (in the scenario's order); all when ``None``."""
    if subject_ids is None:
        return scenario
    known = [s.id for s in scenario.subjects]
    unknown = [i for i in subject_ids if i not in known]
    if unknown:
        raise ParamsError(
            f"params.yaml: field 'subject_subset.{scenario.name}': unknown subject(s) "
            f"{', '.join(unknown)} (known: {', '.join(known)})"
        )
    chosen = tuple(s for s in scenario.subjects if s.id in subject_ids)
    return scenario.model_copy(update={"subjects": chosen})


@dataclass(frozen=True)
class Realised:
    scenario: Scenario
    sources: dict[str, str]
    provenance: tuple[SubjectProvenance, ...] | None


PARAMS = Declaration(keys=("fixtures", "scenarios", "subject_subset"))


class SubjectsParams(Frozen):
    fixtures: Path
    scenarios: tuple[str, ...]
    subject_subset: dict[str, tuple[str, ...]]


def read_params(params: StageParams) -> SubjectsParams:
    return SubjectsParams(
        fixtures=Path(params.typed("fixtures", str)),
        scenarios=params.typed("scenarios", tuple[str, ...]),
        subject_subset=params.typed("subject_subset", dict[str, tuple[str, ...]]),
    )


def realise(name: str, params: SubjectsParams) -> Realised:
    root = params.fixtures
    provenance = None
    if name in CODEBASE_SCENARIOS:
        scenario, provenance = build_codebase_scenario(name, root)
    else:
        scenario = load_scenario(name, root)
    scenario = subset(scenario, params.subject_subset.get(name))
    return Realised(scenario, fixture_sources(name, root), provenance)


def write(realised: Realised) -> None:
    name = realised.scenario.name
    evidence.write_scenario(realised.scenario)
    if realised.provenance is not None:
        evidence.write_provenance(name, realised.provenance)
    evidence.write_table(evidence.SUBJECTS, name, subject_rows(realised.scenario))
    evidence.write_sources(name, realised.sources)


def run(params: StageParams) -> None:
    declared = read_params(params)
    realised = [realise(name, declared) for name in declared.scenarios]
    broken = [line for each in realised for line in manipulation_problems(each.scenario)]
    if broken:
        raise ManipulationError(broken)
    for each in realised:
        write(each)
