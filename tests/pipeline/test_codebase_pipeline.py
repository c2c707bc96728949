"""The codebase scenario through real `dvc repro`: snapshot → subjects → render → image →
selftest (packages image, large profile) → plan → … → report, on a simulated model: the shared
study's codebase run (tests/study.py: two of the eleven subjects, from two projects, one repeat). That a
second `dvc repro` runs nothing, the snapshot included: tests/pipeline/test_dvc_study.py."""

import json

import pyarrow.parquet as pq
import pytest

from tests.conftest import stages_ran
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

RUN = "sim-follower-codebase"


def test_codebase_run_through_dvc_repro(study: Study) -> None:
    repo = study.repo
    assert study.params["runs"][RUN]["scenario"] == "codebase"
    for stage in ("snapshot", "subjects", "render", "selftest@codebase", f"correctness@{RUN}"):
        assert stage in stages_ran(study.output), stage

    subjects = set(study.params["subject_subset"]["codebase"])
    provenance = json.loads(repo.read("data/subjects/codebase/provenance.json"))
    sliced = {p["subject"]: p["slice"] for p in provenance}
    assert len(sliced) == 11 and subjects <= set(sliced)
    assert len({sliced[subject]["project"] for subject in subjects}) == 2
    for entry in sliced.values():
        assert len(entry["sha256"]) == 64 and entry["files"]

    packages = json.loads(repo.read("data/image/packages.json"))
    plan = json.loads(repo.read(f"data/plan/{RUN}/plan.json"))
    assert plan["sandbox"]["image_id"] == packages["image_id"]
    selftest = json.loads(repo.read("data/selftest/codebase/selftest.json"))["sandbox"]
    assert selftest["image"] == packages["image_id"] and not selftest["failures"]
    # both references in both arms, the known-wrong implementation once per subject
    assert selftest["checks"] == (2 * 2 + 1) * len(subjects)

    rows = pq.read_table(repo.path / f"data/correctness/{RUN}/correctness.parquet")
    statuses = rows.column("status").to_pylist()
    assert len(statuses) == 2 * len(subjects)
    assert set(statuses) <= {"correct", "incorrect", None} and "correct" in statuses
    report = json.loads(repo.read(f"data/report/runs/{RUN}/abstraction.json"))
    assert report["run"]["simulated"] is True
