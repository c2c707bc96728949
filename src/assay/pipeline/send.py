"""``send`` stage: every run's provider calls, several runs at the same time.

DVC runs one stage at a time in a workspace, so one ``execute@RUN`` stage per run would send the
runs one after another. This one stage sends for every run of params.yaml instead, one thread
per run, and writes a receipt per run (``data/send/<run>/receipt.json``); ``execute@RUN`` turns
that receipt and the responses in the run's ledger into its ``cells`` table and sends nothing
(``assay.pipeline.collect.collect``).

- Within a run nothing changes (``assay.paid.execute``): one call at a time in the plan's order, its
  own ledger (the intent fsync'd before each request, the outcome after it), its own
  reservation ceiling and halts. A halt or a reached ceiling stops that run only.
- Runs whose profiles use the same provider key (:func:`provider_key`) send at most
  ``sending.parallel_runs_per_key`` at a time (local runs ``sending.parallel_local_runs``: the
  machine's cores are their key), in params.yaml's order; the key's credit check
  covers the ceilings of all its runs about to begin, not one run's. Replayed runs start once
  every other run has finished (they read another run's ledger).
- Every check before sending (the authorization, a spendable ledger, a current plan, the
  pre-flight) runs for every run first, one at a time; all but the pre-flight run again, on
  params.yaml read again, when the run's turn to send comes. A run that fails one sends nothing
  and the others still send.
- A free run never stops the others' evidence: the stage writes a receipt for every run: its
  calls (a halted run's included), or why nothing was sent (``refused``). It prints one
  ``assay:`` line per run that stopped short (a halt, a refusal), and each run's report says
  the same, with the next step. Only a paid run refused before sending (an authorization, a
  ledger or a plan that changed, a failed pre-flight: an alarm about money) fails the stage,
  once every other run's receipt is written, as before. A free run left with calls
  unanswered (or refused) gets a fresh token in ``<ledger_root>/resend.json`` from its execute
  stage (``assay.pipeline.resend``), a dependency of this stage, so the next ``dvc repro``
  runs it again: it tries a refused run again and resends the unanswered calls; a ``dvc repro``
  with nothing left runs nothing. A paid run that began is reported from its ledger and never
  resumed. A run whose state did not change gets the same receipt bytes, so nothing after it
  re-runs.
- A kill (even ``kill -9``) leaves each run's ledger as a kill of a single run does: an intent
  without outcome is ``interrupted`` and never sent again.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from assay import evidence
from assay.config.params import Params
from assay.core.errors import AssayError
from assay.core.records import Frozen
from assay.paid.authorize import SpendRefused
from assay.paid.execute import REFUSED_PREFIX, Executor, unsent
from assay.paid.ledger import Ledger
from assay.paid.plan import Plan
from assay.pipeline.admission import Admitted, admit
from assay.pipeline.collect import collect
from assay.pipeline.plan import make_plan
from assay.pipeline.requested import EVERY_RUN, Requested, how_to_send
from assay.pipeline.sending import Checks, Executed, receipt, send
from assay.providers.base import ModelProfile, Provider
from assay.providers.check import CheckReport, run_checks
from assay.providers.factory import STAND_INS, for_run


class Sent(Frozen):
    """What the stage did for one run: what it sent, or the one line saying why it did not."""

    run: str
    executed: Executed | None = None
    error: str | None = None
    deferred_by: str | None = None
    """The DVC command that asked for other runs only: nothing was decided for this one here
    (its execute stage sends it)."""
    paid: bool = False

    @property
    def failure(self) -> str | None:
        """Why the stage fails for this run: a paid run refused before sending (its
        authorization, ledger or plan changed, a pre-flight check failed) is an alarm about
        money that a person answers, so the stage fails once every other run's receipt is
        written. A free run never fails it (its report says why it stopped)."""
        return self.refused if self.paid else None

    @property
    def refused(self) -> str | None:
        """Why nothing was sent for this run (``None``: it was decided)."""
        if self.error is not None:
            return self.error
        if self.executed is not None and self.executed.refused:
            return self.executed.refusal()
        return None

    @property
    def warning(self) -> str | None:
        """What the stage says on stderr of a run that stopped short: why nothing was sent, or
        which calls the next ``dvc repro`` sends again (``None``: nothing to say). Only a paid
        run's refusal fails the stage (:attr:`failure`); otherwise the other runs' evidence and
        reports go on."""
        if self.refused is not None:
            return self.refused
        if self.executed is not None and self.executed.retry_due:
            return self.executed.retry_message()
        return None


def provider_key(profile: ModelProfile) -> str:
    """The credential a run sends with: runs naming the same ``api_key_env`` share a key (and
    its rate limits and credit); the simulated and replayed stand-ins share one each."""
    if profile.provider in STAND_INS:
        return profile.provider
    if profile.provider == "local":
        return "local"  # the machine's own cores
    if profile.api_key_env:
        return f"env:{profile.api_key_env}"
    return f"{profile.provider}:{profile.base_url or profile.deployment or ''}"


def shared_preflights(
    admitted: list[Admitted], checks: Checks, env: Mapping[str, str]
) -> dict[str, CheckReport]:
    """The pre-flight of every run about to send to a real provider, one at a time. The credit
    check of a paid run covers the ceilings of every paid run of its key about to begin."""
    due = [entry for entry in admitted if entry.preflight_due()]
    paid = [entry for entry in due if entry.plan.budget.paid]
    sharing = Counter(provider_key(entry.plan.model) for entry in paid)
    ceilings: dict[str, float] = defaultdict(float)
    for entry in paid:
        key = provider_key(entry.plan.model)
        ceilings[key] = round(ceilings[key] + entry.plan.model.ceiling_usd, 9)
    reports = {}
    for entry in due:
        profile = entry.plan.model
        key = provider_key(profile)
        if entry.plan.budget.paid and sharing[key] > 1:
            shared = profile.model_copy(update={"ceiling_usd": ceilings[key]})
            note = f" (the ceilings of the {sharing[key]} runs of this key about to begin)"
            report = checks(shared, env)
            reports[entry.run] = report.model_copy(
                update={
                    "lines": tuple(
                        line.model_copy(update={"message": line.message + note})
                        if line.check == "credit"
                        else line
                        for line in report.lines
                    )
                }
            )
        else:
            reports[entry.run] = checks(profile, env)
    return reports


def run(
    params: Params,
    factory: Callable[[Plan, Path], Callable[[], Provider]] = for_run,
    *,
    env: Mapping[str, str] = os.environ,
    checks: Checks = run_checks,
    current_plan: Callable[[str, Params], Plan] = make_plan,
    reload: Callable[[], Params] | None = None,
    requested: Requested = EVERY_RUN,
) -> list[Sent]:
    """The send stage: send every run of ``params`` that the DVC command asked for
    (``requested``; runs in parallel, each sequential) and write each receipt; every other run
    gets a deferred receipt, and its own execute stage sends it (:func:`execute_stage`). One
    entry per run, in params.yaml's order."""
    wanted = [run_id for run_id in params.runs if requested.wants(run_id)]
    sent, receipts, unexpected = _send_runs(
        params,
        wanted,
        factory,
        env=env,
        checks=checks,
        current_plan=current_plan,
        reload=reload,
    )
    for made in receipts:
        evidence.write_receipt(made)
    left = [run_id for run_id in params.runs if not requested.wants(run_id)]
    for run_id in left:
        evidence.write_receipt(receipt_without_calls(run_id, params, deferred=True))
    if unexpected is not None:
        raise unexpected  # after every other run's receipt is written
    by_run = {entry.run: entry for entry in sent}
    return [
        by_run.get(run_id) or Sent(run=run_id, deferred_by=requested.command)
        for run_id in params.runs
    ]


