"""What an Inspect eval log of one run holds, gathered from the evidence (no ``inspect_ai`` here).

One :class:`CellEvidence` per planned cell, with one :class:`CallEvidence` per step that has a
row in the run's ``cells`` table: the cell browser's record of the call
(:func:`assay.report.cell_browser.cell_records`: prompt, answer, candidate, verdict with its
explanation, correctness per case as the page publishes it), the messages the provider received
for that prompt (:func:`assay.providers.factory.request_messages`, the adapter's own request
builder; a first step never sent: the messages for the prompt its plan would send, the
scenario's render of the plan's digest), and the call's times from the run's ledger: the latest
intent (sent) and the latest outcome (answered). A call never sent has no times; a run that sent
nothing has no ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import duckdb

from assay import evidence
from assay.core.errors import EvidenceError
from assay.core.records import CallKey, Frozen
from assay.evidence import RunRow
from assay.evidence.plan import Plan, PlannedCell
from assay.paid.ledger import Ledger
from assay.paid.ledger_records import LedgerHeader
from assay.providers.factory import request_messages
from assay.report.cell_browser import CellRecord, cell_records
from assay.report.query import rows


class Message(Frozen):
    """One message of a request, as the provider received it."""

    role: str
    content: str


class CallFacts(Frozen):
    """What the ``cells`` and ``candidates`` tables say of a call beyond its cell record."""

    run: str
    cell_id: str
    step: int
    response_digest: str | None
    served_model: str | None
    served_provider: str | None
    generation_id: str | None
    finish_reason: str | None
    latency_seconds: float | None
    extraction_version: int | None


CALL_FACTS = """
SELECT x.run, x.cell_id, x.step, x.response_digest, x.served_model, x.served_provider,
       x.generation_id, x.finish_reason, x.latency_seconds, c.extraction_version
FROM cells x LEFT JOIN candidates c USING (run, cell_id, step)
WHERE x.run = ?
"""


class RenderedPrompt(Frozen):
    prompt_digest: str
    prompt: str


RENDERED = """
SELECT DISTINCT p.prompt_digest, p.prompt
FROM prompts p JOIN runs r ON p.scenario = r.scenario
WHERE r.run = ?
"""
"""The run's scenario's rendered prompts, by digest: what a cell never sent would be sent."""


class CallTimes(Frozen):
    """When a call was sent and answered (Unix seconds), from the run's ledger."""

    sent: float | None = None
    answered: float | None = None


class CallEvidence(Frozen):
    """One provider call (one step of a cell) with everything its log sample shows."""

    record: CellRecord
    messages: tuple[Message, ...]
    """The request's messages (a first step never sent: those its plan would send); empty
    when the call has no prompt (a chain step never reached)."""
    facts: CallFacts
    times: CallTimes


class CellEvidence(Frozen):
    """One planned cell: its plan entry and its calls, step by step."""

    planned: PlannedCell
    calls: tuple[CallEvidence, ...]


class RunLabels(RunRow):
    """``runs``: the run with its prompting mode and kind in words."""

    mode: str
    kind: str


class RunEvidence(Frozen):
    """A run's plan, labels, ledger start and cells: the whole content of its log."""

    plan: Plan
    labels: RunLabels
    began: float | None
    """When the run's ledger began (its header), ``None`` when it sent nothing."""
    cells: tuple[CellEvidence, ...]


def ledger_times(ledger: Ledger) -> tuple[float | None, dict[CallKey, CallTimes]]:
    """The ledger's start and each call's latest intent and outcome times."""
    first = next(ledger.records(), None)
    began = first.at if isinstance(first, LedgerHeader) else None
    state = ledger.state()
    keys = set(state.intents) | set(state.outcomes)
    times = {
        key: CallTimes(
            sent=state.intents[key].at if key in state.intents else None,
            answered=state.outcomes[key].at if key in state.outcomes else None,
        )
        for key in keys
    }
    return began, times


def run_evidence(
    con: duckdb.DuckDBPyConnection, run: str, data: Path, ledger_root: Path
) -> RunEvidence:
    """Everything the log of ``run`` shows, from the report's views over ``data`` (``con``:
    :func:`assay.report.database.connect`) and the run's ledger under ``ledger_root``."""
    plan = evidence.read_plan(run, data)
    labels = rows(
        con, "SELECT * FROM runs WHERE run = ?", RunLabels, query="runs", parameters=[run]
    )
    if len(labels) != 1:
        raise EvidenceError(f"run {run}: no plan under {data} (run `dvc repro` first)")
    records: dict[tuple[str, int], CellRecord] = {
        (r.cell_id, r.step): r for r in cell_records(con, run)
    }
    facts = {
        (f.cell_id, f.step): f
        for f in rows(con, CALL_FACTS, CallFacts, query="call facts", parameters=[run])
    }
    keys = [(c.prompt_digest, c.repeat) for c in plan.cells]
    if len(set(keys)) != len(keys):
        raise EvidenceError(
            f"run {run}: two cells share a first prompt and a repeat, so Inspect sample ids "
            "(the prompt's sha256, the repeat as epoch) would collide"
        )
    began, times = ledger_times(Ledger.at(ledger_root, run, plan.hash))
    rendered = {
        r.prompt_digest: r.prompt
        for r in rows(con, RENDERED, RenderedPrompt, query="rendered prompts", parameters=[run])
    }
    return RunEvidence(
        plan=plan,
        labels=labels[0],
        began=began,
        cells=tuple(
            _cell(plan, planned, records, facts, times, rendered) for planned in plan.cells
        ),
    )


def _cell(
    plan: Plan,
    planned: PlannedCell,
    records: Mapping[tuple[str, int], CellRecord],
    facts: Mapping[tuple[str, int], CallFacts],
    times: Mapping[CallKey, CallTimes],
    rendered: Mapping[str, str],
) -> CellEvidence:
    calls = []
    for step in range(1, planned.steps + 1):
        record = records.get((planned.cell_id, step))
        if record is None:
            continue
        # a first step never sent shows the prompt the plan would send (its digest's render)
        prompt = record.prompt or (rendered.get(planned.prompt_digest) if step == 1 else None)
        messages = (
            ()
            if prompt is None
            else tuple(Message(**m) for m in request_messages(plan.model, prompt))
        )
        calls.append(
            CallEvidence(
                record=record,
                messages=messages,
                facts=facts[(planned.cell_id, step)],
                times=times.get(planned.call(step), CallTimes()),
            )
        )
    return CellEvidence(planned=planned, calls=tuple(calls))
