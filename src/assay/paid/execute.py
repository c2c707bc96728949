"""The execute loop: the only code that sends provider requests.

:func:`send_run` holds the run's ledger (opened, locked, a paid run's inputs sealed before its
first request) and runs the :class:`Executor` in it; everything below it (the ledger, the seal,
the provider made through ``assay.providers.factory``, the progress bar) is called from here
and returns here, so nothing on the send path climbs back into the stage modules above.

Concurrency one, in plan order (blocked by subject), at most one request per call key
(``<cell id>#<step>``), ever:

- admission reserves the plan's per-request reservation before each request and never
  refunds it; when the next reservation would pass the ceiling, admission halts;
- the prompt is stored under its sha256 (the intent's request digest) and the intent fsync'd
  before the request, the outcome after it (see ``assay.paid.ledger``);
- no retries within an invocation: a result with ``halt`` set (429, 5xx, reset, timeout, a
  billing anomaly, anything whose no-charge status is unproven, a local server that ended)
  halts admission, and every later call becomes ``budget-halted`` in a paid run (the seed's
  billing-safe halt) and ``halted`` in a free one (no budget is involved: the record's reason
  names the call and the failure that stopped the run);
- a paid run whose ledger has begun is never resumed: a re-invocation sends nothing, turns an
  intent without outcome into ``interrupted`` and never-attempted calls into ``not-run``. Free
  runs (simulated, replay, zero-priced endpoints) resume where they stopped: completed calls are
  kept, and a call that failed is sent again, up to ``FREE_ATTEMPTS`` attempts in all (no money
  is at stake), unless its answers are read rather than asked (an Inspect log gives the same
  answer again). Every record says how many attempts its call took.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.digest import sha256_hex
from assay.core.records import SEND_REFUSED, CallKey, CellKey, ExecutionStatus
from assay.evidence import CallRecord, PromptRow
from assay.paid.ledger import Ledger, LedgerState
from assay.paid.ledger_records import LedgerIntent, LedgerOutcome, Outcome
from assay.paid.plan import Plan, PlannedCell
from assay.paid.preregistration import record_plan
from assay.paid.seal import seal
from assay.paid.spend_progress import SpendProgress
from assay.providers.base import NANO, Provider, ProviderRequest, ProviderResult
from assay.science.chain_prompts import ChainRenderer

FREE_ATTEMPTS = 3
"""Attempts a free run gives one call across invocations before its failure is final."""
RETRIED_STATUSES = ("provider-error", "identity-mismatch", "interrupted")
REFUSED_PREFIX = f"{SEND_REFUSED}: "
"""How the reason of every unsent call of a run the send stage refused begins."""
HALTED = ("budget-halted", "halted")
"""Calls never sent because their run was stopping: a paid run's (``budget-halted``), a free
run's (``halted``)."""

AWAITING = "awaiting-authorization"
"""The reason of every call of a paid run awaiting authorization."""

NextPrompt = Callable[[PlannedCell, int, Sequence[str]], str | None]
"""Renders step ``k`` (2…) of a chain cell from the texts of the steps before it; ``None``
when an earlier answer held no code to build on."""


def retryable(record: CallRecord) -> bool:
    """A free run's call that the next invocation sends (again)."""
    if record.status in HALTED:
        return True
    return record.status in RETRIED_STATUSES and record.attempts < FREE_ATTEMPTS


CELL_FIELDS = set(CellKey.model_fields) - {"run", "step"}
"""The fields of a call's key (:class:`~assay.core.records.CellKey`) its planned cell carries."""


def record_for(
    plan: Plan, cell: PlannedCell, step: int, status: ExecutionStatus, **fields: Any
) -> CallRecord:
    """The row of one call of ``cell``, with the plan's price caps in force."""
    caps = plan.model.price_caps
    return CallRecord(
        run=plan.run,
        **cell.model_dump(include=CELL_FIELDS),
        step=step,
        status=status,
        price_cap_prompt_usd_per_m=caps.prompt,
        price_cap_completion_usd_per_m=caps.completion,
        **fields,
    )


def unsent(plan: Plan, reason: str) -> list[CallRecord]:
    """Every call of a run that sends nothing this time: ``not-run`` with ``reason``, or
    ``excluded`` (with the plan's reason) for a cell the plan will never send."""
    return [
        record_for(plan, c, step, "excluded", reason=c.excluded)
        if c.excluded
        else record_for(plan, c, step, "not-run", reason=reason)
        for c in plan.cells
        for step in range(1, c.steps + 1)
    ]


