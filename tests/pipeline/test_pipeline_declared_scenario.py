"""A scenario of one's own, through what a researcher runs: on a fresh copy of the repository,
`assay new-scenario mine`, a second task with `assay new-task`, a run with `assay run add`
(params.yaml holding nothing else), then real `dvc repro`: the run is planned on the
counterbalanced schedule, executed, scored and reported, on the declared tasks only."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
import yaml

from tests.conftest import BIN, Repo, stages_ran

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

RUN = "mine-run"


def test_a_declared_scenario_runs_through_dvc_repro(repo: Repo) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    params["scenarios"], params["runs"] = [], {}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    assay = str(BIN / "assay")
    made = repo.run(assay, "new-scenario", "mine", "--from-task", "card-mask").stdout
    assert "uv run assay run add RUN --model M --scenario mine" in made
    repo.run(assay, "new-task", "mine", "own-slug", "--from", "post-slug")
    repo.run(
        assay, "run", "add", RUN, "--model", "sim-follower", "--scenario", "mine", "--repeats", "1"
    )
    assert repo.run(assay, "check").returncode == 0
    declared = yaml.safe_load(repo.read("params.yaml"))
    assert (declared["scenarios"], list(declared["runs"])) == (["mine"], [RUN])

    done = repo.dvc("repro", timeout=1800)

    ran = stages_ran(done.stdout)
    for stage in ("subjects", "selftest@mine", f"plan@{RUN}", f"execute@{RUN}", "report"):
        assert stage in ran, (stage, sorted(ran))
    cells = pq.read_table(repo.path / "data" / "execute" / RUN / "cells.parquet").to_pylist()
    assert {(c["subject"], c["arm"]) for c in cells} == {
        (subject, arm) for subject in ("card-mask", "own-slug") for arm in ("clean", "inconsistent")
    }
    assert {c["status"] for c in cells} == {"completed"}
    verdicts = pq.read_table(repo.path / "data" / "structure" / RUN / "verdicts.parquet")
    assert verdicts.num_rows == len(cells)
    plan = json.loads(repo.read(f"data/plan/{RUN}/plan.json"))
    assert (plan["scenario"], plan["schedule"]) == ("mine", "subject-counterbalanced-v1")
    assert "mine/scenario.toml" in repo.read("data/subjects/mine/sources.json")
    assert (repo.path / "data" / "report" / "runs" / RUN / "abstraction.md").is_file()
    assert (repo.path / "data" / "export" / RUN).is_dir()