def receipt_without_calls(
    run_id: str, params: Params, *, deferred: bool = False, refused: str | None = None
) -> evidence.SendReceipt:
    """The receipt of a run nothing was sent for here: ``deferred`` to its execute stage (the
    DVC command asked for other runs), or ``refused`` (why)."""
    return evidence.SendReceipt(
        run=run_id,
        plan_hash=evidence.read_plan(run_id).hash,
        ledger_root=params.ledger_root,
        calls=(),
        deferred=deferred,
        refused=refused,
    )


def execute_stage(
    run_id: str,
    params: Params,
    factory: Callable[[Plan, Path], Callable[[], Provider]] = for_run,
    *,
    env: Mapping[str, str] = os.environ,
    checks: Checks = run_checks,
    reload: Callable[[], Params] | None = None,
) -> Sent:
    """The ``execute`` stage: the run's cells from its receipt and ledger
    (:func:`assay.pipeline.collect.collect`). A run the send stage deferred is sent here first,
    alone, through the same checks. A run refused before sending anything gets ``not-run``
    cells that say why (:func:`unsent_cells`), so its report does and the other runs go on."""
    receipt_file = evidence.receipt_file(run_id)
    found = evidence.read_receipt(run_id) if receipt_file.is_file() else None
    if found is not None and found.refused is not None:
        return unsent_cells(run_id, params, found.refused)
    if found is None or not found.deferred:
        # the checks before any read of the receipt: a refusal names itself, not a missing file
        return Sent(
            run=run_id, executed=Executed(run=run_id, records=tuple(collect(run_id, params)))
        )
    sent, _, unexpected = _send_runs(
        params, [run_id], factory, env=env, checks=checks, current_plan=make_plan, reload=reload
    )
    if unexpected is not None:
        raise unexpected
    (entry,) = sent
    if entry.failure is not None:
        return entry  # a paid run refused: the stage fails and writes nothing
    if entry.refused is not None:
        return unsent_cells(run_id, params, entry.refused)
    if entry.executed is not None:
        collect(run_id, params, records=entry.executed.records)
    return entry


