"""Writes a minimal data/ folder (plans and verdicts of every version, optional metrics) for
report tests, from plain tables of verdicts."""

from __future__ import annotations

from pathlib import Path

from assay.core.tables import write_records
from assay.evidence import (
    CallRecord,
    CandidateRow,
    ExtractionVerdictRow,
    MetricRow,
    PromptRow,
    SubjectRow,
    VerdictRow,
)
from assay.paid.plan import Plan

Table = dict[str, dict[str, list[str | None]]]
"""``{subject: {arm: [verdict of repeat 1, repeat 2, …]}}``."""


def write_run(
    data: Path,
    run: str,
    versions: dict[int, dict[int, Table]],
    *,
    scenario: str = "v1",
    arms: tuple[str, ...] = ("clean", "inconsistent"),
    provider: str = "openrouter",
    model: str = "m",
    preregistered: int = 7,
    reported: int | None = None,
    minimum: int = 10,
    extractions: dict[int, Table] | None = None,
    preregistered_extraction: int = 2,
    extracted_with: int = 2,
) -> None:
    """``versions``: ``{evaluator version: {step: table}}``; ``extractions``: ``{extraction
    version: step 1's table}`` under the reported evaluator version, an entry a verdict or
    ``"rejected:REASON"`` / ``"missing:REASON"``."""
    plan_dir = data / "plan" / run
    plan_dir.mkdir(parents=True, exist_ok=True)
    repeats = max(
        len(v) for t in versions[preregistered].values() for a in t.values() for v in a.values()
    )
    plan = Plan.model_validate({
        "run": run, "scenario": scenario, "fixture_sources": "0" * 64, "prompt_profile": "v1",
        "repeats": repeats, "arms": list(arms), "reference_arm": arms[0], "schedule": "blocked",
        "model": {"model": model, "provider": provider}, "cells": [], "tools": {},
        "analysis": {"alpha": 0.05, "minimum_subjects": minimum,
                     "structure_evaluator": preregistered,
                     "extraction": preregistered_extraction},
        "budget": {"paid": False, "ceiling_usd": 0.0, "reservation_usd": 0.0, "requests": 0,
                   "admitted_requests": 0,
                   "worst_case_usd": 0.0},
    })  # fmt: skip
    (plan_dir / "plan.json").write_bytes(plan.canonical())
    (plan_dir / "plan.sha256").write_text(plan.hash + "\n")
    every = []
    for version, steps in versions.items():
        for step, table in steps.items():
            for subject, by_arm in table.items():
                for arm, verdicts in by_arm.items():
                    for repeat, verdict in enumerate(verdicts, start=1):
                        every.append(VerdictRow(
                            run=run, cell_id=f"{subject}/{arm}/r{repeat}", subject=subject,
                            arm=arm, repeat=repeat, step=step, verdict=verdict,
                            reason="x" if verdict else "no-code", evaluator_version=version,
                        ))  # fmt: skip
    shown = reported if reported is not None else preregistered
    write_records(data / "structure" / run / "versions.parquet", VerdictRow, every)
    write_records(
        data / "structure" / run / "verdicts.parquet",
        VerdictRow,
        [row for row in every if row.evaluator_version == shown],
    )
    write_records(data / "execute" / run / "cells.parquet", CallRecord, [])
    candidates, again = [], []
    for extraction, table in (extractions or {}).items():
        for subject, by_arm in table.items():
            for arm, outcomes in by_arm.items():
                for repeat, outcome in enumerate(outcomes, start=1):
                    verdict, _, reason = (outcome or "missing:no-code").partition(":")
                    key = {"run": run, "cell_id": f"{subject}/{arm}/r{repeat}", "subject": subject,
                               "arm": arm, "repeat": repeat, "step": 1}  # fmt: skip
                    again.append(ExtractionVerdictRow(
                        **key, verdict=None if verdict == "missing" else verdict,
                        reason=reason or "x", evaluator_version=shown,
                        extraction_version=extraction,
                    ))  # fmt: skip
                    if extraction == extracted_with:
                        candidates.append(CandidateRow(
                            **key, execution_status="completed", extract_status="code",
                            source="def implement(x):\n    return x\n",
                            extraction_version=extraction,
                        ))  # fmt: skip
    if extractions:
        write_records(data / "structure" / run / "extractions.parquet", ExtractionVerdictRow, again)
    write_records(data / "extract" / run / "candidates.parquet", CandidateRow, candidates)
    write_records(data / "subjects" / scenario / "subjects.parquet", SubjectRow, [])
    write_records(data / "render" / scenario / "prompts.parquet", PromptRow, [])


def write_metrics(data: Path, run: str, deltas: dict[str, float | None]) -> None:
    """One SLOC row per cell id (``subject/arm/rN``)."""
    rows = []
    for cell, delta in deltas.items():
        subject, arm, repeat = cell.split("/")
        rows.append(MetricRow(
            run=run, cell_id=cell, subject=subject, arm=arm, repeat=int(repeat[1:]), step=1,
            tool="radon", tool_version="1", metric="sloc", before=0.0, after=delta, delta=delta,
            missing_reason=None if delta is not None else "x",
        ))  # fmt: skip
    write_records(data / "measure" / run / "metrics.parquet", MetricRow, rows)


def write_subjects(
    data: Path, scenario: str, subjects: list[str], family: str = "cosmetic"
) -> None:
    rows = [
        SubjectRow(scenario=scenario, subject=s, family=family, arm=arm, subject_digest="d",
                   arm_digest="d", target="t.py", helper="h", helper_module=None, primitives=(),
                   sandbox="standard", repository_bytes=1)
        for s in subjects for arm in ("clean", "inconsistent")
    ]  # fmt: skip
    write_records(data / "subjects" / scenario / "subjects.parquet", SubjectRow, rows)
