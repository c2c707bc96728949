"""Admission: every check before a run may send, in order, and what passing them gives
(:class:`Admitted`).

Before the first paid request of a run, params.yaml is re-read and the plan rebuilt: the
authorization must still be the one the authorize stage recorded, the plan unchanged, and the
run's ledger here, where it was authorized, holding the token params.yaml carries
(``assay.paid.authorize.check_spendable``). The pre-flight checks of a real provider (the same free
checks as ``assay check-provider``) come after admission, in the send stage
(``assay.pipeline.send``), once for every run of a key: :meth:`Admitted.preflight_due` says
which runs need them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay import evidence
from assay.config.params import Params
from assay.core.errors import EvidenceError
from assay.core.records import Frozen
from assay.evidence.plan import changes_text
from assay.paid.authorize import (
    Authorization,
    AuthorizationError,
    SpendRefused,
    check_spendable,
    decide,
)
from assay.paid.ledger import Ledger, LedgerState
from assay.paid.plan import Plan
from assay.pipeline.layout import repro_command
from assay.pipeline.plan import make_plan
from assay.providers.factory import STAND_INS


def is_remote(plan: Plan) -> bool:
    """A real provider (paid or free), not a stand-in."""
    return plan.model.provider not in STAND_INS


def pending(plan: Plan, state: LedgerState) -> bool:
    """Some call of the plan has no completed outcome yet."""
    return any(
        not state.completed(cell.call(step))
        for cell in plan.sendable
        for step in range(1, cell.steps + 1)
    )


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
        if self.awaiting or not is_remote(plan):
            return False
        state = self.ledger.state()
        return not (plan.budget.paid and state.begun) and pending(plan, state)


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
        changes = plan.preregistration.changes(rebuilt.preregistration)
        if changes:
            raise SpendRefused(
                f"run {plan.run!r}: its preregistered analysis changed since it was authorized "
                f"({changes_text(changes)}: plan {plan.hash} → {rebuilt.hash}); nothing was "
                f"sent. Run `{repro_command()}`, inspect the new plan (`uv run assay plan show "
                f"{plan.run}`) and authorize it again (`uv run assay authorize {plan.run} "
                f"--plan-hash {rebuilt.hash}`), or undo the edit"
            )
        raise SpendRefused(
            f"run {plan.run!r}: params.yaml or the stage inputs changed since the plan was made "
            f"(recorded plan {plan.hash}, current plan {rebuilt.hash}); nothing was sent. Run "
            f"`{repro_command()}`, inspect the new plan (`uv run assay plan show {plan.run}`) and "
            "authorize it"
        )


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
