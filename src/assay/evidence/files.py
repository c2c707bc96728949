"""One reader and one writer per artefact under ``data/``.

Readers validate into the artefact's record; a file that is not there yet is
:class:`~assay.core.errors.MissingEvidence` ("run `dvc repro`"), one that does not validate is
:class:`~assay.core.errors.EvidenceError`, both naming the file.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from assay.core.digest import canonical_json, sha256_hex
from assay.core.errors import EvidenceError, MissingEvidence
from assay.core.tables import read_records, write_records
from assay.evidence import paths
from assay.evidence.catalog import CANDIDATES, CELLS, PROMPTS, Table
from assay.evidence.documents import Authorization, ImageRecord, ScenarioSelfTest
from assay.evidence.plan import Plan, Replanned, load_plan
from assay.evidence.rows import CallRecord, CandidateRow, PromptRow, RunRow, SendReceipt
from assay.fixtures.model import Scenario

Record = TypeVar("Record", bound=BaseModel)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise MissingEvidence(f"{path} is missing: run `uv run dvc repro` first") from None
    except OSError as exc:
        raise EvidenceError(f"cannot read {path}: {exc.strerror}") from None


def read_json(path: Path, model: type[Record]) -> Record:
    try:
        return model.model_validate_json(_read_bytes(path))
    except ValidationError as exc:
        raise EvidenceError(
            f"{path} is not a valid {model.__name__}: {exc.errors()[0]['msg']}"
        ) from None


def write_json(path: Path, record: BaseModel) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")


def read_rows(path: Path, model: type[Record]) -> list[Record]:
    """Every row of one Parquet file, validated into ``model``."""
    if not path.exists():
        raise MissingEvidence(f"{path} is missing: run `uv run dvc repro` first")
    import pyarrow as pa  # on first use: stages that read only JSON records start without it

    try:
        return read_records(path, model)
    except (OSError, pa.ArrowException) as exc:
        raise EvidenceError(f"cannot read {path}: {exc}") from None
    except ValidationError as exc:
        raise EvidenceError(f"{path} does not hold {model.__name__} rows: {exc}") from None


def read_table(table: Table, key: str) -> list[Any]:
    return read_rows(table.path(key), table.row)


def write_table(table: Table, key: str, rows: Sequence[BaseModel]) -> None:
    write_records(table.path(key), table.row, rows)


# subjects


def write_scenario(scenario: Scenario) -> None:
    path = paths.scenario_file(scenario.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(canonical_json(scenario.model_dump(mode="json")) + b"\n")


def read_scenario(name: str) -> Scenario:
    return read_scenario_file(paths.scenario_file(name))


def read_scenario_file(path: Path) -> Scenario:
    return read_json(path, Scenario)


def read_run_scenario(run: str, scenario: str) -> Scenario:
    """The scenario as ``run`` was sent from it (``paths.scenario_source``)."""
    return read_scenario_file(paths.scenario_source("subjects", run, scenario) / "scenario.json")


def write_sources(name: str, sources: dict[str, str]) -> None:
    paths.sources_file(name).write_bytes(canonical_json(sources) + b"\n")


def write_provenance(name: str, provenance: Sequence[BaseModel]) -> None:
    paths.provenance_file(name).write_bytes(canonical_json(list(provenance)) + b"\n")


def read_sources_digest(name: str) -> str:
    return sha256_hex(_read_bytes(paths.sources_file(name)))


# render


def read_prompt_rows(scenario: str) -> dict[tuple[str, str], PromptRow]:
    return {(r.subject, r.arm): r for r in read_table(PROMPTS, scenario)}


def read_run_prompt_rows(run: str, scenario: str) -> dict[tuple[str, str], PromptRow]:
    """The prompts ``run`` was sent (``paths.scenario_source``)."""
    folder = paths.scenario_source(PROMPTS.stage, run, scenario)
    rows: list[PromptRow] = read_rows(folder / PROMPTS.file, PromptRow)
    return {(r.subject, r.arm): r for r in rows}


def read_prompts(scenario: str) -> dict[tuple[str, str], str]:
    return {key: row.prompt for key, row in read_prompt_rows(scenario).items()}


# image and selftest


def load_image_record(path: Path) -> ImageRecord | None:
    """The image record at ``path``, or ``None`` when there is none (or it does not validate)."""
    try:
        return ImageRecord.model_validate_json(path.read_bytes())
    except (FileNotFoundError, ValueError):
        return None


def write_image_record(record: ImageRecord, path: Path) -> None:
    """Atomically, byte-identical for an identical record (so DVC sees no change)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_bytes(canonical_json(record) + b"\n")
    os.replace(partial, path)


