"""``authorize`` stage: compare params.yaml's authorization with the plan hash."""

from __future__ import annotations

from pathlib import Path

from assay import evidence
from assay.config.params import RunSpec
from assay.paid.authorize import Authorization, decide
from assay.pipeline.stage_params import Declaration, StageParams

PARAMS = Declaration(keys=("runs.${key}", "ledger_root"))


def read_params(params: StageParams) -> tuple[RunSpec, Path]:
    """The run's entry (its authorization) and where the ledgers are."""
    return params.typed(f"runs.{params.key}", RunSpec), Path(params.typed("ledger_root", str))


def run(run_id: str, params: StageParams) -> Authorization:
    spec, ledger_root = read_params(params)
    decision = decide(evidence.read_plan(run_id), spec, ledger_root=ledger_root)
    evidence.write_authorization(decision)
    return decision
