"""``execute`` stage: the only stage that talks to a provider.

It reads the plan, the authorization and the rendered prompts. Only the simulated stand-in
also reads the scenario (its answer book); real providers receive the prompt and nothing else.

Before the first paid request of a run (paid plan, authorized, its ledger not begun) the stage
runs the same free checks as ``assay check-provider``; when any fails it sends nothing, does
not open the ledger and writes no table, so the run can still start once the cause is fixed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from assay import evidence
from assay.authorize import Authorization
from assay.errors import EvidenceError
from assay.evidence import CallRecord
from assay.execute import Executor, record_for
from assay.ledger import Ledger
from assay.params import Params
from assay.pipeline.chain import ChainRenderer
from assay.plan import Plan
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
    """The pre-flight checks, when this invocation was about to send the run's first paid
    request; ``None`` when none were due (free, awaiting authorization, or already begun)."""

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


def first_paid_request_due(plan: Plan, authorization: Authorization, ledger_root: Path) -> bool:
    """A paid, authorized run whose ledger has no intent yet: the next request would be its
    first. Reads the ledger folder without creating it."""
    if not plan.budget.paid or authorization.state != "authorized":
        return False
    return not Ledger.at(ledger_root, plan.run, plan.hash).state().begun


def run(
    run_id: str,
    params: Params,
    factory: Callable[[Plan], Callable[[], Provider]] = provider_factory,
    *,
    env: Mapping[str, str] = os.environ,
    checks: Checks = run_checks,
) -> Executed:
    plan = evidence.read_plan(run_id)
    authorization = evidence.read_authorization(run_id)
    if authorization.plan_hash != plan.hash:
        raise EvidenceError(
            f"run {run_id!r}: authorization was decided for another plan; run `dvc repro` again"
        )
    ledger_root = Path(params.ledger_root)
    preflight = None
    if authorization.state == "awaiting-authorization":
        records = awaiting(plan)
    else:
        if first_paid_request_due(plan, authorization, ledger_root):
            preflight = checks(plan.model, env)
            if not preflight.passed:
                return Executed(run=run_id, preflight=preflight)
        ledger = Ledger.open(ledger_root, run_id, plan.hash, paid=plan.budget.paid)
        rows = evidence.read_prompt_rows(plan.scenario)
        prompts = {key: row.prompt for key, row in rows.items()}
        executor = Executor(plan, ledger, prompts, factory(plan), next_prompt=ChainRenderer(rows))
        records = executor.run()
    evidence.write_table(evidence.CELLS, run_id, records)
    return Executed(run=run_id, records=tuple(records), preflight=preflight)
