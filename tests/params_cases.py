"""The malformed params.yaml and `assay run add` case table (tests/cases/params_malformed.yaml),
and how a case edits a params.yaml."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

TABLE = yaml.safe_load(
    (Path(__file__).parent / "cases" / "params_malformed.yaml").read_text(encoding="utf-8")
)
PARAMS_CASES: list[dict[str, Any]] = TABLE["params"]
RUN_ADD_CASES: list[dict[str, Any]] = TABLE["run_add"]


def _node(document: Any, path: list[Any]) -> Any:
    for key in path:
        document = document[key]
    return document


def malformed(text: str, case: dict[str, Any]) -> str:
    """The params.yaml ``text`` with the case's change applied."""
    if "text" in case:
        return str(case["text"])
    document = copy.deepcopy(yaml.safe_load(text))
    if "set" in case:
        path, value = case["set"]
        _node(document, path[:-1])[path[-1]] = value
    if "delete" in case:
        path = case["delete"]
        del _node(document, path[:-1])[path[-1]]
    if "rename" in case:
        parent_path, old, new = case["rename"]
        parent = _node(document, parent_path)
        renamed = {new if key == old else key: value for key, value in parent.items()}
        parent.clear()
        parent.update(renamed)
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
