"""Where each declared run stands (planned, awaiting authorization, executed) and what it spent,
read from the evidence folder: what ``assay run list`` shows."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from assay.config.params import Params
from assay.core.records import Frozen
from assay.evidence import CELLS
from assay.evidence.paths import authorization_file, stage_file
from assay.evidence.plan import Preregistration, changes_text
from assay.paid.execute import REFUSED_PREFIX
from assay.paid.ledger import begun_plans
from assay.paid.preregistration import ledger_plan
from assay.report.modes import profile_mode


class RunStatus(Frozen):
    run: str
    model: str
    mode: str
    """The profile's prompting mode (:func:`assay.report.modes.profile_mode`)."""
    scenario: str
    status: str
    spend: str


class Execution(Frozen):
    statuses: dict[str, int]
    reserved: float
    reported: float
    stopped: str | None = None
    """What stopped the run short, in words (``None``: nothing did)."""


def _execution(cells: Path, *, answers_fixed: bool = False) -> Execution:
    import pyarrow.parquet as pq

    table = pq.read_table(cells)
    columns = ["status", "reservation_usd", "cost_usd", "halt", "reason", "cell_id", "step"]
    rows = table.select([c for c in columns if c in table.column_names]).to_pylist()
    statuses = Counter(row["status"] for row in rows)
    halting = next((row for row in rows if row.get("halt")), None)
    refused = next(
        (row for row in rows if (row.get("reason") or "").startswith(REFUSED_PREFIX)), None
    )
    stopped = None
    if halting is not None:
        stopped = f"halted after {halting['reason']} on {halting['cell_id']} step {halting['step']}"
    elif refused is not None:
        why = refused["reason"].removeprefix(REFUSED_PREFIX)
        stopped = "not sent: " + (why if len(why) <= 160 else why[:159] + "…")
    if answers_fixed and refused is not None:
        stopped = f"{stopped}; a changed log re-plans the run"
    elif stopped is not None and (statuses.get("halted") or refused is not None):
        stopped = f"{stopped}; the next `dvc repro` tries again"
    return Execution(
        statuses=dict(sorted(statuses.items())),
        reserved=sum(row["reservation_usd"] or 0.0 for row in rows),
        reported=sum(row["cost_usd"] or 0.0 for row in rows),
        stopped=stopped,
    )


def run_status(run_id: str, params: Params, data: Path) -> RunStatus:
    run = params.runs[run_id]
    profile = params.models[run.model]
    free = profile.is_free
    plan = stage_file("plan", run_id, "plan.sha256", data)
    authorization = authorization_file(run_id, data)
    cells = CELLS.path(run_id, data)
    spend = "free" if free else "$0.00"
    if profile.answers_fixed:
        spend = "none through assay (Inspect log: spent outside assay)"
    state = (
        json.loads(authorization.read_text(encoding="utf-8")).get("state")
        if authorization.exists()
        else None
    )
    stale = None if free else unsent_preregistration_change(run_id, params)
    if stale is not None:
        status = f"refused: {stale}"
    elif state == "awaiting-authorization":
        plan_hash = plan.read_text(encoding="ascii").strip()[:12] if plan.exists() else "?"
        status = f"awaiting authorization (plan {plan_hash}…; `assay plan show {run_id}`)"
    elif cells.exists():
        execution = _execution(cells, answers_fixed=profile.answers_fixed)
        status = "executed: " + ", ".join(f"{n} {s}" for s, n in execution.statuses.items())
        if execution.stopped is not None:
            status += f" ({execution.stopped})"
        if not free:
            spend = f"${execution.reserved:.2f} reserved, ${execution.reported:.4f} reported"
    elif state is not None:
        status = f"{state}, not executed yet"
    elif plan.exists():
        status = "planned, not executed yet"
    else:
        status = "not planned yet (`dvc repro`)"
    mode = profile_mode(profile)
    return RunStatus(
        run=run_id, model=run.model, mode=mode, scenario=run.scenario, status=status, spend=spend
    )


def unsent_preregistration_change(run_id: str, params: Params) -> str | None:
    """A paid run authorized but not sent whose preregistration params.yaml has changed since:
    the refusal its send would meet, in one line (``None``: none). Read from the plan the
    authorization's ledger keeps, without rebuilding the plan."""
    run = params.runs[run_id]
    root = Path(params.ledger_root)
    if run.authorization is None or run.authorization in begun_plans(root, run_id):
        return None
    authorized = ledger_plan(root, run_id, run.authorization)
    if authorized is None:
        return None
    now = Preregistration.of(params.analysis, run.repeats)
    changes = authorized.preregistration.changes(now)
    if not changes:
        return None
    return (
        f"its preregistered analysis changed since it was authorized ({changes_text(changes)}); "
        f"nothing is sent until `uv run assay authorize {run_id} --plan-hash HASH` with the "
        f"plan `uv run assay plan show {run_id}` gives"
    )


def run_statuses(params: Params, data: Path) -> list[RunStatus]:
    return [run_status(run_id, params, data) for run_id in params.runs]
