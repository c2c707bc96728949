"""The committed dvc.lock files match the code: on a fresh clone, `dvc status` says only what the
first `dvc repro` will create (outputs under data/ not there yet, so the stages reading them see
them deleted), never a changed dependency or parameter.

This fails whenever a commit changes a stage's code, dependencies or parameters without
refreshing the locks (`dvc repro`, then commit every dvc.lock)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_repo

pytestmark = pytest.mark.dvc

FIRST_RUN_CREATES = {"deleted", "not in cache"}
RESEND = "ledger/resend.json"
"""The send stage's dependency outside data/, which the params stage creates (assay.pipeline.resend)."""


def _created_by_the_first_run(change: Any) -> bool:
    if not isinstance(change, dict) or not set(change) <= {"changed outs", "changed deps"}:
        return False
    outs = change.get("changed outs", {})
    deps = change.get("changed deps", {})
    return set(outs.values()) <= FIRST_RUN_CREATES and all(
        (path.startswith("data/") or path == RESEND) and state == "deleted"
        for path, state in deps.items()
    )


def unexpected_changes(status: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The entries of `dvc status --json` that a first run would not explain."""
    unexpected: dict[str, list[Any]] = {}
    for stage, changes in status.items():
        for change in changes:
            if not _created_by_the_first_run(change):
                unexpected.setdefault(stage, []).append(change)
    return unexpected


def test_fresh_clone_dvc_status_lists_only_what_the_first_run_creates(tmp_path):
    clone = make_repo(tmp_path / "clone", with_lock=True)
    unexpected = unexpected_changes(json.loads(clone.dvc("status", "--json").stdout or "{}"))
    assert not unexpected, (
        "a dvc.lock is stale for these stages (run `dvc repro` and commit the locks):\n"
        + json.dumps(unexpected, indent=1)
    )
    assert clone.run("git", "status", "--porcelain").stdout == ""


def test_dvc_repro_without_a_target_reaches_every_stage(tmp_path):
    """`dvc repro` runs dvc.yaml's stages and everything upstream of them; a stage in
    pipeline/*/dvc.yaml that nothing in dvc.yaml depends on would silently never run."""
    import networkx as nx
    from dvc.repo import Repo as DvcRepo

    clone = make_repo(tmp_path / "clone")
    with DvcRepo(str(clone.path)) as repo:
        graph = repo.index.graph  # an edge runs from a stage to a stage it depends on
        stages = list(graph.nodes)
        roots = [stage for stage in stages if stage.dvcfile.path == str(clone.path / "dvc.yaml")]
        reached = set(roots).union(*(nx.descendants(graph, stage) for stage in roots))
        missed = sorted(stage.addressing for stage in stages if stage not in reached)
    assert len(stages) > 100 and not missed, missed


def test_committed_locks_hold_only_stages_the_pipeline_defines(tmp_path):
    """DVC keeps a dvc.lock entry of a stage that no longer exists (a run taken out of
    params.yaml), and every stage of that file then reads and rewrites it after running
    (benchmarks/lock_cost.py): a stale entry costs time and names a run the study no longer has."""
    from dvc.repo import Repo as DvcRepo

    clone = make_repo(tmp_path / "clone", with_lock=True)
    stale = {}
    with DvcRepo(str(clone.path)) as repo:
        defined: dict[str, set[str]] = {}
        dvcfiles = {}
        for stage in repo.index.stages:
            defined.setdefault(stage.dvcfile.path, set()).add(stage.name)
            dvcfiles[stage.dvcfile.path] = stage.dvcfile
        for path, dvcfile in sorted(dvcfiles.items()):
            extra = set(dvcfile.lockfile_contents.get("stages", {})) - defined[path]
            if extra:
                stale[Path(path).relative_to(clone.path).as_posix()] = sorted(extra)
    assert not stale, f"dvc.lock entries of stages no dvc.yaml defines (by dvc.yaml): {stale}"
