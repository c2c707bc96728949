"""Qualified routes: a hosted route carries a study only after a small paid run on it has passed.

A *route* is where a paid profile sends (:class:`Route`): its provider, model, pinned upstream
provider, base URL and deployment. Every route that costs money needs a qualification; free
ones (simulated, replayed, local, or priced at zero) need none. A *qualification run* is a run
declared with ``qualifies: true`` on a profile of that route: its plan sends a fixed sample of
its scenario's cells (``sample``, 12 unless given, as the seed's Haiku route was qualified),
and it is authorized and sent like any paid run, needing no qualification itself.

What it found is read from its ledger, against the plan it was sent under (kept with the
ledger, ``assay.paid.seal``): the calls answered, failed or never sent, a halt, the cost
reported against the reservations, the model and provider every answer named, and the latency
(:class:`Finding`). It passes when every call of that plan was answered, nothing halted, every
answer named the profile's model and pinned provider (or their declared aliases) and no call
reported more than it reserved. ``assay authorize`` refuses a run on a route no declared
qualification run has passed on (:func:`refusal`): the authorization it issues is the only one
the send stage accepts, so no other run on the route can spend. ``assay plan show`` names the
qualification and what it found (:func:`lines`).
"""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path
from typing import Literal

from assay.config.params import Params, RunSpec
from assay.core.records import CallKey, Frozen
from assay.evidence.plan import Plan, load_plan
from assay.paid.ledger import Ledger, LedgerState, begun_plans
from assay.paid.seal import PLAN, SEALED
from assay.providers.base import ModelProfile

State = Literal["awaiting-authorization", "authorized", "passed", "failed"]


class Route(Frozen):
    """Where a profile's requests go and who must answer them."""

    provider: str
    model: str
    provider_pin: str | None
    base_url: str | None
    deployment: str | None

    @classmethod
    def of(cls, profile: ModelProfile) -> Route:
        return cls(
            provider=profile.provider,
            model=profile.model,
            provider_pin=profile.provider_pin,
            base_url=profile.base_url,
            deployment=profile.deployment,
        )

    def text(self) -> str:
        return (
            f"{self.provider} {self.model}"
            + (f" pinned to {self.provider_pin}" if self.provider_pin else "")
            + (f", deployment {self.deployment}" if self.deployment else "")
            + (f" at {self.base_url}" if self.base_url else "")
        )


def needs_qualification(profile: ModelProfile) -> bool:
    """A route that costs money needs a qualification; a free one does not."""
    return not profile.is_free


class Finding(Frozen):
    """What one qualification run found, from its ledger."""

    run: str
    state: State
    plan_hash: str | None = None
    """The plan it was sent under (``None``: not sent)."""
    calls: int = 0
    """The calls that plan sends."""
    answered: int = 0
    failed: int = 0
    """Calls the provider failed, or answered as another model or provider."""
    unsent: int = 0
    """Calls never sent, or sent without an outcome (halted, interrupted)."""
    halt: str | None = None
    reserved_usd: float = 0.0
    reported_usd: float = 0.0
    served: tuple[str, ...] = ()
    """Every ``model by provider`` the answers named, as they named it."""
    latency_median_seconds: float | None = None
    latency_max_seconds: float | None = None
    problems: tuple[str, ...] = ()
    """Why it did not pass (empty when it passed, or is not sent yet)."""

    @property
    def passed(self) -> bool:
        return self.state == "passed"

    def text(self) -> str:
        """What it found, in one sentence."""
        if self.state == "awaiting-authorization":
            return f"{self.run}: awaiting authorization, nothing sent"
        if self.state == "authorized":
            return f"{self.run}: authorized, not sent yet"
        found = (
            f"{self.answered} of {self.calls} calls answered"
            + (f", {self.failed} failed" if self.failed else "")
            + (f", {self.unsent} not sent" if self.unsent else "")
            + f"; ${self.reported_usd:.6f} reported of ${self.reserved_usd:.4f} reserved"
            + (f"; served {', '.join(self.served)}" if self.served else "")
            + (
                f"; latency median {self.latency_median_seconds:.2f} s, "
                f"max {self.latency_max_seconds:.2f} s"
                if self.latency_median_seconds is not None and self.latency_max_seconds is not None
                else ""
            )
        )
        if self.passed:
            return f"{self.run}: passed ({found})"
        return f"{self.run}: failed ({found}): {'; '.join(self.problems)}"


