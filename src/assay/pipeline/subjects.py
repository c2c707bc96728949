"""``subjects`` stage: fixture declarations → the realised scenario and its digests."""

from __future__ import annotations

from pathlib import Path

from assay.digest import canonical_json, sha256_hex
from assay.fixtures.codebase import SCENARIO_NAMES as CODEBASE_SCENARIOS
from assay.fixtures.codebase import SubjectProvenance
from assay.fixtures.codebase import build as build_codebase_scenario
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import fixture_sources, load_scenario
from assay.params import Params
from assay.pipeline import paths
from assay.records import Frozen
from assay.tables import write_records


class SubjectRow(Frozen):
    scenario: str
    subject: str
    family: str
    arm: str
    subject_digest: str
    arm_digest: str
    target: str
    helper: str
    helper_module: str | None
    primitives: tuple[str, ...]
    sandbox: str
    repository_bytes: int


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


def write_scenario(scenario: Scenario) -> None:
    path = paths.scenario_file(scenario.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(canonical_json(scenario.model_dump(mode="json")) + b"\n")
    write_records(paths.subjects_table(scenario.name), SubjectRow, subject_rows(scenario))


def write_sources(name: str, sources: dict[str, str]) -> None:
    paths.sources_file(name).write_bytes(canonical_json(sources) + b"\n")


def read_sources_digest(name: str) -> str:
    return sha256_hex(paths.sources_file(name).read_bytes())


def read_scenario(name: str) -> Scenario:
    return Scenario.model_validate_json(paths.scenario_file(name).read_bytes())


def write_provenance(name: str, provenance: tuple[SubjectProvenance, ...]) -> None:
    """Where each subject's code comes from (project, version, sha256, files with digests)."""
    paths.provenance_file(name).write_bytes(canonical_json(provenance) + b"\n")


def run(name: str, params: Params) -> None:
    root = Path(params.fixtures)
    if name in CODEBASE_SCENARIOS:
        scenario, provenance = build_codebase_scenario(name, root)
        write_scenario(scenario)
        write_provenance(name, provenance)
    else:
        write_scenario(load_scenario(name, root))
    write_sources(name, fixture_sources(name, root))