def read_image(kind: str = "standard") -> ImageRecord:
    record = load_image_record(paths.image_record(kind))
    if record is None:
        raise MissingEvidence(
            f"{paths.image_record(kind)} is missing: run the image stage (`dvc repro pipeline/image/dvc.yaml`)"
        )
    return record


def write_selftest(scenario: str, report: ScenarioSelfTest) -> None:
    write_json(paths.selftest_file(scenario), report)


def read_selftest(scenario: str) -> ScenarioSelfTest:
    return read_json(paths.selftest_file(scenario), ScenarioSelfTest)


# plan and authorization


def write_plan(plan: Plan) -> None:
    path = paths.plan_file(plan.run)
    path.parent.mkdir(parents=True, exist_ok=True)
    document = json.loads(plan.canonical())
    path.write_text(
        json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    paths.plan_hash_file(plan.run).write_text(plan.hash + "\n", encoding="ascii")


def write_replanned(run: str, replanned: Replanned) -> None:
    write_json(paths.replanned_file(run), replanned)


def read_replanned(run: str, data: Path = paths.DATA) -> Replanned | None:
    """What ``data/plan/<run>/replanned.json`` says (``None``: the run was not planned anew)."""
    path = paths.replanned_file(run, data)
    return read_json(path, Replanned) if path.is_file() else None


def keep_sealed_plan(run: str, sealed_plan: Path, inputs: dict[str, Path], successor: Plan) -> Plan:
    """Make the plan a paid run was sent under its plan again, with the subjects and prompts it
    was sent from beside it (``paths.run_inputs_dir``), and ``successor``, the plan the current
    inputs give, as ``next.json``; the kept plan."""
    for target in (paths.plan_file(run), paths.plan_hash_file(run)):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sealed_plan / target.name, target)
    for stage, source in inputs.items():
        shutil.copytree(source, paths.run_inputs_dir(run) / stage)
    document = json.loads(successor.canonical())
    paths.next_plan_file(run).write_text(
        json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    kept = read_plan(run)
    if kept.hash != paths.plan_hash_file(run).read_text(encoding="ascii").strip():
        raise EvidenceError(f"{sealed_plan}: the sealed plan is not the one its hash names")
    return kept


def read_plan(run_id: str, data: Path = paths.DATA) -> Plan:
    path = paths.plan_file(run_id, data)
    try:
        return load_plan(_read_bytes(path))
    except ValidationError as exc:
        raise EvidenceError(f"{path} is not a plan: {exc.errors()[0]['msg']}") from None


def write_authorization(decision: Authorization) -> None:
    write_json(paths.authorization_file(decision.run), decision)


def read_authorization(run_id: str, data: Path = paths.DATA) -> Authorization:
    return read_json(paths.authorization_file(run_id, data), Authorization)


def is_simulated(plan: Plan, data: Path = paths.DATA) -> bool:
    """A run of the simulated model, or a replay of one (its calls were served by the
    simulated model): labelled as such in every report and never pooled with real runs."""
    if plan.model.provider == "simulated":
        return True
    calls = CELLS.path(plan.run, data)
    if plan.model.provider != "replay" or not calls.exists():
        return False
    import pyarrow.parquet as pq

    served = pq.read_table(calls, columns=["served_provider"]).column("served_provider")
    return "simulated" in served.to_pylist()


def local_model_label(plan: Plan) -> str | None:
    """What a local model is, in words, from the identity its plan bound; ``None`` otherwise."""
    runtime = plan.runtime
    if plan.model.provider != "local" or not runtime:
        return None
    size = f", {runtime['size_label']} parameters" if runtime.get("size_label") else ""
    return (
        f"{runtime.get('name', plan.model.model)}{size} ({runtime['weights_file']}, sha256 "
        f"{runtime['weights_sha256'][:12]}…) on {runtime['runtime']}"
    )


def answers_source_label(plan: Plan) -> str | None:
    """Where an inspect-log run's answers came from, in words, from the log its plan bound
    (``assay.providers.inspect_log.LogSource``); ``None`` for any other run."""
    runtime = plan.runtime
    if not plan.model.answers_fixed or not runtime:
        return None
    return (
        f"the Inspect log {runtime['log']} (sha256 {runtime['log_sha256']}), written by "
        f"Inspect's task {runtime['task']} on the model {runtime['model']}, created "
        f"{runtime['created']}"
    )


def qualification_label(plan: Plan) -> str | None:
    """What a qualification run sends, in words; ``None`` for every other run."""
    if plan.qualification is None:
        return None
    return (
        f"{plan.qualification.sample} of the {plan.qualification.of} cells of "
        f"{plan.scenario}, sent to qualify the route {plan.model.model} via "
        f"{plan.model.provider}"
        + (f" (pinned to {plan.model.provider_pin})" if plan.model.provider_pin else "")
    )


def read_runs(data: Path = paths.DATA, runs: Collection[str] | None = None) -> list[RunRow]:
    """One row per planned run under ``data`` (only those named in ``runs``, when given): its
    plan, and its authorization when decided. A run removed from params.yaml keeps its plan
    folder (DVC does not delete the outputs of a removed foreach stage): ``runs`` leaves it
    out without reading it."""
    rows = []
    for plan_path in sorted(data.glob(paths.plan_file("*", Path()).as_posix())):
        if runs is not None and plan_path.parent.name not in runs:
            continue
        plan = read_plan(plan_path.parent.name, data)
        auth_path = paths.authorization_file(plan.run, data)
        authorization = read_authorization(plan.run, data) if auth_path.exists() else None
        rows.append(
            RunRow(
                run=plan.run,
                scenario=plan.scenario,
                model=plan.model.model,
                provider=plan.model.provider,
                simulated=is_simulated(plan, data),
                local_model=local_model_label(plan),
                answers_source=answers_source_label(plan),
                qualification=qualification_label(plan),
                plan_content=plan.content_hash,
                repeats=plan.repeats,
                arms=plan.arms,
                reference_arm=plan.reference_arm,
                alpha=plan.analysis.alpha,
                minimum_subjects=plan.analysis.minimum_subjects,
                plan_hash=plan.hash,
                authorization=authorization.state if authorization else None,
                cells=len(plan.cells),
                requests=plan.budget.requests,
                admitted_requests=plan.budget.admitted_requests,
                worst_case_usd=plan.budget.worst_case_usd,
                expected_usd=plan.budget.expected_usd,
                preregistered_structure_evaluator=plan.analysis.structure_evaluator,
                preregistered_extraction=plan.analysis.extraction,
            )
        )
    return rows


# execute and extract


def read_calls(run_id: str) -> list[CallRecord]:
    return read_table(CELLS, run_id)


def write_receipt(receipt: SendReceipt) -> None:
    path = paths.receipt_file(receipt.run)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(canonical_json(receipt.model_dump(mode="json")) + b"\n")


def read_receipt(run_id: str) -> SendReceipt:
    return read_json(paths.receipt_file(run_id), SendReceipt)


def read_candidates(run_id: str) -> list[CandidateRow]:
    return read_table(CANDIDATES, run_id)
