"""The stages this repository's dvc.yaml files declare, read as written (before DVC fills in
``foreach``): one place for the tests that check stage definitions against the code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
DVC_FILES = (ROOT / "dvc.yaml", *sorted((ROOT / "pipeline").glob("*/dvc.yaml")))


def stage_bodies() -> dict[str, dict[str, Any]]:
    """Stage name → its body (a ``foreach`` stage's ``do``), from every dvc.yaml."""
    bodies = {}
    for dvc_yaml in DVC_FILES:
        for name, stage in yaml.safe_load(dvc_yaml.read_text(encoding="utf-8"))["stages"].items():
            bodies[name] = stage.get("do", stage)
    return bodies


def declared_params(body: dict[str, Any]) -> set[str]:
    """The params.yaml keys a stage body declares: its deps on the params stage's section files
    (``data/params/<key>.json``) and its DVC ``params:``, spelled as written (``runs.${key}``)."""
    keys = {
        dep.removeprefix("data/params/").removesuffix(".json")
        for dep in body.get("deps", [])
        if dep.startswith("data/params/") and dep.endswith(".json")
    }
    for entry in body.get("params", []):
        keys.update([entry] if isinstance(entry, str) else entry)
    return keys
