"""One run's provider calls, and the ``execute`` stage that turns them into its ``cells`` table.

Sending lives in the ``send`` stage (``assay.pipeline.send``), which sends every run at once
through :func:`admit` and :func:`send`; the ``execute`` stage (:func:`collect`) sends nothing:
it reads the run's receipt from the send stage and the responses from the run's ledger. The
stand-ins are providers too: only the simulated one also reads the scenario (its answer book);
real providers receive the prompt and nothing else.

Before the first paid request of a run, params.yaml is re-read and the plan rebuilt: the
authorization must still be the one the authorize stage recorded, the plan unchanged, and the
run's ledger here, where it was authorized, holding the token params.yaml carries
(``assay.authorize.check_spendable``). Then, before a real provider (paid, or free with calls
left to send) receives anything, the same free checks as ``assay check-provider`` run; when any
fails nothing is sent, the ledger is not opened and no table written, so the run can still
start once the cause is fixed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from pathlib import Path

from assay import evidence
from assay.authorize import (
    Authorization,
    AuthorizationError,
    SpendRefused,
    check_spendable,
    decide,
)
from assay.chain_prompts import ChainRenderer
from assay.digest import sha256_hex
from assay.errors import EvidenceError
from assay.evidence import CallRecord, SentPromptRow
from assay.execute import FREE_ATTEMPTS, HALTED, Executor, record_for, retryable
from assay.ledger import Ledger, LedgerState
from assay.params import Params
from assay.pipeline.layout import repro_command
from assay.pipeline.plan import make_plan
from assay.plan import Plan
from assay.progress import progress
from assay.providers.base import ModelProfile, Provider
from assay.providers.check import CheckReport
from assay.providers.factory import ProviderConfigError, make_provider
from assay.providers.local import LocalProvider
from assay.providers.replay import ReplayProvider
from assay.providers.simulated import SimulatedProvider, answer_book
from assay.records import Frozen
from assay.seal import seal

Checks = Callable[[ModelProfile, Mapping[str, str]], CheckReport]


class Executed(Frozen):
    """What one invocation of the execute stage did."""

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


SERVER_LOG = "server.log"
"""A local model's server output, in the run's ledger folder."""


def provider_factory(plan: Plan, ledger_dir: Path) -> Callable[[], Provider]:
    """How to make the run's provider. ``ledger_dir``: the run's ledger folder, where a local
    model's server log goes (beside the attempts it served, outside DVC's outputs: its
    timestamps would make the send stage's outputs differ from one fresh run to the next)."""
    profile = plan.model

    def make() -> Provider:
        if profile.provider == "simulated":
            return SimulatedProvider(
                profile, answer_book(evidence.read_run_scenario(plan.run, plan.scenario).subjects)
            )
        if profile.provider == "replay":
            if not profile.replay_ledger:
                raise ProviderConfigError(
                    "a replay profile needs replay_ledger (the earlier run's ledger folder)"
                )
            return ReplayProvider(Path(profile.replay_ledger))
        if profile.provider == "local":
            return LocalProvider(profile, runtime=plan.runtime, log=ledger_dir / SERVER_LOG)
        return make_provider(profile, env=os.environ)

    return make


