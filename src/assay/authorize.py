"""Authorization: a paid run spends only when ``params.yaml`` names the current plan hash twice
(``authorization`` and ``plan_ref``), opts in with ``allow_paid: true``, and carries the token
of a ledger that is here, where it was authorized, and has not begun.

Free profiles need none. A paid run with no authorization is *awaiting authorization*: the
pipeline succeeds and spends nothing. An authorization naming another hash is an error: the
plan changed since it was approved.

The authorization is consumed, not copied: ``assay authorize`` creates the run's ledger with a
random token (``Ledger.authorize``) and writes the token into params.yaml. params.yaml travels
with git; the ledger does not. So a clone, ``git clean``, or a changed ``ledger_root`` carries
a token whose ledger is not here, and ``check_spendable`` refuses it before anything is sent.
"""

from __future__ import annotations

from pathlib import Path

from assay.errors import AuthorizationError
from assay.evidence.documents import Authorization, AuthorizationState
from assay.ledger import Ledger, LedgerState, begun_plans
from assay.params import RunSpec
from assay.plan import Plan


class SpendRefused(AuthorizationError):
    """A paid run may not send here and now (revoked, stale, or its ledger is not where it was
    authorized): the message says why and what to do; nothing was sent."""


def replanned_after_spending(
    plan: Plan, run: RunSpec, begun: dict[str, LedgerState], root: Path
) -> str:
    """What a paid run that began sending under another plan is, and the two ways on: undo
    the edit that re-planned it, or give the edit a run id of its own."""
    old_hash, state = next(iter(begun.items()))
    answered = sum(1 for o in state.outcomes.values() if o.get("status") == "completed")
    spent = sum(o.get("cost_usd") or 0.0 for o in state.outcomes.values())
    fresh = f"{plan.run}-2"
    return (
        f"run {plan.run!r} already sent under plan {old_hash} (its ledger {root / plan.run / old_hash} "
        f"holds {answered} answered of {len(state.intents)} calls, ${spent:.4f} reported spent); "
        f"an edit since gives it plan {plan.hash}, and a paid run is never re-planned. To keep "
        f"{plan.run}'s evidence and report, undo the edit (`git diff -- params.yaml "
        f"fixtures` shows it). To study the edit, declare it as a new run: `uv run assay run "
        f"add {fresh} --model {run.model} --scenario {run.scenario}`, then `uv run assay plan "
        f"show {fresh}` and `uv run assay authorize {fresh} --plan-hash HASH`"
    )


def replanned_refusal(plan: Plan, run: RunSpec, root: Path) -> str | None:
    """Why ``plan`` may not be authorized because its run already sent under another plan
    here, or ``None``."""
    begun = begun_plans(root, plan.run)
    if begun and plan.hash not in begun:
        return replanned_after_spending(plan, run, begun, root)
    return None


def decide(plan: Plan, run: RunSpec, ledger_root: Path | None = None) -> Authorization:
    """The run's authorization state under ``plan``. ``ledger_root``: where ledgers are, so a
    paid run re-planned after it began sending is named as such (with both ways on)."""
    plan_hash = plan.hash  # computed once: it hashes the whole plan

    def result(state: AuthorizationState, reason: str) -> Authorization:
        return Authorization(
            run=plan.run,
            state=state,
            plan_hash=plan_hash,
            cells=len(plan.cells),
            requests=plan.budget.requests,
            worst_case_usd=plan.budget.worst_case_usd,
            reason=reason,
        )

    if not plan.budget.paid:
        return result("free", "free profile: no authorization needed")
    given = {"authorization": run.authorization, "plan_ref": run.plan_ref}
    if all(value is None for value in given.values()):
        return result(
            "awaiting-authorization", "no authorization in params.yaml; nothing will be spent"
        )
    for field, value in given.items():
        if value is None:
            other = "plan_ref" if field == "authorization" else "authorization"
            raise AuthorizationError(
                f"run {plan.run!r}: {field} is missing from runs.{plan.run} in params.yaml while "
                f"{other} names a plan; both must name the plan you inspected. Run "
                f"`assay plan show {plan.run}`, then `assay authorize {plan.run} --plan-hash HASH`."
            )
        if value != plan_hash:
            replanned = None if ledger_root is None else replanned_refusal(plan, run, ledger_root)
            if replanned is not None:
                raise AuthorizationError(replanned)
            raise AuthorizationError(
                f"run {plan.run!r}: the plan changed since it was approved: runs.{plan.run}.{field} "
                f"is {value} but the current plan hash is {plan_hash}. Inspect the new plan "
                f"(assay plan show {plan.run}) and authorize it again."
            )
    if not run.allow_paid:
        return result(
            "awaiting-authorization",
            "plan hash approved but allow_paid is false; nothing will be spent",
        )
    return result("authorized", "plan hash given twice and allow_paid is true")


