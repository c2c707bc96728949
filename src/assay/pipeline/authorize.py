"""``authorize`` stage: compare params.yaml's authorization with the plan hash."""

from __future__ import annotations

from pathlib import Path

from assay import evidence
from assay.authorize import Authorization, decide
from assay.params import Params


def run(run_id: str, params: Params) -> Authorization:
    decision = decide(
        evidence.read_plan(run_id),
        params.run(run_id),
        ledger_root=Path(params.ledger_root),
        taken=tuple(params.runs),
    )
    evidence.write_authorization(decision)
    return decision
