"""The manipulation check through real `dvc repro`: a v1 task whose inconsistent arm is a copy of
its clean one (a void experiment) stops the subjects stage with one line naming the subject, and
nothing is rendered or planned."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import Repo

pytestmark = pytest.mark.dvc


def test_a_void_experiment_stops_before_anything_is_planned(repo: Repo) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    params["scenarios"] = ["v1"]
    params["runs"] = {"sim-follower-v1": params["runs"]["sim-follower-v1"]}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repo.write(
        "fixtures/v1/income-tax/inconsistent/module.py",
        repo.read("fixtures/v1/income-tax/clean/module.py"),
    )
    failed = repo.dvc("repro", "render", check=False)
    assert failed.returncode != 0
    lines = [line for line in (failed.stdout + failed.stderr).splitlines() if "assay:" in line]
    assert lines and "differ where their scenario does not let them" in lines[0], failed.stderr
    assert "v1/income-tax: arms clean, inconsistent are identical: nothing is manipulated" in (
        failed.stderr
    )
    assert not (repo.path / "data" / "render").exists()
    assert not (repo.path / "data" / "subjects" / "v1").exists()
