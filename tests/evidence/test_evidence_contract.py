"""The evidence contract: TABLES agree with dvc.yaml's outputs, readers name the missing file,
and the runs view is read through the plan and authorization models."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay import evidence
from assay.core.errors import EvidenceError, MissingEvidence
from assay.core.tables import schema_for
from tests.dvc_stages import stage_bodies


def _declared_outs() -> set[str]:
    outs: set[str] = set()
    for body in stage_bodies().values():
        for out in body.get("outs", []):
            outs.add(next(iter(out)) if isinstance(out, dict) else out)
    return outs


@pytest.mark.parametrize("table", evidence.TABLES, ids=lambda t: t.view)
def test_every_table_lives_in_a_declared_stage_output(table: evidence.Table) -> None:
    key = "${item}" if table.per == "scenario" else "${key}"
    # one stage per scenario or run, or one stage for all (subjects, render)
    assert {f"data/{table.stage}/{key}", f"data/{table.stage}"} & _declared_outs()
    assert table.path("x") == Path("data", table.stage, "x", table.file)
    schema_for(table.row)  # every row type has an Arrow schema


def test_view_names_are_unique() -> None:
    views = [t.view for t in evidence.TABLES]
    assert len(views) == len(set(views))


def test_missing_artefacts_name_their_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MissingEvidence, match=r"data/plan/r1/plan\.json is missing"):
        evidence.read_plan("r1")
    with pytest.raises(MissingEvidence, match=r"data/extract/r1/candidates\.parquet is missing"):
        evidence.read_candidates("r1")
    with pytest.raises(MissingEvidence, match="dvc repro pipeline/image/dvc.yaml"):
        evidence.read_image()


def test_a_garbled_artefact_is_an_evidence_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = evidence.authorization_file("r1")
    path.parent.mkdir(parents=True)
    path.write_text('{"run": "r1"}', encoding="utf-8")
    with pytest.raises(EvidenceError, match="authorization.json is not a valid Authorization"):
        evidence.read_authorization("r1")


@pytest.mark.parametrize(
    ("provider", "served", "simulated"),
    [
        ("simulated", None, True),
        ("replay", "simulated", True),  # a replay of a simulated run stays simulated
        ("replay", "openrouter", False),
        ("openrouter", "simulated", False),  # only a replay inherits what served it
    ],
)
def test_a_run_is_simulated_when_its_answers_come_from_the_stand_in(
    tmp_path: Path, provider: str, served: str | None, simulated: bool
) -> None:
    from assay.core.tables import write_records
    from assay.evidence import CallRecord
    from assay.paid.plan import Plan
    from assay.report.database import connect
    from assay.report.primary import SIMULATED_BANNER, build_reports, render_markdown

    plan = Plan.model_validate({
        "run": "r", "scenario": "v1", "fixture_sources": "0" * 64, "prompt_profile": "v1",
        "repeats": 1, "arms": ["clean", "inconsistent"], "reference_arm": "clean",
        "schedule": "blocked", "cells": [], "tools": {},
        "model": {"model": "m", "provider": provider, "replay_ledger": "ledger/src/h"},
        "analysis": {"alpha": 0.05, "minimum_subjects": 10, "structure_evaluator": 7},
        "budget": {"paid": False, "ceiling_usd": 0.0, "reservation_usd": 0.0, "requests": 0,
                   "admitted_requests": 0, "worst_case_usd": 0.0},
    })  # fmt: skip
    data = tmp_path / "data"
    (data / "plan" / "r").mkdir(parents=True)
    (data / "plan" / "r" / "plan.json").write_bytes(plan.canonical())
    (data / "plan" / "r" / "plan.sha256").write_text(plan.hash + "\n")
    call = CallRecord(run="r", cell_id="s/clean/r1", subject="s", arm="clean", repeat=1, step=1,
                      status="completed", served_provider=served, text="x")  # fmt: skip
    write_records(data / "execute" / "r" / "cells.parquet", CallRecord, [call])
    (row,) = evidence.read_runs(data)
    assert row.simulated is simulated
    for name in ("extract", "subjects", "render"):
        (data / name / ("v1" if name != "extract" else "r")).mkdir(parents=True)
    write_records(data / "extract/r/candidates.parquet", evidence.CandidateRow, [])
    write_records(data / "subjects/v1/subjects.parquet", evidence.SubjectRow, [])
    write_records(data / "render/v1/prompts.parquet", evidence.PromptRow, [])
    markdown = render_markdown(build_reports(connect(data))["r"])
    assert (SIMULATED_BANNER in markdown) is simulated
