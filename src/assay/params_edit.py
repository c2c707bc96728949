"""Edits to ``params.yaml`` that keep its comments and layout (ruamel.yaml round trip), each
validated by loading the result before it replaces the file."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from assay.params import load_params
from assay.schedule import default_schedule


def _edit(path: Path, change: Any) -> None:
    yaml = YAML()
    yaml.preserve_quotes = True
    document = yaml.load(path.read_text(encoding="utf-8"))
    change(document)
    buffer = io.StringIO()
    yaml.dump(document, buffer)
    candidate = path.with_suffix(".yaml.tmp")
    candidate.write_text(buffer.getvalue(), encoding="utf-8")
    try:
        load_params(candidate)
    except Exception:
        candidate.unlink()
        raise
    os.replace(candidate, path)


def write_authorization(path: Path, run: str, plan_hash: str, token: str | None = None) -> None:
    """Write the inspected plan hash into ``authorization`` and ``plan_ref``, opt in, and
    record the token of the ledger ``assay authorize`` created."""

    def change(document: Any) -> None:
        entry = document["runs"][run]
        entry["allow_paid"] = True
        entry["authorization"] = plan_hash
        entry["plan_ref"] = plan_hash
        if token is not None:
            entry["authorization_token"] = token

    _edit(path, change)


def add_run(
    path: Path, run: str, *, model: str, scenario: str, repeats: int, schedule: str | None
) -> None:
    def change(document: Any) -> None:
        if run in document["runs"]:
            raise ValueError(f"run {run!r} is already declared in {path}")
        if scenario not in document["scenarios"]:
            document["scenarios"].append(scenario)
        document["runs"][run] = {
            "model": model,
            "scenario": scenario,
            "repeats": repeats,
            "schedule": schedule or default_schedule(scenario),
            "allow_paid": False,
            "authorization": None,
            "plan_ref": None,
        }

    _edit(path, change)