def _sealed_plan(ledger: Ledger) -> Plan | None:
    path = ledger.directory / SEALED / PLAN / "plan.json"
    return load_plan(path.read_bytes()) if path.is_file() else None


def _expected_calls(plan: Plan) -> list[CallKey]:
    """Every call the plan may send (a ceiling that admits fewer leaves the rest unsent)."""
    return [cell.call(step) for cell in plan.sendable for step in range(1, cell.steps + 1)]


def _identity_problems(profile: ModelProfile, state: LedgerState) -> list[str]:
    models = (profile.model, *profile.aliases)
    providers = (profile.provider_pin, *profile.provider_aliases)
    problems = []
    for key, outcome in sorted(state.outcomes.items(), key=lambda item: str(item[0])):
        if outcome.status != "completed":
            continue
        if outcome.served_model not in models:
            problems.append(f"{key} was answered by model {outcome.served_model!r}")
        if profile.provider_pin is not None and outcome.served_provider not in providers:
            problems.append(f"{key} was answered by provider {outcome.served_provider!r}")
    return problems


def _cost_problems(state: LedgerState) -> list[str]:
    problems = []
    for key, outcome in sorted(state.outcomes.items(), key=lambda item: str(item[0])):
        intent = state.intents.get(key)
        reserved = intent.reservation_nano_usd / 1e9 if intent is not None else 0.0
        if outcome.cost_usd is not None and outcome.cost_usd > reserved:
            problems.append(
                f"{key} reported ${outcome.cost_usd:.6f}, above its ${reserved:.4f} reserved"
            )
    return problems


def _found(
    run_id: str, route: Route, plan_hash: str, ledger: Ledger, state: LedgerState
) -> Finding:
    plan = _sealed_plan(ledger)
    if plan is None:
        return Finding(
            run=run_id,
            state="failed",
            plan_hash=plan_hash,
            problems=(
                f"the plan it was sent under is not kept with its ledger ({ledger.directory})",
            ),
        )
    expected = _expected_calls(plan)
    answered = sum(state.completed(key) for key in expected)
    failed = sum(1 for key in expected if key in state.outcomes and not state.completed(key))
    unsent = sum(1 for key in expected if key not in state.outcomes)
    latencies = [o.latency_seconds for o in state.outcomes.values() if o.status == "completed"]
    served = sorted(
        {
            f"{o.served_model or '?'} by {o.served_provider or '?'}"
            for o in state.outcomes.values()
            if o.status == "completed"
        }
    )
    problems = []
    if plan.qualification is None:
        problems.append("it was planned and sent as a study, not as a qualification run")
    if Route.of(plan.model) != route:
        problems.append(f"it was sent on another route ({Route.of(plan.model).text()})")
    if answered < len(expected):
        problems.append(f"{len(expected) - answered} of its {len(expected)} calls not answered")
    if state.halt_reason is not None:
        problems.append(f"it halted: {state.halt_reason}")
    problems += _identity_problems(plan.model, state)
    problems += _cost_problems(state)
    return Finding(
        run=run_id,
        state="failed" if problems or not expected else "passed",
        plan_hash=plan_hash,
        calls=len(expected),
        answered=answered,
        failed=failed,
        unsent=unsent,
        halt=state.halt_reason,
        reserved_usd=state.reserved_nano_usd / 1e9,
        reported_usd=sum(o.cost_usd or 0.0 for o in state.outcomes.values()),
        served=tuple(served),
        latency_median_seconds=statistics.median(latencies) if latencies else None,
        latency_max_seconds=max(latencies) if latencies else None,
        problems=tuple(problems) if expected else ("its plan sends no call",),
    )


