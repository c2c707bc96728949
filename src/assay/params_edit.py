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


def write_authorization(path: Path, run: str, plan_hash: str) -> None:
    """Write the inspected plan hash into ``authorization`` and ``plan_ref`` and opt in."""

    def change(document: Any) -> None:
        entry = document["runs"][run]
        entry["allow_paid"] = True
        entry["authorization"] = plan_hash
        entry["plan_ref"] = plan_hash

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


def write_structure_version(path: Path, run: str, version: int) -> None:
    """Score ``run``'s reports with structural evaluator ``version``
    (``evaluators.structure_runs``; no entry when it is the global ``evaluators.structure``)."""

    def change(document: Any) -> None:
        evaluators = document.setdefault("evaluators", {})
        per_run = evaluators.setdefault("structure_runs", {})
        if version == evaluators.get("structure", 7):
            per_run.pop(run, None)
        else:
            per_run[run] = version
        if not per_run:
            del evaluators["structure_runs"]

    _edit(path, change)
