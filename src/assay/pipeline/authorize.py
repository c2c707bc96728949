"""``authorize`` stage: compare params.yaml's authorization with the plan hash."""

from __future__ import annotations

from assay.authorize import Authorization, decide
from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.plan import read_plan


def read_authorization(run_id: str) -> Authorization:
    return Authorization.model_validate_json(paths.authorization_file(run_id).read_bytes())


def run(run_id: str, params: Params) -> Authorization:
    decision = decide(read_plan(run_id), params.run(run_id))
    path = paths.authorization_file(run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(decision.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return decision