def send_run(
    plan: Plan,
    ledger_root: Path,
    rows: Mapping[tuple[str, str], PromptRow],
    factory: Callable[[Plan, Path], Callable[[], Provider]],
) -> list[CallRecord]:
    """Send the run's calls under its ledger's exclusive lock: open (or create) the ledger,
    seal a paid run's inputs before its first request (``assay.paid.seal``), then run the
    :class:`Executor` from the rendered prompts ``rows`` (later chain steps rendered from the
    earlier answers) with a provider made by ``factory`` when the first call is due, showing
    its progress."""
    ledger = Ledger.open(ledger_root, plan.run, plan.hash, paid=plan.budget.paid)
    with ledger.exclusive() as opened:
        record_plan(opened.directory, plan)  # the preregistration it keeps once begun
        if plan.budget.paid and not opened.state().begun:
            seal(opened.directory, plan)  # what its evidence needs, should an edit re-plan it
        executor = Executor(
            plan,
            opened,
            {key: row.prompt for key, row in rows.items()},
            factory(plan, opened.directory),
            next_prompt=ChainRenderer(rows, plan.analysis.extraction),
        )
        with SpendProgress(plan) as observe, closing(executor):
            return executor.run(observe)


REPORTED = frozenset(
    {
        "reason",
        "halt",
        "cost_usd",
        "generation_id",
        "served_model",
        "served_provider",
        "finish_reason",
        "detail",
        "no_charge_proven",
        "latency_seconds",
        "response_digest",
    }
)
"""The fields a call's row takes from its ledger outcome as they are."""


def _from_outcome(
    plan: Plan,
    cell: PlannedCell,
    step: int,
    outcome: LedgerOutcome,
    intent: LedgerIntent,
    text: str | None,
    attempts: int,
) -> CallRecord:
    return record_for(
        plan,
        cell,
        step,
        outcome.status,
        **outcome.model_dump(include=set(REPORTED)),
        reservation_usd=intent.reservation_nano_usd / NANO,
        prompt_tokens=outcome.usage.prompt_tokens,
        completion_tokens=outcome.usage.completion_tokens,
        prompt_digest=intent.request_digest,
        text=text,
        attempts=attempts,
    )


