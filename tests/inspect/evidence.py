"""A run's log evidence built by hand (:class:`assay.inspect.log_evidence.RunEvidence`), for the
in-process tests of the log's fields: cells of a v1-shaped or chain-shaped run with a chosen
verdict, correctness outcome and call status per cell."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay.core.digest import sha256_hex
from assay.evidence.plan import Plan
from assay.inspect.log_evidence import (
    CallEvidence,
    CallFacts,
    CallTimes,
    CellEvidence,
    Message,
    RunEvidence,
    RunLabels,
)
from assay.report.cell_browser import Case, CellRecord, Explanation, HelperCall

BEGAN = 1_796_000_000.0
"""The ledger's start of the hand-built run (2026-11-30T00:53:20Z)."""
MISSING = {"not-run": "not-run", "budget-halted": "halted", "excluded": "excluded"}


@dataclass
class Call:
    """One call as a test chooses it: its status, verdict and correctness outcome."""

    status: str = "completed"
    verdict: str | None = "reused"
    correctness: str | None = "correct"


def prompt_of(subject: str, arm: str, step: int = 1) -> str:
    return f"Add implement to {subject} ({arm}), step {step}."


def record(run: str, cell_id: str, step: int, call: Call, *, simulated: bool) -> CellRecord:
    subject, arm, repeat = cell_id.split("/")
    sent = call.status == "completed"
    prompt = prompt_of(subject, arm, step)
    missing = None if call.verdict else MISSING.get(call.status, "no-candidate")
    return CellRecord(
        run=run, cell_id=cell_id, subject=subject, arm=arm, repeat=int(repeat[1:]), step=step,
        status=call.status, outcome=call.verdict or missing,
        verdict_reason="scored" if call.verdict else call.status,
        correctness_outcome=call.correctness, cost_usd=0.001 if sent else None,
        scenario="v1", model="m", simulated=simulated, verdict=call.verdict, missing=missing,
        correctness=call.correctness, status_reason=None if sent else "awaiting-authorization",
        detail=None, reservation_usd=0.06, tokens=(100, 20) if sent else (None, None),
        extract_status="code" if sent else "not-executed", evaluator_version=7,
        correctness_reason="ran" if call.correctness else "not-executed",
        prompt=prompt, prompt_digest=sha256_hex(prompt.encode()),
        response="```python\ndef implement(x):\n    return helper(x)\n```" if sent else None,
        candidate="def implement(x):\n    return helper(x)\n" if sent else None,
        explanation=Explanation(
            rule="unconditional_helper_call" if call.verdict else None,
            rule_text="rule 3: a helper call runs whenever control reaches it",
            helper="helper", helper_calls=(HelperCall(line=2, position="unconditional"),),
            primitive_calls=(), same_name_call_lines=(), declared_primitives=("strip",),
        ),
        cases=tuple(
            Case(index=i, outcome="pass" if call.correctness == "correct" else "wrong-value",
                 exception_type=None)
            for i in range(3)
        ) if call.correctness else (),
        metrics=(),
    )  # fmt: skip


def run_evidence(
    cells: Mapping[str, Sequence[Call]],
    *,
    run: str = "r",
    simulated: bool = False,
    began: float | None = BEGAN,
    arms: tuple[str, ...] = ("clean", "inconsistent"),
) -> RunEvidence:
    """``cells``: ``{cell id: [call of step 1, step 2, …]}``, cell ids ``subject/arm/rN``."""
    plan_cells = []
    evidence_cells = []
    for n, (cell_id, calls) in enumerate(cells.items()):
        subject, arm, repeat = cell_id.split("/")
        planned = {
            "cell_id": cell_id, "subject": subject, "arm": arm, "repeat": int(repeat[1:]),
            "steps": len(calls), "subject_digest": "s" * 64, "arm_digest": "a" * 64,
            "prompt_digest": sha256_hex(prompt_of(subject, arm).encode()),
        }  # fmt: skip
        plan_cells.append(planned)
        evidence_calls = []
        for step, call in enumerate(calls, start=1):
            r = record(run, cell_id, step, call, simulated=simulated)
            sent = BEGAN + 10 * n + step if call.status == "completed" else None
            evidence_calls.append(
                CallEvidence(
                    record=r,
                    messages=(Message(role="user", content=r.prompt or ""),),
                    facts=CallFacts(
                        run=run,
                        cell_id=cell_id,
                        step=step,
                        response_digest=sha256_hex((r.response or "").encode()) if sent else None,
                        served_model="m" if sent else None,
                        served_provider=None,
                        generation_id=f"gen-{n}-{step}" if sent else None,
                        finish_reason="stop" if sent else None,
                        latency_seconds=1.5 if sent else None,
                        extraction_version=3,
                    ),
                    times=CallTimes(sent=sent, answered=sent + 1.5 if sent else None),
                )
            )
        evidence_cells.append(evidence_calls)
    plan = Plan.model_validate({
        "run": run, "scenario": "v1", "fixture_sources": "0" * 64, "prompt_profile": "v1",
        "repeats": 2, "arms": list(arms), "reference_arm": arms[0], "schedule": "blocked",
        "model": {"model": "m", "provider": "simulated" if simulated else "openrouter",
                  "provider_pin": None if simulated else "amazon-bedrock"},
        "cells": plan_cells, "tools": {"ruff": "0.1"},
        "analysis": {"alpha": 0.05, "minimum_subjects": 10, "structure_evaluator": 7,
                     "extraction": 3},
        "budget": {"paid": False, "ceiling_usd": 0.0, "reservation_usd": 0.0, "requests": 0,
                   "admitted_requests": 0, "worst_case_usd": 0.0},
    })  # fmt: skip
    labels = RunLabels(
        run=run, scenario="v1", model="m", provider=plan.model.provider, simulated=simulated,
        plan_content=plan.content_hash, repeats=2, arms=arms, reference_arm=arms[0], alpha=0.05,
        minimum_subjects=10, plan_hash=plan.hash, authorization=None, cells=len(cells),
        requests=len(cells), admitted_requests=len(cells), worst_case_usd=0.0,
        preregistered_structure_evaluator=7, preregistered_extraction=3,
        mode="simulated" if simulated else "chat (API)",
        kind="simulated" if simulated else "paid API",
    )  # fmt: skip
    return RunEvidence(
        plan=plan,
        labels=labels,
        began=began,
        cells=tuple(
            CellEvidence(planned=planned, calls=tuple(calls))
            for planned, calls in zip(plan.cells, evidence_cells, strict=True)
        ),
    )