def finding(run_id: str, run: RunSpec, route: Route, root: Path) -> Finding:
    """What the qualification run ``run_id`` found on ``route``, from its ledger under
    ``root`` (a paid run begins under one plan only)."""
    begun = begun_plans(root, run_id)
    if not begun:
        authorized = run.allow_paid and run.authorization_token is not None
        return Finding(run=run_id, state="authorized" if authorized else "awaiting-authorization")
    plan_hash, state = next(iter(begun.items()))
    return _found(run_id, route, plan_hash, Ledger.at(root, run_id, plan_hash), state)


def findings(plan: Plan, params: Params) -> tuple[Finding, ...]:
    """Every declared qualification run on ``plan``'s route but the plan's own, and what each
    found."""
    route = Route.of(plan.model)
    root = Path(params.ledger_root)
    return tuple(
        finding(run_id, run, route, root)
        for run_id, run in params.runs.items()
        if run.qualifies and run_id != plan.run and Route.of(params.models[run.model]) == route
    )


def _declare(run: str, taken: tuple[str, ...], repro: str) -> str:
    names = itertools.chain([f"{run}-qualify"], (f"{run}-qualify-{n}" for n in itertools.count(2)))
    name = next(candidate for candidate in names if candidate not in taken)
    return (
        f"`uv run assay run add {name} --like {run} --qualifies`, `uv run dvc repro`, "
        f"`uv run assay plan show {name}`, `uv run assay authorize {name} --plan-hash HASH`, "
        f"`{repro}`"
    )


def refusal(plan: Plan, params: Params, *, repro: str) -> str | None:
    """Why ``assay authorize`` refuses ``plan`` for want of a qualified route, or ``None``: a
    free plan, a qualification run, and a run on a route a qualification run passed on go on.
    ``repro``: the command that sends a paid run."""
    if not needs_qualification(plan.model) or plan.qualification is not None:
        return None
    found = findings(plan, params)
    if any(f.passed for f in found):
        return None
    route = Route.of(plan.model).text()
    declare = _declare(plan.run, tuple(params.runs), repro)
    head = f"run {plan.run!r}: its route ({route}) is not qualified"
    then = f"; then authorize {plan.run} again (docs/paid-runs.md)"
    waiting = [f for f in found if f.state in ("awaiting-authorization", "authorized")]
    if waiting:
        name = waiting[0].run
        steps = (
            f"`uv run assay plan show {name}`, `uv run assay authorize {name} --plan-hash HASH`, "
            f"`{repro}`"
            if waiting[0].state == "awaiting-authorization"
            else f"`{repro}`"
        )
        return f"{head}: {waiting[0].text()}. Send it first: {steps}{then}"
    if found:
        return f"{head}: {found[-1].text()}. Declare a new qualification run: {declare}{then}"
    return (
        f"{head}: no qualification run is declared on it. A small paid run on the route must "
        f"answer every call as the declared model and provider first: {declare}{then}"
    )


def lines(plan: Plan, params: Params, *, repro: str) -> list[str]:
    """What ``assay plan show`` says of the plan's route: the qualification it needs and what
    each qualification run found (nothing for a free plan)."""
    if not needs_qualification(plan.model):
        return []
    route = Route.of(plan.model)
    if plan.qualification is not None:
        own = finding(plan.run, params.run(plan.run), route, Path(params.ledger_root))
        return [
            (
                f"qualifies      the route {route.text()}: {plan.qualification.sample} of the "
                f"scenario's {plan.qualification.of} cells, a fixed sample; it needs no "
                "qualification itself"
            ),
            f"found          {own.text()}",
        ]
    found = findings(plan, params)
    shown = [f"qualification  {f.text()}" for f in found]
    if any(f.passed for f in found):
        return [*shown, "route          qualified: `assay authorize` may authorize this run"]
    if not found:
        declare = _declare(plan.run, tuple(params.runs), repro)
        return [
            (
                "qualification  none declared on this route: `assay authorize` refuses this run "
                f"until one passes. Declare one: {declare}"
            )
        ]
    return [
        *shown,
        (
            "route          not qualified: `assay authorize` refuses this run until a "
            "qualification run on it passes"
        ),
    ]
