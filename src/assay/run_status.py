"""Where each declared run stands (planned, awaiting authorization, executed) and what it spent,
read from the evidence folder: what ``assay run list`` shows."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from assay.evidence import CELLS
from assay.evidence.paths import authorization_file, stage_file
from assay.params import Params
from assay.records import Frozen
from assay.report.modes import profile_mode


class RunStatus(Frozen):
    run: str
    model: str
    mode: str
    """The profile's prompting mode (:func:`assay.report.modes.profile_mode`)."""
    scenario: str
    status: str
    spend: str


def _execution(cells: Path) -> tuple[Counter[str], float, float]:
    import pyarrow.parquet as pq

    table = pq.read_table(cells, columns=["status", "reservation_usd", "cost_usd"]).to_pydict()
    statuses = Counter(table["status"])
    reserved = sum(v or 0.0 for v in table["reservation_usd"])
    reported = sum(v or 0.0 for v in table["cost_usd"])
    return statuses, reserved, reported


def run_status(run_id: str, params: Params, data: Path) -> RunStatus:
    run = params.runs[run_id]
    free = params.models[run.model].is_free
    plan = stage_file("plan", run_id, "plan.sha256", data)
    authorization = authorization_file(run_id, data)
    cells = CELLS.path(run_id, data)
    spend = "free" if free else "$0.00"
    state = (
        json.loads(authorization.read_text(encoding="utf-8")).get("state")
        if authorization.exists()
        else None
    )
    if state == "awaiting-authorization":
        plan_hash = plan.read_text(encoding="ascii").strip()[:12] if plan.exists() else "?"
        status = f"awaiting authorization (plan {plan_hash}…; `assay plan show {run_id}`)"
    elif cells.exists():
        statuses, reserved, reported = _execution(cells)
        status = "executed: " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
        if not free:
            spend = f"${reserved:.2f} reserved, ${reported:.4f} reported"
    elif state is not None:
        status = f"{state}, not executed yet"
    elif plan.exists():
        status = "planned, not executed yet"
    else:
        status = "not planned yet (`dvc repro`)"
    mode = profile_mode(params.models[run.model].model_dump(mode="json"))
    return RunStatus(
        run=run_id, model=run.model, mode=mode, scenario=run.scenario, status=status, spend=spend
    )


def run_statuses(params: Params, data: Path) -> list[RunStatus]:
    return [run_status(run_id, params, data) for run_id in params.runs]