class SpendProgress:
    """Calls decided out of the plan's total, with rate and ETA, and for a paid run the money
    reserved (never refunded) and reported so far against the ceiling."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.reserved = 0.0
        self.reported = 0.0
        self.bar = progress(sum(c.steps for c in plan.cells), f"execute {plan.run}", unit="call")

    def __enter__(self) -> Callable[[CallRecord], None]:
        return self.observe

    def __exit__(self, *exc_info: object) -> None:
        self.bar.close()

    def observe(self, record: CallRecord) -> None:
        self.reserved += record.reservation_usd
        self.reported += record.cost_usd or 0.0
        if self.plan.budget.paid:
            self.bar.set_postfix_str(
                f"reserved ${self.reserved:.4f} / ceiling ${self.plan.budget.ceiling_usd:.2f}, "
                f"reported ${self.reported:.4f}",
                refresh=False,
            )
        self.bar.update(1)


def awaiting(plan: Plan) -> list[CallRecord]:
    """Every call of a run awaiting authorization: ``not-run``, or ``excluded`` (with the
    plan's reason) for a cell the plan will never send, authorized or not."""
    return [
        record_for(plan, c, step, "excluded", reason=c.excluded)
        if c.excluded
        else record_for(plan, c, step, "not-run", reason="awaiting-authorization")
        for c in plan.cells
        for step in range(1, c.steps + 1)
    ]


def unsent(plan: Plan, reason: str) -> list[CallRecord]:
    """Every call of a run the send stage refused before sending anything: ``not-run`` with
    ``reason``, or ``excluded`` for a cell the plan leaves out."""
    return [
        record_for(plan, c, step, "excluded", reason=c.excluded)
        if c.excluded
        else record_for(plan, c, step, "not-run", reason=reason)
        for c in plan.cells
        for step in range(1, c.steps + 1)
    ]


def _refuse_changed_since_authorize(
    plan: Plan, recorded: Authorization, current: Authorization
) -> None:
    if current.state != recorded.state:
        raise SpendRefused(
            f"run {plan.run!r}: params.yaml now says {current.state} ({current.reason}) but the "
            f"authorize stage recorded {recorded.state}; nothing was sent. Run "
            f"`{repro_command(plan.model.api_key_env)}` (without --single-item) so every stage "
            "sees the change"
        )


def _refuse_stale_plan(plan: Plan, current_plan: Callable[[], Plan]) -> None:
    rebuilt = current_plan()
    if rebuilt.hash != plan.hash:
        raise SpendRefused(
            f"run {plan.run!r}: params.yaml or the stage inputs changed since the plan was made "
            f"(recorded plan {plan.hash}, current plan {rebuilt.hash}); nothing was sent. Run "
            f"`{repro_command()}`, inspect the new plan (`uv run assay plan show {plan.run}`) and "
            "authorize it"
        )


def _is_remote(plan: Plan) -> bool:
    """A real provider (paid or free), not the simulated or replayed stand-ins."""
    return plan.model.provider not in ("simulated", "replay")


class Admitted(Frozen):
    """A run that passed every check before sending: its plan, and where its ledger lives."""

    run: str
    plan: Plan
    ledger_root: str
    awaiting: bool = False
    """A paid run awaiting authorization: every call is ``not-run`` (or ``excluded``)."""

    @property
    def ledger(self) -> Ledger:
        return Ledger.at(Path(self.ledger_root), self.run, self.plan.hash)

    def preflight_due(self) -> bool:
        """A real provider is about to receive calls: a free run with calls left to send, or a
        paid run whose ledger has not begun."""
        plan = self.plan
        if self.awaiting or not _is_remote(plan):
            return False
        state = self.ledger.state()
        return not (plan.budget.paid and state.begun) and pending(plan, state)


def admit(
    run_id: str, params: Params, *, current_plan: Callable[[str, Params], Plan] = make_plan
) -> Admitted:
    """Every check before a run may send, in order: the authorization was decided for this
    plan; for a paid run, params.yaml still authorizes the plan as the authorize stage
    recorded, and (before its ledger begins) the ledger may spend and the plan is current."""
    plan = evidence.read_plan(run_id)
    plan_hash = plan.hash
    recorded = evidence.read_authorization(run_id)
    if recorded.plan_hash != plan_hash:
        raise EvidenceError(
            f"run {run_id!r}: the authorization was decided for another plan; nothing was sent. "
            f"Run `{repro_command(plan.model.api_key_env)}` (without --single-item)"
        )
    admitted = Admitted(run=run_id, plan=plan, ledger_root=params.ledger_root)
    if plan.budget.paid:
        spec = params.run(run_id)
        try:
            current = decide(plan, spec)
        except AuthorizationError as exc:
            raise SpendRefused(f"{exc} Nothing was sent.") from None
        _refuse_changed_since_authorize(plan, recorded, current)
        ledger = admitted.ledger
        state = ledger.state()
        if current.state != "authorized" and not state.begun:
            return admitted.model_copy(update={"awaiting": True})
        if not state.begun:
            check_spendable(plan, spec, ledger, state, ledger_root=params.ledger_root)
            _refuse_stale_plan(plan, lambda: current_plan(run_id, params))
    return admitted


def send(
    admitted: Admitted,
    factory: Callable[[Plan, Path], Callable[[], Provider]] = provider_factory,
    preflight: CheckReport | None = None,
) -> Executed:
    """Send the run's calls (concurrency one, plan order; ``assay.execute``) under its ledger's
    exclusive lock; a run awaiting authorization sends nothing and opens no ledger."""
    plan = admitted.plan
    if admitted.awaiting:
        return Executed(run=admitted.run, records=tuple(awaiting(plan)))
    ledger = Ledger.open(Path(admitted.ledger_root), admitted.run, plan.hash, paid=plan.budget.paid)
    with ledger.exclusive() as opened:
        if plan.budget.paid and not opened.state().begun:
            seal(opened.directory, plan)  # what its evidence needs, should an edit re-plan it
        rows = evidence.read_run_prompt_rows(plan.run, plan.scenario)
        prompts = {key: row.prompt for key, row in rows.items()}
        renderer = ChainRenderer(rows, plan.analysis.extraction)
        executor = Executor(
            plan, opened, prompts, factory(plan, opened.directory), next_prompt=renderer
        )
        with SpendProgress(plan) as observe, closing(executor):
            records = executor.run(observe)
    return Executed(
        run=admitted.run,
        records=tuple(records),
        preflight=preflight,
        free_remote=not plan.budget.paid and _is_remote(plan),
        api_key_env=plan.model.api_key_env,
    )


def collect(
    run_id: str,
    params: Params,
    *,
    current_plan: Callable[[str, Params], Plan] = make_plan,
    records: Sequence[CallRecord] | None = None,
) -> list[CallRecord]:
    """The run's ``cells`` table from the ``send`` stage's receipt and the responses in the
    run's ledger, or from ``records`` the execute stage has just sent itself. It sends nothing;
    it re-checks the authorization as sending does, so a run whose authorization changed since
    is refused here too."""
    admitted = admit(run_id, params, current_plan=current_plan)
    if records is not None:
        records = list(records)
    elif admitted.awaiting:
        records = awaiting(admitted.plan)
    else:
        records = received(admitted)
    evidence.write_table(evidence.CELLS, run_id, records)
    rendered = evidence.read_run_prompt_rows(run_id, admitted.plan.scenario).values()
    prompts = sent_prompt_rows(run_id, records, admitted.ledger, [r.prompt for r in rendered])
    evidence.write_table(evidence.PROMPT_TEXTS, run_id, prompts)
    return records


def sent_prompt_rows(
    run_id: str, records: Sequence[CallRecord], ledger: Ledger, rendered: Iterable[str]
) -> list[SentPromptRow]:
    """The prompt of every call's ``prompt_digest``, once per digest, from the ledger's object
    store (where each was written before its intent); a ledger from before prompts were stored
    falls back to the rendered step-1 prompts, and a digest found in neither has no row."""
    by_digest = {sha256_hex(text): text for text in rendered}
    rows = []
    for digest in sorted({r.prompt_digest for r in records if r.prompt_digest}):
        stored = ledger.objects / digest
        text = stored.read_bytes().decode("utf-8") if stored.is_file() else by_digest.get(digest)
        if text is not None:
            rows.append(SentPromptRow(run=run_id, prompt_digest=digest, prompt=text))
    return rows


def received(admitted: Admitted) -> list[CallRecord]:
    """The calls of the ``send`` stage's receipt, each completed call's text read back from the
    ledger (checked against the digest the receipt and the ledger's outcome both name)."""
    run_id = admitted.run
    receipt = evidence.read_receipt(run_id)
    if receipt.plan_hash != admitted.plan.hash or receipt.ledger_root != admitted.ledger_root:
        raise EvidenceError(
            f"run {run_id!r}: the send stage's receipt is for plan {receipt.plan_hash} in "
            f"{receipt.ledger_root!r}, not the current plan {admitted.plan.hash} in "
            f"{admitted.ledger_root!r}; run `{repro_command(admitted.plan.model.api_key_env)}` "
            "(without --single-item)"
        )
    ledger = admitted.ledger
    outcomes = ledger.state().outcomes if any(c.text_digest for c in receipt.calls) else {}
    records = []
    for call in receipt.calls:
        text = None
        if call.text_digest is not None:
            key = call.call
            outcome = outcomes.get(key)
            if outcome is None or outcome.text_digest != call.text_digest:
                raise EvidenceError(
                    f"run {run_id!r}: the ledger {ledger.directory} holds no response "
                    f"{call.text_digest} for {key}, which the send stage received; restore the "
                    "ledger (ledger_root) this run was sent with"
                )
            text = ledger.load(call.text_digest).decode("utf-8")
        records.append(CallRecord(**call.model_dump(exclude={"text_digest", "text"}), text=text))
    return records


def receipt(admitted: Admitted, executed: Executed) -> evidence.SendReceipt:
    """What the ``send`` stage keeps of one run: its calls without their texts (which stay in
    the ledger, named by digest)."""
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


def pending(plan: Plan, state: LedgerState) -> bool:
    """Some call of the plan has no completed outcome yet."""
    return any(
        not state.completed(cell.call(step))
        for cell in plan.sendable
        for step in range(1, cell.steps + 1)
    )
