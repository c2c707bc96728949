"""``subjects`` stage: fixture declarations → the realised scenario and its digests."""

from __future__ import annotations

from pathlib import Path

from assay.digest import canonical_json, sha256_hex
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import fixture_sources, load_scenario
from assay.params import Params, ParamsError
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


def run(name: str, params: Params) -> None:
    root = Path(params.fixtures)
    scenario = load_scenario(name, root)
    write_scenario(subset(scenario, params.subject_subset.get(name)))
    write_sources(name, fixture_sources(name, root))