@dataclass
class Executor:
    """Sends the calls of ``plan`` under its opened ``ledger``: the first steps' ``prompts`` by
    (subject, arm), later chain steps from ``next_prompt``, through a provider that
    ``provider_factory`` makes when the first call is due."""

    plan: Plan
    ledger: Ledger
    prompts: Mapping[tuple[str, str], str]
    provider_factory: Callable[[], Provider]
    next_prompt: NextPrompt | None = None
    _provider: Provider | None = field(default=None, init=False, repr=False)

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = self.provider_factory()
        return self._provider

    def close(self) -> None:
        """Release the provider (a local model's server stops); the next call makes a new one."""
        provider, self._provider = self._provider, None
        close = getattr(provider, "close", None)
        if close is not None:
            close()

    def run(self, observe: Callable[[CallRecord], None] | None = None) -> list[CallRecord]:
        """Every call's record in plan order; ``observe`` sees each one as it is decided."""
        state = self.ledger.state()
        if self.plan.budget.paid and state.begun:
            records = self._settle_finished_paid_run(state)
        else:
            records = self._send(state)
        decided = []
        for record in records:
            if observe is not None:
                observe(record)
            decided.append(record)
        return decided

    def settle(self, unsent: str) -> list[CallRecord]:
        """Every call's record from the ledger alone, sending nothing (a free run the send stage
        could not send this time: its server did not start, say): what was received, and
        ``not-run`` with the reason ``unsent`` for every call without an outcome."""
        return list(self._settle_finished_paid_run(self.ledger.state(), unsent=unsent))

    def _settle_finished_paid_run(
        self, state: LedgerState, unsent: str | None = None
    ) -> Iterator[CallRecord]:
        """A paid run that already began: report it, send nothing."""
        for cell in self.plan.cells:
            for step in range(1, cell.steps + 1):
                key = cell.call(step)
                if cell.excluded:
                    yield record_for(self.plan, cell, step, "excluded", reason=cell.excluded)
                elif key in state.outcomes:
                    yield self._received(cell, step, state, state.attempts.get(key, 1))
                elif key in state.intents:
                    intent = state.intents[key]
                    yield record_for(
                        self.plan,
                        cell,
                        step,
                        "interrupted",
                        reason="intent-without-outcome: the process ended mid-request",
                        reservation_usd=intent.reservation_nano_usd / NANO,
                        prompt_digest=intent.request_digest,
                        attempts=state.attempts.get(key, 1),
                    )
                elif unsent is not None:
                    yield record_for(self.plan, cell, step, "not-run", reason=unsent)
                elif state.halt_reason:
                    yield record_for(
                        self.plan, cell, step, "budget-halted", reason=state.halt_reason
                    )
                else:
                    yield record_for(
                        self.plan,
                        cell,
                        step,
                        "not-run",
                        reason="paid run ended before this call; never resumed",
                    )

    def _send(self, state: LedgerState) -> Iterator[CallRecord]:
        budget = self.plan.budget
        ceiling = budget.ceiling_nano
        reservation = budget.reservation_nano
        reserved = state.reserved_nano_usd
        # a free run's earlier halt (an outage) does not stop this invocation
        halt_reason = state.halt_reason if budget.paid else None
        for cell in self.plan.cells:
            texts: list[str] = []
            for step in range(1, cell.steps + 1):
                key = cell.call(step)
                if cell.excluded:
                    yield record_for(self.plan, cell, step, "excluded", reason=cell.excluded)
                    continue
                attempts = state.attempts.get(key, 0)
                if key in state.outcomes:  # resumed free run: keep what was received
                    record = self._received(cell, step, state, attempts)
                    if budget.paid or self.plan.model.answers_fixed or not retryable(record):
                        yield record
                        if record.status != "completed" or record.text is None:
                            yield from self._rest_not_run(cell, step, record.status)
                            break
                        texts.append(record.text)
                        continue
                prompt = self._prompt(cell, step, texts)
                if prompt is None:
                    for later in range(step, cell.steps + 1):
                        yield record_for(
                            self.plan,
                            cell,
                            later,
                            "not-run",
                            reason=f"step {step - 1} answer held no code",
                        )
                    break
                if halt_reason is None and budget.paid and reserved + reservation > ceiling:
                    halt_reason = (
                        f"ceiling-reached: reserving ${reservation / NANO:.4f} would pass the "
                        f"${ceiling / NANO:.2f} ceiling"
                    )
                    self.ledger.write_halt(halt_reason)
                if halt_reason is not None:
                    stopped: ExecutionStatus = "budget-halted" if budget.paid else "halted"
                    yield record_for(self.plan, cell, step, stopped, reason=halt_reason)
                    continue
                record = self._call(cell, step, key, prompt, reservation, attempts + 1)
                reserved += reservation
                yield record
                if record.halt:
                    halt_reason = f"halted-after: {cell.cell_id} step {step} ({record.reason})"
                    self.ledger.write_halt(halt_reason)
                if record.status != "completed" or record.text is None:
                    yield from self._rest_not_run(cell, step, record.status)
                    break
                texts.append(record.text)

    def _received(
        self, cell: PlannedCell, step: int, state: LedgerState, attempts: int
    ) -> CallRecord:
        """The record of a call whose outcome the ledger holds."""
        key = cell.call(step)
        outcome = state.outcomes[key]
        text = self.ledger.text(outcome)
        return _from_outcome(self.plan, cell, step, outcome, state.intents[key], text, attempts)

    def _rest_not_run(self, cell: PlannedCell, step: int, status: str) -> Iterator[CallRecord]:
        """A chain cannot go on without its earlier step."""
        for later in range(step + 1, cell.steps + 1):
            yield record_for(self.plan, cell, later, "not-run", reason=f"step {step} {status}")

    def _prompt(self, cell: PlannedCell, step: int, texts: Sequence[str]) -> str | None:
        if step == 1:
            return self.prompts[(cell.subject, cell.arm)]
        if self.next_prompt is None:
            raise RuntimeError(f"plan has {cell.steps} steps but no chain renderer was given")
        return self.next_prompt(cell, step, texts)

    def _call(
        self,
        cell: PlannedCell,
        step: int,
        key: CallKey,
        prompt: str,
        reservation: int,
        attempts: int,
    ) -> CallRecord:
        digest = sha256_hex(prompt)
        if step == 1 and digest != cell.prompt_digest:
            raise RuntimeError(f"{cell.cell_id}: prompt differs from the one the plan pinned")
        # made before the first intent: a provider that cannot be made (a missing key, a local
        # server that does not start) raises, and nothing is recorded as sent
        provider = self.provider
        self.ledger.store(prompt.encode("utf-8"))  # the prompt sent, before its intent
        intent = self.ledger.write_intent(
            key, request_digest=digest, reservation_nano_usd=reservation
        )
        started = time.perf_counter()
        try:
            result: ProviderResult = provider.complete(ProviderRequest(key=key, prompt=prompt))
        except Exception as exc:  # noqa: BLE001  # an adapter bug is still an unproven charge: record and halt
            result = ProviderResult(
                status="provider-error",
                reason=f"adapter-exception: {type(exc).__name__}",
                halt=True,
            )
        if not result.latency_seconds:
            result = result.model_copy(
                update={"latency_seconds": round(time.perf_counter() - started, 6)}
            )
        reported = Outcome.model_validate(result, from_attributes=True)
        outcome = self.ledger.write_outcome(key, reported, raw=result.raw, text=result.text)
        return _from_outcome(self.plan, cell, step, outcome, intent, result.text, attempts)
