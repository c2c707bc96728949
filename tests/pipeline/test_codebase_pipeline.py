"""The codebase scenario through real `dvc repro`: snapshot → subjects → render → image →
selftest (packages image, large profile) → plan → … → report, on a simulated model."""

import json
import shutil

import pyarrow.parquet as pq
import pytest
import yaml

from tests.conftest import stages_ran

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

KEPT_SUBJECTS = {"feed-safe-uri", "tweet-created-at"}
"""Two of the eleven subjects (two projects), to keep the self-test and the run affordable."""


def test_codebase_run_through_dvc_repro(repo):
    repo.env["ASSAY_OFFLINE"] = "1"  # the sdists come from the pre-fetched cache, never the index
    for folder in (repo.path / "fixtures" / "codebase").iterdir():
        if folder.is_dir() and folder.name not in KEPT_SUBJECTS:
            shutil.rmtree(folder)
    params = yaml.safe_load(repo.read("params.yaml"))
    params["scenarios"] = ["codebase"]
    params["runs"] = {
        "sim-follower-codebase": {
            "model": "sim-follower",
            "scenario": "codebase",
            "repeats": 1,
            "schedule": "subject-counterbalanced-v1",
            "allow_paid": False,
            "authorization": None,
            "plan_ref": None,
        }
    }
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))

    output = repo.dvc("repro").stdout
    for stage in ("snapshot", "subjects", "render", "selftest@codebase", "report"):
        assert stage in stages_ran(output), stage

    provenance = json.loads(repo.read("data/subjects/codebase/provenance.json"))
    assert {p["subject"] for p in provenance} == KEPT_SUBJECTS
    assert {p["slice"]["project"] for p in provenance} == {"feedparser", "tweepy"}
    for entry in provenance:
        assert len(entry["slice"]["sha256"]) == 64 and entry["slice"]["files"]

    packages = json.loads(repo.read("data/image/packages.json"))
    plan = json.loads(repo.read("data/plan/sim-follower-codebase/plan.json"))
    assert plan["sandbox"]["image_id"] == packages["image_id"]
    selftest = json.loads(repo.read("data/selftest/codebase/selftest.json"))["sandbox"]
    assert selftest["image"] == packages["image_id"] and not selftest["failures"]
    # both references in both arms, the known-wrong implementation once per subject
    assert selftest["checks"] == (2 * 2 + 1) * len(provenance)

    rows = pq.read_table(repo.path / "data/correctness/sim-follower-codebase/correctness.parquet")
    statuses = rows.column("status").to_pylist()
    assert len(statuses) == 2 * len(provenance)
    assert set(statuses) <= {"correct", "incorrect", None} and "correct" in statuses
    report = json.loads(repo.read("data/report/runs/sim-follower-codebase/abstraction.json"))
    assert report["run"]["simulated"] is True

    again = repo.dvc("repro").stdout
    assert "snapshot" not in stages_ran(again)
