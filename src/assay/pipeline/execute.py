"""``execute`` stage: the only stage that talks to a provider.

It reads the plan, the authorization and the rendered prompts. Only the simulated stand-in
also reads the scenario (its answer book); real providers receive the prompt and nothing else.

Before the first paid request of a run the stage re-reads params.yaml and rebuilds the plan:
the authorization must still be the one the authorize stage recorded, the plan unchanged, and
the run's ledger here, where it was authorized, holding the token params.yaml carries
(``assay.authorize.check_spendable``). Then, before a real provider (paid, or free with calls
left to send) receives anything, it runs the same free checks as ``assay check-provider``;
when any fails it sends nothing, does not open the ledger and writes no table, so the run can
still start once the cause is fixed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from assay import evidence
from assay.authorize import (
    Authorization,
    AuthorizationError,
    SpendRefused,
    check_spendable,
    decide,
)
from assay.digest import sha256_hex
from assay.errors import EvidenceError
from assay.evidence import CallRecord, SentPromptRow
from assay.execute import FREE_ATTEMPTS, Executor, call_key, record_for, retryable
from assay.ledger import Ledger, LedgerState
from assay.params import Params
from assay.pipeline.chain import ChainRenderer
from assay.pipeline.plan import make_plan
from assay.plan import Plan
from assay.progress import progress
from assay.providers.base import ModelProfile, Provider
from assay.providers.check import CheckReport, run_checks
from assay.providers.factory import ProviderConfigError, make_provider
from assay.providers.replay import ReplayProvider
from assay.providers.simulated import SimulatedProvider, answer_book
from assay.records import Frozen

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

    @property
    def retry_due(self) -> tuple[CallRecord, ...]:
        """Calls of a free remote run that failed and will be sent again on the next
        ``dvc repro`` (fewer than ``FREE_ATTEMPTS`` attempts so far)."""
        if not self.free_remote:
            return ()
        return tuple(r for r in self.records if retryable(r))

    def retry_message(self) -> str:
        retry = self.retry_due
        failed = [r for r in retry if r.status != "budget-halted"] or list(retry)
        first = failed[0]
        return (
            f"run {self.run!r}: {len(retry)} calls of this free run were not answered (first: "
            f"{first.cell_id} step {first.step}, {first.reason}); a free model costs nothing to "
            f"retry, so the next `dvc repro` sends them again (at most {FREE_ATTEMPTS} attempts "
            "per call)"
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
            "them again), then run `dvc repro`; a change to the profile needs a new plan and "
            "authorization."
        )


def provider_factory(plan: Plan) -> Callable[[], Provider]:
    profile = plan.model

    def make() -> Provider:
        if profile.provider == "simulated":
            return SimulatedProvider(
                profile, answer_book(evidence.read_scenario(plan.scenario).subjects)
            )
        if profile.provider == "replay":
            if not profile.replay_ledger:
                raise ProviderConfigError(
                    "a replay profile needs replay_ledger (the earlier run's ledger folder)"
                )
            return ReplayProvider(Path(profile.replay_ledger))
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


def _refuse_changed_since_authorize(
    plan: Plan, recorded: Authorization, current: Authorization
) -> None:
    if current.state != recorded.state:
        raise SpendRefused(
            f"run {plan.run!r}: params.yaml now says {current.state} ({current.reason}) but the "
            f"authorize stage recorded {recorded.state}; nothing was sent. Run `dvc repro` "
            "(without --single-item) so every stage sees the change"
        )


def _refuse_stale_plan(plan: Plan, current_plan: Callable[[], Plan]) -> None:
    rebuilt = current_plan()
    if rebuilt.hash != plan.hash:
        raise SpendRefused(
            f"run {plan.run!r}: params.yaml or the stage inputs changed since the plan was made "
            f"(recorded plan {plan.hash}, current plan {rebuilt.hash}); nothing was sent. Run "
            f"`dvc repro`, inspect the new plan (`assay plan show {plan.run}`) and authorize it"
        )


def _is_remote(plan: Plan) -> bool:
    """A real provider (paid or free), not the simulated or replayed stand-ins."""
    return plan.model.provider not in ("simulated", "replay")


def run(
    run_id: str,
    params: Params,
    factory: Callable[[Plan], Callable[[], Provider]] = provider_factory,
    *,
    env: Mapping[str, str] = os.environ,
    checks: Checks = run_checks,
    current_plan: Callable[[str, Params], Plan] = make_plan,
) -> Executed:
    """Execute one run. A paid run re-checks, immediately before its pre-flight, that
    params.yaml still authorizes the plan as the authorize stage recorded, that the plan is
    still the current one, and that its ledger may spend (``check_spendable``)."""
    plan = evidence.read_plan(run_id)
    plan_hash = plan.hash
    recorded = evidence.read_authorization(run_id)
    if recorded.plan_hash != plan_hash:
        raise EvidenceError(
            f"run {run_id!r}: the authorization was decided for another plan; nothing was sent. "
            "Run `dvc repro` (without --single-item)"
        )
    ledger_root = Path(params.ledger_root)
    spec = params.run(run_id)
    ledger = Ledger.at(ledger_root, run_id, plan_hash)
    if plan.budget.paid:
        try:
            current = decide(plan, spec)
        except AuthorizationError as exc:
            raise SpendRefused(f"{exc} Nothing was sent.") from None
        _refuse_changed_since_authorize(plan, recorded, current)
        state = ledger.state()
        if current.state != "authorized" and not state.begun:
            return _written(run_id, awaiting(plan), prompts=[])
        if not state.begun:
            check_spendable(plan, spec, ledger, state, ledger_root=params.ledger_root)
            _refuse_stale_plan(plan, lambda: current_plan(run_id, params))
    preflight = None
    state = ledger.state()
    if _is_remote(plan) and not (plan.budget.paid and state.begun) and pending(plan, state):
        preflight = checks(plan.model, env)
        if not preflight.passed:
            return Executed(run=run_id, preflight=preflight)
    with Ledger.open(ledger_root, run_id, plan_hash, paid=plan.budget.paid).exclusive() as opened:
        rows = evidence.read_prompt_rows(plan.scenario)
        prompts = {key: row.prompt for key, row in rows.items()}
        renderer = ChainRenderer(rows, plan.analysis.extraction)
        executor = Executor(plan, opened, prompts, factory(plan), next_prompt=renderer)
        with SpendProgress(plan) as observe:
            records = executor.run(observe)
        sent = sent_prompt_rows(run_id, records, opened, prompts.values())
    return _written(
        run_id,
        records,
        preflight,
        prompts=sent,
        free_remote=not plan.budget.paid and _is_remote(plan),
    )


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


def pending(plan: Plan, state: LedgerState) -> bool:
    """Some call of the plan has no completed outcome yet."""
    return any(
        state.outcomes.get(call_key(cell, step), {}).get("status") != "completed"
        for cell in plan.sendable
        for step in range(1, cell.steps + 1)
    )


def _written(
    run_id: str,
    records: Sequence[CallRecord],
    preflight: CheckReport | None = None,
    *,
    prompts: Sequence[SentPromptRow],
    free_remote: bool = False,
) -> Executed:
    evidence.write_table(evidence.CELLS, run_id, list(records))
    evidence.write_table(evidence.PROMPT_TEXTS, run_id, list(prompts))
    return Executed(
        run=run_id, records=tuple(records), preflight=preflight, free_remote=free_remote
    )
