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

from collections.abc import Collection
from pathlib import Path

from assay.config.params import RunSpec
from assay.core.errors import AuthorizationError
from assay.evidence.documents import Authorization, AuthorizationState
from assay.paid.ledger import Ledger, LedgerState, begun_plans
from assay.paid.plan import Plan
from assay.paid.preregistration import record_plan, stale_authorization


class SpendRefused(AuthorizationError):
    """A paid run may not send here and now (revoked, stale, or its ledger is not where it was
    authorized): the message says why and what to do; nothing was sent."""


def fresh_run_id(run: str, taken: Collection[str]) -> str:
    """The first of ``RUN-2``, ``RUN-3``, … not declared yet."""
    number = 2
    while f"{run}-{number}" in taken:
        number += 1
    return f"{run}-{number}"


def replanned_after_spending(
    run: str,
    sent_hash: str,
    state: LedgerState,
    new_hash: str,
    *,
    root: Path,
    fresh: str,
    kept: bool,
) -> str:
    """What a paid run that sent under plan ``sent_hash`` is now that an edit gives its
    settings ``new_hash``, and the exact commands on. ``kept``: its plan and inputs were sealed
    with its ledger (``assay.paid.seal``), so its evidence and report stay as they were."""
    answered = sum(1 for o in state.outcomes.values() if o.status == "completed")
    spent = sum(o.cost_usd or 0.0 for o in state.outcomes.values())
    sent = (
        f"run {run!r} already sent under plan {sent_hash} (its ledger {root / run / sent_hash} "
        f"holds {answered} answered of {len(state.intents)} calls, ${spent:.4f} reported "
        "spent), and a paid run is never re-planned"
    )
    new_run = (
        f"`uv run assay run add {fresh} --like {run}`, `uv run dvc repro`, `uv run assay plan "
        f"show {fresh}`, then `uv run assay authorize {fresh} --plan-hash HASH`"
    )
    if kept:
        return (
            f"{sent}: its evidence and report stay as they were, from the plan, subjects and "
            f"prompts it was sent (kept with its ledger). An edit since changes what its "
            f"settings would send (plan {new_hash} under this run id: data/plan/{run}/next.json); "
            f"a new run id gets that plan, awaiting its own authorization: {new_run}"
        )
    return (
        f"{sent}; an edit since gives it plan {new_hash}. To keep {run}'s evidence and report, "
        "undo the edit (`git diff -- params.yaml` and the fixtures show it). To study the edit, "
        f"declare it as a new run: {new_run}"
    )


def replanned_refusal(
    plan: Plan, root: Path, taken: Collection[str], *, kept: bool = False
) -> str | None:
    """Why ``plan`` may not be authorized because its run already sent under another plan
    here, or ``None``."""
    begun = begun_plans(root, plan.run)
    if not begun or plan.hash in begun:
        return None
    sent_hash, state = next(iter(begun.items()))
    fresh = fresh_run_id(plan.run, taken)
    return replanned_after_spending(
        plan.run, sent_hash, state, plan.hash, root=root, fresh=fresh, kept=kept
    )


def decide(
    plan: Plan, run: RunSpec, ledger_root: Path | None = None, taken: Collection[str] = ()
) -> Authorization:
    """The run's authorization state under ``plan``. ``ledger_root``: where ledgers are, so a
    paid run re-planned after it began sending is named as such (with the ways on; ``taken``:
    the declared run ids, so the new one suggested is free)."""
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
            replanned = (
                None
                if ledger_root is None
                else replanned_refusal(plan, ledger_root, (plan.run, *taken))
            )
            if replanned is not None:
                raise AuthorizationError(replanned)
            stale = None if ledger_root is None else stale_authorization(plan, run, ledger_root)
            if stale is not None:
                raise AuthorizationError(stale)
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
    replanned = replanned_refusal(plan, root, (plan.run,))
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
    token = Ledger.authorize(root, plan.run, plan.hash, ledger_root=ledger_root)
    record_plan(Ledger.at(root, plan.run, plan.hash).directory, plan)  # what was approved
    return token


EXPERIMENT_COPIES = Path(".dvc") / "tmp" / "exps"
"""Where DVC runs a ``dvc exp run --temp`` or queued experiment: a copy of the workspace."""


def in_experiment_copy(folder: Path) -> bool:
    """``folder`` is inside a DVC experiment's temporary copy of a workspace."""
    parts = folder.resolve().parts
    tail = EXPERIMENT_COPIES.parts
    return any(parts[i : i + len(tail)] == tail for i in range(len(parts) - len(tail) + 1))


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
        if in_experiment_copy(Path.cwd()):
            raise SpendRefused(
                f"run {name!r}: this authorization belongs to a ledger that is not in this "
                f"experiment's temporary copy ({ledger.directory} under {Path.cwd()}); nothing "
                "was sent. `dvc exp run --temp` and queued experiments run in a copy without "
                "the git-ignored ledger: run the experiment in the workspace (`dvc exp run` "
                "without --temp or --queue), or set an absolute ledger_root and authorize again"
            )
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
