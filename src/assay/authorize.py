"""Authorization: a paid run spends only when ``params.yaml`` names the current plan hash twice
(``authorization`` and ``plan_ref``) and opts in with ``allow_paid: true``.

Free profiles need none. A paid run with no authorization is *awaiting authorization*: the
pipeline succeeds and spends nothing. An authorization naming another hash is an error: the
plan changed since it was approved.
"""

from __future__ import annotations

from typing import Literal

from assay.errors import AuthorizationError
from assay.params import RunSpec
from assay.plan import Plan
from assay.records import Frozen

AuthorizationState = Literal["free", "authorized", "awaiting-authorization"]


class Authorization(Frozen):
    run: str
    state: AuthorizationState
    plan_hash: str
    cells: int
    requests: int
    worst_case_usd: float
    reason: str


def decide(plan: Plan, run: RunSpec) -> Authorization:
    def result(state: AuthorizationState, reason: str) -> Authorization:
        return Authorization(
            run=plan.run,
            state=state,
            plan_hash=plan.hash,
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
        if value != plan.hash:
            shown = value if value is not None else "nothing"
            raise AuthorizationError(
                f"run {plan.run!r}: the plan changed since it was approved — runs.{plan.run}.{field} "
                f"is {shown} but the current plan hash is {plan.hash}. Inspect the new plan "
                f"(assay plan show {plan.run}) and authorize it again."
            )
    if not run.allow_paid:
        return result(
            "awaiting-authorization",
            "plan hash approved but allow_paid is false; nothing will be spent",
        )
    return result("authorized", "plan hash given twice and allow_paid is true")
