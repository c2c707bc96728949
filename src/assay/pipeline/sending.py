"""Sending: one admitted run's calls (``assay.paid.execute.send_run``: concurrency one, plan order,
the ledger written ahead of every request), and the receipt the ``send`` stage keeps of them.

A run awaiting authorization sends nothing and opens no ledger. The provider is made through
the provider registry (``assay.providers.factory.for_run``) when the first call is due.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from assay import evidence
from assay.core.digest import sha256_hex
from assay.core.records import Frozen
from assay.evidence import CallRecord
from assay.paid.execute import AWAITING, FREE_ATTEMPTS, HALTED, retryable, send_run, unsent
from assay.paid.plan import Plan
from assay.pipeline.admission import Admitted, is_remote
from assay.pipeline.layout import repro_command
from assay.providers.base import ModelProfile, Provider
from assay.providers.check import CheckReport
from assay.providers.factory import for_run

Checks = Callable[[ModelProfile, Mapping[str, str]], CheckReport]


class Executed(Frozen):
    """What sending one run did this time (in the send stage, or in its execute stage when the
    send stage left the run to it)."""

    run: str
    records: tuple[CallRecord, ...] = ()
    preflight: CheckReport | None = None
    """The pre-flight checks, when this invocation was about to send to a real provider;
    ``None`` when none were due (simulated, awaiting authorization, begun paid run, or a free
    run with nothing left to send)."""
    free_remote: bool = False
    """A free run at a real endpoint: its provider errors are retried on the next invocation."""
    api_key_env: str | None = None
    """The run's provider key variable, so messages name the command that reads it from .env."""

    @property
    def retry_due(self) -> tuple[CallRecord, ...]:
        """Calls of a free remote run that failed and will be sent again on the next
        ``dvc repro`` (fewer than ``FREE_ATTEMPTS`` attempts so far)."""
        if not self.free_remote:
            return ()
        return tuple(r for r in self.records if retryable(r))

    def retry_message(self) -> str:
        """What stopped a free run's calls, and that the next ``dvc repro`` sends them again."""
        retry = self.retry_due
        failed = [r for r in retry if r.status not in HALTED] or list(retry)
        first = failed[0]
        halting = next((r for r in self.records if r.halt), None)
        stopped = (
            f"halted after {halting.reason} on {halting.cell_id} step {halting.step}; "
            if halting is not None
            else ""
        )
        return (
            f"run {self.run!r}: {stopped}{len(retry)} calls of this free run were not answered "
            f"(first: {first.cell_id} step {first.step}, {first.reason}); a free model costs "
            f"nothing to retry, so the next `{repro_command(self.api_key_env)}` sends them again "
            f"(at most {FREE_ATTEMPTS} attempts per call)"
        )

    @property
    def refused(self) -> bool:
        """The pre-flight failed: nothing was sent, the ledger was not opened."""
        return self.preflight is not None and not self.preflight.passed

    def refusal(self) -> str:
        failed = "\n".join(
            line.render()
            for line in (self.preflight.lines if self.preflight else ())
            if line.outcome == "fail"
        )
        return (
            f"run {self.run!r}: pre-flight checks failed, so nothing was sent and the ledger was "
            f"not begun:\n{failed}\nFix each FAIL line (`assay check-provider {self.run}` shows "
            f"them again), then run `{repro_command(self.api_key_env)}`; a change to the profile "
            "needs a new plan and authorization."
        )


def send(
    admitted: Admitted,
    factory: Callable[[Plan, Path], Callable[[], Provider]] = for_run,
    preflight: CheckReport | None = None,
) -> Executed:
    """Send the run's calls; a run awaiting authorization sends nothing and opens no ledger."""
    plan = admitted.plan
    if admitted.awaiting:
        return Executed(run=admitted.run, records=tuple(unsent(plan, AWAITING)))
    rows = evidence.read_run_prompt_rows(plan.run, plan.scenario)
    records = send_run(plan, Path(admitted.ledger_root), rows, factory)
    return Executed(
        run=admitted.run,
        records=tuple(records),
        preflight=preflight,
        free_remote=not plan.budget.paid and is_remote(plan),
        api_key_env=plan.model.api_key_env,
    )


def receipt(admitted: Admitted, executed: Executed) -> evidence.SendReceipt:
    """What the ``send`` stage keeps of one run: its calls without their texts, which stay in
    the ledger, named by digest. The ledger, not the receipt, is what keeps a response: it was
    fsync'd before the call's outcome, so a send stage killed before it writes its receipt
    loses nothing (the next invocation settles the run from its ledger), and the execute stage
    reads every text back from there, checked against the digest both name
    (``assay.pipeline.collect.received``)."""
    return evidence.SendReceipt(
        run=admitted.run,
        plan_hash=admitted.plan.hash,
        ledger_root=admitted.ledger_root,
        calls=tuple(
            evidence.SentCall(
                **record.model_dump(exclude={"text"}),
                text_digest=None if record.text is None else sha256_hex(record.text),
            )
            for record in executed.records
        ),
    )