def partial_refusal(plan: Plan) -> str | None:
    """Why ``assay authorize`` refuses a plan its ceiling cannot finish, or ``None``."""
    budget = plan.budget
    if not budget.paid or budget.admitted_requests >= budget.requests:
        return None
    return (
        f"run {plan.run!r}: {budget.admission_text()}, so the run would halt part-way with "
        f"money spent and fewer complete subjects. Raise ceiling_usd to "
        f"${budget.full_ceiling_usd():.2f} (a new plan), or accept a partial run with "
        "--accept-partial"
    )


def issue_token(plan: Plan, run: RunSpec, *, root: Path, ledger_root: str) -> str:
    """Create (or renew, while unspent) the run's paid ledger and return its new token.

    Refuses when params.yaml already carries a token whose ledger is not here: that
    authorization may have been spent in another clone or ledger folder."""
    replanned = replanned_refusal(plan, run, root)
    if replanned is not None:
        raise SpendRefused(replanned)
    ledger = Ledger.at(root, plan.run, plan.hash)
    state = ledger.state()
    if run.authorization_token is not None and (
        state.authorization is None or state.authorization.token != run.authorization_token
    ):
        raise SpendRefused(
            f"run {plan.run!r} was already authorized (runs.{plan.run}.authorization_token) with "
            f"a ledger that is not here ({ledger.directory}); it may have spent elsewhere. Restore "
            "that ledger folder, or declare a new run id and authorize it"
        )
    return Ledger.authorize(root, plan.run, plan.hash, ledger_root=ledger_root)


def check_spendable(
    plan: Plan, run: RunSpec, ledger: Ledger, state: LedgerState, *, ledger_root: str
) -> None:
    """Raise ``SpendRefused`` unless this authorized, unbegun paid run may send its first
    request here: params.yaml's token is the one this ledger issued last, and the ledger is
    where it was authorized."""
    name = plan.run
    fresh_id = "declare a new run id and authorize it"
    if run.authorization_token is None:
        raise SpendRefused(
            f"run {name!r}: runs.{name}.authorization_token is missing, so no ledger backs this "
            f"authorization; nothing was sent. Run `assay authorize {name} --plan-hash "
            f"{plan.hash}`, which creates the run's ledger and writes the token"
        )
    if state.authorization is None:
        raise SpendRefused(
            f"run {name!r}: this authorization belongs to a ledger that is not here "
            f"({ledger.directory}); nothing was sent. A clone, `git clean` or a changed "
            f"ledger_root does not carry the ledger: restore that folder (or set ledger_root "
            f"back), or {fresh_id}"
        )
    record = state.authorization
    if record.token != run.authorization_token:
        raise SpendRefused(
            f"run {name!r}: the authorization token in params.yaml is not the one the ledger at "
            f"{ledger.directory} issued; nothing was sent. Use the params.yaml written by "
            f"`assay authorize` with this ledger, or {fresh_id}"
        )
    here = str(ledger.directory.resolve())
    if record.ledger_root != ledger_root or record.location != here:
        raise SpendRefused(
            f"run {name!r}: its ledger was authorized at {record.location} (ledger_root "
            f"{record.ledger_root!r}) but is now at {here} (ledger_root {ledger_root!r}); nothing "
            f"was sent. Move it back, or renew the authorization here with `assay authorize "
            f"{name} --plan-hash {plan.hash}`"
        )
