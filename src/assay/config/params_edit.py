"""Edits to ``params.yaml`` that keep its comments and layout (ruamel.yaml round trip).

Each edit is validated in memory against the same schema as ``assay check`` and the ``params``
stage, then written atomically; a refused edit leaves the file untouched and its message names
``params.yaml`` and the key, never a temporary file.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from assay.config.params import ParamsError, parse_yaml, read_params_text, validate_params


def _round_trip_yaml() -> YAML:
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.representer.add_representer(
        type(None),
        lambda representer, _: representer.represent_scalar("tag:yaml.org,2002:null", "null"),
    )
    return yaml


def _append(sequence: CommentedSeq, value: Any) -> None:
    """Append, moving the comment that followed the last item (the next section's heading) so it
    stays after the new item."""
    last = len(sequence) - 1
    sequence.append(value)
    if last >= 0 and last in sequence.ca.items:
        sequence.ca.items[last + 1] = sequence.ca.items.pop(last)


def _edit(path: Path, change: Callable[[Any], None]) -> None:
    path = Path(path)
    text = read_params_text(path)
    parse_yaml(text, path=path)  # a syntax error becomes one line with its position
    yaml = _round_trip_yaml()
    try:
        document = yaml.load(text)
    except YAMLError as exc:
        raise ParamsError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(document, CommentedMap):
        raise ParamsError(f"{path}: the file is not a mapping of sections")
    change(document)
    buffer = io.StringIO()
    yaml.dump(document, buffer)
    edited = buffer.getvalue()
    validate_params(parse_yaml(edited, path=path), path=path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(edited)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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


def _list_scenario(path: Path, document: Any, scenario: str) -> None:
    """``scenario`` under ``scenarios:`` (appended, keeping the comment after the list)."""
    scenarios = document.setdefault("scenarios", CommentedSeq())
    if not isinstance(scenarios, CommentedSeq):
        raise ParamsError(f"{path}: scenarios: must be a list of scenario names")
    if scenario not in scenarios:
        _append(scenarios, scenario)


def add_run(
    path: Path,
    run: str,
    *,
    model: str,
    scenario: str,
    repeats: int,
    schedule: str | None,
    qualifies: bool = False,
) -> None:
    """Declare a run (and its scenario under ``scenarios:``); refused unless the whole file then
    passes the schema: a valid name, a declared model, a known scenario (built-in, or declared
    in the file's fixtures root) and schedule, repeats in range. ``qualifies``: a qualification
    run of its model's route (``assay.paid.qualification``)."""
    from assay.fixtures.scenarios import known_scenarios, run_default_schedule
    from assay.science.schedule import default_schedule

    def change(document: Any) -> None:
        runs = document.setdefault("runs", CommentedMap())
        if not isinstance(runs, dict):
            raise ParamsError(f"{path}: runs: must be a mapping of run names")
        if run in runs:
            raise ParamsError(
                f"{path}: runs.{run}: already declared; choose a new run id "
                "(a run id names one plan, one authorization and one ledger)"
            )
        root = Path(str(document.get("fixtures", "fixtures")))
        known = scenario in known_scenarios(root)
        if known:
            _list_scenario(path, document, scenario)
        runs[run] = {
            "model": model,
            "scenario": scenario,
            "repeats": repeats,
            # an unknown scenario is refused by the schema check, naming the nearest known one
            "schedule": schedule
            or (run_default_schedule(scenario, root) if known else default_schedule(scenario)),
            **({"qualifies": True} if qualifies else {}),
            "allow_paid": False,
            "authorization": None,
            "plan_ref": None,
        }

    _edit(path, change)


def add_scenario(path: Path, scenario: str) -> None:
    """List ``scenario`` under ``scenarios:`` (``assay new-scenario``); refused, the file
    untouched, unless the whole file then passes the schema (the scenario declared in the
    file's fixtures root among it)."""
    _edit(path, lambda document: _list_scenario(path, document, scenario))


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
