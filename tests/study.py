"""One run of the default study, shared by every test that only reads it (the ``study`` fixture
in tests/conftest.py; docs/testing.md says how to use it).

The default params.yaml with every scenario on two subjects and every run at one repeat, through
one real ``dvc repro`` in a throwaway repository: about 4 minutes on an idle 2-core machine,
once per test session instead of once per test module. Every Python process of that run records
what it imported and opened (tests/audit/sitecustomize.py), for the dependency tests.

A test that changes anything (params.yaml, a fixture, a further ``dvc repro`` that re-runs a
stage) works on ``study_copy``: a copy of the studied repository, outputs and DVC cache included,
so its ``dvc repro`` re-runs only what its change touches.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from assay.fixtures.scenarios import SCENARIOS, load_scenario
from tests.conftest import ROOT, Repo, copy_repo, make_repo

AUDIT_SITE = ROOT / "tests" / "audit"


@dataclass
class Study:
    repo: Repo
    output: str
    """stdout and stderr of the one ``dvc repro``."""
    params: dict[str, Any]
    audit: Path
    """One JSON file per Python process the run started (tests/audit/sitecustomize.py)."""
    records: list[dict[str, Any]] = field(default_factory=list)

    def read(self, relative: str) -> str:
        return self.repo.read(relative)

    def processes(self) -> list[dict[str, Any]]:
        if not self.records:
            self.records = [json.loads(p.read_text()) for p in sorted(self.audit.glob("*.json"))]
        return self.records


def two_families(scenario: str) -> list[str]:
    """The first subject of each of the scenario's first two families. The codebase sets are
    read from their declarations: their slices exist only after the snapshot stage runs."""
    chosen: dict[str, str] = {}
    if scenario.startswith("codebase"):
        for declaration in sorted((ROOT / "fixtures" / "codebase").glob("*/task.toml")):
            task = tomllib.loads(declaration.read_text(encoding="utf-8"))
            chosen.setdefault(task["family"], task["id"])
        return list(chosen.values())[:2]
    for subject in load_scenario(scenario, ROOT / "fixtures").subjects:
        chosen.setdefault(subject.task.family, subject.id)
    return list(chosen.values())[:2]


def quick_study(repo: Repo) -> dict[str, Any]:
    """The default params.yaml with every scenario on two subjects and every run at one repeat,
    plus a ``sim-follower`` run of each registered scenario the default leaves out or runs
    nothing on (the bank's two, whose self-tests the default runs with no run of its own), so
    every scenario runs end to end. A paid route points at 127.0.0.1 (it awaits authorization
    and sends nothing anyway)."""
    params = yaml.safe_load(repo.read("params.yaml"))
    used = {spec["scenario"] for spec in params["runs"].values()}
    for name in SCENARIOS:
        if name not in params["scenarios"]:
            params["scenarios"].append(name)
        if name not in used:
            params["runs"][f"sim-follower-{name}"] = {"model": "sim-follower", "scenario": name}
    params["subject_subset"] = {name: two_families(name) for name in params["scenarios"]}
    for spec in params["runs"].values():
        spec["repeats"] = 1
    for profile in params["models"].values():
        if profile.get("base_url"):
            profile["base_url"] = "http://127.0.0.1:9/api/v1"
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repo.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qam", "study")
    return params


def run_study(target: Path) -> Study:
    repo = make_repo(target / "repo")
    audit = target / "audit"
    audit.mkdir()
    params = quick_study(repo)
    repo.env = {
        **repo.env,
        "ASSAY_MEMO": "on",  # as a user's study runs: the self-test's results answer cells
        "ASSAY_MEMO_DIR": str(target / "memo"),
        "ASSAY_TEST_AUDIT": str(audit),
        "PYTHONPATH": f"{AUDIT_SITE}{os.pathsep}{repo.env['PYTHONPATH']}",
    }
    done = repo.dvc("repro", timeout=2400)
    repo.env = {k: v for k, v in repo.env.items() if k != "ASSAY_TEST_AUDIT"}
    repo.env["PYTHONPATH"] = str(repo.path / "src")
    return Study(repo=repo, output=done.stdout + done.stderr, params=params, audit=audit)


V1_RUN = "sim-follower-v1"


def run_v1(target: Path) -> Study:
    """The default params.yaml with only ``sim-follower-v1``: v1's twelve subjects at the run's
    repeats (the shared study's two subjects are too few where a test needs the seed's paired
    test or a headline number to move), committed, through one real ``dvc repro``, with the
    checkout's jscpd (so a run elsewhere can be compared with it figure for figure)."""
    repo = make_repo(target / "repo")
    # jscpd as installed for this checkout (scripts/setup), so the duplication metrics are measured
    (repo.path / "tools" / "node_modules").symlink_to(ROOT / "tools" / "node_modules")
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"] = {V1_RUN: params["runs"][V1_RUN]}
    params["scenarios"] = ["v1"]
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repo.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qam", "v1")
    done = repo.dvc("repro", timeout=2400)
    audit = target / "audit"
    audit.mkdir()
    return Study(repo=repo, output=done.stdout + done.stderr, params=params, audit=audit)


def declared_run(name: str) -> dict[str, Any]:
    """The run ``name`` as the checkout's params.yaml declares it (to add it to a shared run's
    copy, whose params.yaml keeps fewer runs)."""
    return yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))["runs"][name]


def copy_of(study: Study, target: Path) -> Repo:
    """A repository the test may change: the studied one, outputs and DVC cache included."""
    return copy_repo(study.repo, target)
