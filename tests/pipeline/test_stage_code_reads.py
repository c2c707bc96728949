"""What the stages of the shared study run really did, against what DVC knows of them: every
module a stage's processes imported and every committed file they opened is in the stage's code
digest (data/code/<stage>.json), and every file they read under data/ is one of the stage's
declared dependencies or outputs. Recorded by tests/audit/sitecustomize.py in every Python
process of the run, so imports made inside functions, and children the stage starts, count."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from pathspec import GitIgnoreSpec

from tests.study import Study
from tests.uses import uses

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

NOT_CODE = ("data/", ".dvc/", ".git/", "ledger/")
"""Read by stages, but not code: DVC's own dependencies and outputs, the ledger (kept outside
DVC on purpose), git's and DVC's bookkeeping."""
DVC_INPUTS = {"params.yaml", "adjudications.yaml", "dvc.yaml", "dvc.lock"}
UNDECLARED_ON_PURPOSE = {"data/params/compute.json"}
"""Where work runs (``compute``): read by selftest, correctness and measure, no stage's
dependency on purpose (dvc.yaml), so moving to a cluster re-runs nothing
(assay.pipeline.stage_params.PLACEMENT)."""
STANDS_FOR = {"data/snapshot/slices.json": "data/snapshot"}
"""A declared dependency that stands for a folder: slices.json holds the sha256 of every slice's
provenance.json, whose file digests are checked on every read (tests/snapshot)."""


def _relative(path: str, root: Path) -> str | None:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return None


def _stage_processes(study: Study) -> list[dict[str, Any]]:
    records = [r for r in study.processes() if r["stage"] != "code"]
    assert {r["stage"] for r in records} >= {"execute", "measure", "report", "selftest"}
    return records


def test_every_module_and_committed_file_a_stage_used_is_in_its_digest(study: Study) -> None:
    root = study.repo.path
    ignored = GitIgnoreSpec.from_lines(study.read(".dvcignore").splitlines())
    missing: dict[str, set[str]] = {}
    for record in _stage_processes(study):
        digest = set(json.loads(study.read(f"data/code/{record['stage']}.json"))["files"])
        used = {_relative(f, root) for f in record["modules"].values()}
        used |= {_relative(f, root) for f in record["opened"]}
        for path in used - {None}:
            assert path is not None
            if path.startswith(NOT_CODE) or path in DVC_INPUTS or path.endswith("dvc.yaml"):
                continue
            if ignored.match_file(path) or not (root / path).is_file():
                continue  # bytecode, or a file the stage itself wrote outside data/
            if path not in digest:
                missing.setdefault(record["stage"], set()).add(path)
    assert not missing, {stage: sorted(paths) for stage, paths in missing.items()}


def _declared(study: Study) -> dict[str, list[str]]:
    """Each stage instance's command → the paths DVC knows it by (dependencies and outputs)."""
    from dvc.repo import Repo as DvcRepo

    uses("dvc")
    with DvcRepo(str(study.repo.path)) as repo:
        return {
            stage.cmd: [
                str(Path(o.fs_path).relative_to(study.repo.path))
                for o in (*stage.deps, *stage.outs)
            ]
            for stage in repo.index.stages
            if stage.cmd
        }


def _staging(paths: list[str]) -> list[str]:
    """``data/export/.<run>.<random>``: where the export stage builds a bundle before moving it
    to its declared output ``data/export/<run>`` (written and read back, never an input)."""
    return [
        str(Path(p).parent / f".{Path(p).name}.") for p in paths if p.startswith("data/export/")
    ]


def test_every_file_a_stage_read_under_data_is_a_declared_dependency(study: Study) -> None:
    root = study.repo.path
    declared = _declared(study)
    undeclared: dict[str, set[str]] = {}
    for record in _stage_processes(study):
        if record["argv"][0] != f"stages/{record['stage']}.py":
            continue  # a process the stage started: its reads are the stage's own, checked below
        command = shlex.join(["python", *record["argv"]])
        paths = declared[command] + [f for dep, f in STANDS_FOR.items() if dep in declared[command]]
        for opened in record["opened"]:
            path = _relative(opened, root)
            if path is None or not path.startswith("data/") or path in UNDECLARED_ON_PURPOSE:
                continue
            if any(path.startswith(staging) for staging in _staging(paths)):
                continue  # the stage's own staging folder (export verifies its bundles there)
            if not any(path == p or path.startswith(p.rstrip("/") + "/") for p in paths):
                undeclared.setdefault(command, set()).add(path)
    assert not undeclared, {command: sorted(paths) for command, paths in undeclared.items()}
