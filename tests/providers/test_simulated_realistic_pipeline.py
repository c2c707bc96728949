"""The default study's realistic run through real `dvc repro`: every structural verdict, both
extraction failures and every correctness outcome a candidate can cause occur end to end, and
the reports label the run SIMULATED and leave it out of the duplication cost. (A replay of a
simulated run staying simulated: tests/pipeline/test_honest_report.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from tests.conftest import Repo, stages_ran
from tests.study import declared_run

TABLE = yaml.safe_load(
    (Path(__file__).parent / "cases" / "realistic_deviations.yaml").read_text(encoding="utf-8")
)
RUN = "sim-realistic-v1"
SIMULATED = "**SIMULATED MODEL.**"


def _rows(repo, table: str) -> list[dict]:
    return pq.read_table(repo.path / table).to_pylist()


def _with_realistic_run(repo: Repo) -> None:
    """The shared v1 run's repository (tests/study.py: the whole of v1) with the realistic run as
    the default params.yaml declares it: v1's subjects, image and self-test are already there."""
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"][RUN] = declared_run(RUN)
    assert params["runs"][RUN]["scenario"] == "v1" and params["scenarios"] == ["v1"]
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


@pytest.mark.slow
@pytest.mark.docker
def test_every_verdict_and_correctness_state_occurs_and_the_run_stays_simulated(v1_copy):
    repo = v1_copy
    _with_realistic_run(repo)
    ran = stages_ran(repo.dvc("repro", timeout=2400).stdout)
    assert f"execute@{RUN}" in ran and "selftest@v1" not in ran, ran

    verdicts = _rows(repo, f"data/structure/{RUN}/verdicts.parquet")
    seen = {(v["verdict"], v["reason"] if v["verdict"] in (None, "rejected") else None)
            for v in verdicts}  # fmt: skip
    expected = {("reused", None), ("duplicated", None), ("mixed", None), ("ambiguous", None)}
    expected |= {(None, row["extraction"]) for row in TABLE.values() if row["verdict"] is None}
    expected |= {("rejected", row["reason"]) for row in TABLE.values()
                 if row["verdict"] == "rejected"}  # fmt: skip
    assert expected <= seen, sorted(expected - seen, key=str)

    correctness = _rows(repo, f"data/correctness/{RUN}/correctness.parquet")
    outcomes = {row["status"] if row["status"] != "incorrect" else row["reason"]
                for row in correctness}  # fmt: skip
    wanted = {row["correctness"] for row in TABLE.values()} - {"missing"}
    assert wanted <= outcomes, sorted(wanted - outcomes)
    missing = {row["reason"] for row in correctness if row["status"] is None}
    assert {"ambiguous-extraction", "no-code"} <= missing
    assert any(reason.startswith("gate:") for reason in missing)

    abstraction = repo.read(f"data/report/runs/{RUN}/abstraction.md")
    assert SIMULATED in abstraction and SIMULATED in repo.read(
        f"data/report/runs/{RUN}/correctness.md"
    )

    costs = json.loads(repo.read("data/report/duplication_cost.json"))
    assert "simulated" in costs["excluded_runs"][RUN], costs["excluded_runs"]