def unsent_cells(run_id: str, params: Params, refused: str) -> Sent:
    """The cells of a free run nothing was sent for this time: what its ledger holds (from
    earlier invocations), every other call ``not-run`` with the refusal as its reason, so its
    report says why and the other runs go on. A paid run's refusal is raised: the stage fails
    (:attr:`Sent.failure`) and DVC keeps the cells it has."""
    plan = evidence.read_plan(run_id)
    if plan.budget.paid:
        raise SpendRefused(refused)
    ledger = Ledger.at(Path(params.ledger_root), run_id, plan.hash)
    reason = REFUSED_PREFIX + " ".join(refused.split())  # one line
    if ledger.state().outcomes:
        records = Executor(plan, ledger, {}, _no_provider).settle(reason)
    else:
        records = unsent(plan, reason)
    evidence.write_table(evidence.CELLS, run_id, records)
    evidence.write_table(evidence.PROMPT_TEXTS, run_id, [])
    return Sent(run=run_id, executed=Executed(run=run_id, records=tuple(records)), error=refused)


def _paid(run_id: str, admitted: Mapping[str, Admitted]) -> bool:
    entry = admitted.get(run_id)
    plan = entry.plan if entry is not None else evidence.read_plan(run_id)
    return plan.budget.paid


def _no_provider() -> Provider:
    raise AssertionError("settling a run from its ledger sends nothing")


def _send_runs(
    params: Params,
    run_ids: list[str],
    factory: Callable[[Plan, Path], Callable[[], Provider]],
    *,
    env: Mapping[str, str],
    checks: Checks,
    current_plan: Callable[[str, Params], Plan],
    reload: Callable[[], Params] | None,
) -> tuple[list[Sent], list[evidence.SendReceipt], Exception | None]:
    """Send ``run_ids`` (runs in parallel, each sequential): one entry per run in the given
    order, the receipt of every run (a refused free run's says why; a refused paid run, which
    fails the stage, and a run whose thread raised a fault that is not assay's own have none),
    and that fault (the caller raises it once the others' receipts are written).
    With ``reload`` (params.yaml read again), a run is admitted again when its turn to send
    comes, so a revocation while it waited for its key's cap is heeded."""
    admitted: list[Admitted] = []
    errors: dict[str, str] = {}
    for run_id in run_ids:
        try:
            admitted.append(admit(run_id, params, current_plan=current_plan))
        except AssayError as exc:
            errors[run_id] = str(exc)
    reports = shared_preflights(admitted, checks, env)
    done: dict[str, Executed] = {}
    groups: dict[str, list[Admitted]] = defaultdict(list)
    for entry in admitted:
        report = reports.get(entry.run)
        if report is not None and not report.passed:
            done[entry.run] = Executed(
                run=entry.run, preflight=report, api_key_env=entry.plan.model.api_key_env
            )
        elif entry.awaiting:
            done[entry.run] = send(entry)
        else:
            groups[provider_key(entry.plan.model)].append(entry)

    def start(entry: Admitted) -> tuple[Admitted, Executed]:
        if reload is not None:
            entry = admit(entry.run, reload(), current_plan=current_plan)
        return entry, send(entry, factory, reports.get(entry.run))

    by_run = {entry.run: entry for entry in admitted}
    sending = params.sending
    futures: dict[str, Future[tuple[Admitted, Executed]]] = {}
    # replays last: a replayed run reads another run's ledger, which may be sending now
    for wave in ([k for k in groups if k != "replay"], [k for k in groups if k == "replay"]):
        with ExitStack() as pools:
            for key in wave:
                members = groups[key]
                cap = (
                    sending.parallel_local_runs if key == "local" else sending.parallel_runs_per_key
                )
                pool = pools.enter_context(
                    ThreadPoolExecutor(max_workers=min(cap, len(members)), thread_name_prefix=key)
                )
                for entry in members:
                    futures[entry.run] = pool.submit(start, entry)
    unexpected: Exception | None = None
    for run_id, future in futures.items():
        try:
            by_run[run_id], done[run_id] = future.result()
        except AssayError as exc:
            errors[run_id] = str(exc)
        except Exception as exc:  # noqa: BLE001 - a fault in one run's thread: re-raised by the caller
            unexpected = unexpected or exc
    sent = [
        Sent(run=r, executed=done.get(r), error=errors.get(r), paid=_paid(r, by_run))
        for r in run_ids
    ]
    receipts = [
        receipt(by_run[entry.run], entry.executed)
        if entry.refused is None and entry.executed is not None
        else receipt_without_calls(entry.run, params, refused=entry.refused or "not sent")
        for entry in sent
        # none for a paid run refused (the stage fails) or a run whose thread raised a fault
        if entry.failure is None and (entry.executed is not None or entry.error is not None)
    ]
    return sent, receipts, unexpected


def describe(entry: Sent) -> list[str]:
    """What a stage prints of one run it sent, collected or deferred."""
    executed = entry.executed
    lines = []
    if entry.deferred_by is not None:
        plan = evidence.read_plan(entry.run)
        lines.append(
            f"{entry.run}: not sent by this stage: `{entry.deferred_by}` asks for other runs; "
            + how_to_send(entry.run, plan.model.api_key_env)
        )
    if executed is not None and executed.preflight is not None:
        lines.append(f"{entry.run}: pre-flight checks (free calls)\n{executed.preflight.render()}")
    if executed is not None and not executed.refused:
        counts = Counter(r.status for r in executed.records)
        lines.append(f"{entry.run}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return lines
