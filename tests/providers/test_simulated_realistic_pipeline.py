"""The default study's realistic run through real `dvc repro`: every structural verdict, both
extraction failures and every correctness outcome a candidate can cause occur end to end, the
reports label the run SIMULATED, and a replay of it is labelled and kept apart the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from tests.conftest import stages_ran

TABLE = yaml.safe_load(
    (Path(__file__).parent / "cases" / "realistic_deviations.yaml").read_text(encoding="utf-8")
)
RUN = "sim-realistic-v1"
SIMULATED = "**SIMULATED MODEL.**"


def _rows(repo, table: str) -> list[dict]:
    return pq.read_table(repo.path / table).to_pylist()


def _realistic_study(repo) -> dict:
    """The default params.yaml with only the realistic run (as declared there) and its set."""
    params = yaml.safe_load(repo.read("params.yaml"))
    run = params["runs"][RUN]
    params["scenarios"] = [run["scenario"]]
    params["runs"] = {RUN: run}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    return params


@pytest.mark.slow
@pytest.mark.docker
def test_every_verdict_and_correctness_state_occurs_and_a_replay_stays_simulated(repo):
    _realistic_study(repo)
    repo.dvc("repro", timeout=2400)

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

    # A replay of the realistic run: the same answers, and still simulated in every report.
    plan_hash = repo.read(f"data/plan/{RUN}/plan.sha256").split()[0]
    params = yaml.safe_load(repo.read("params.yaml"))
    params["models"]["replayed"] = {"provider": "replay", "model": "replayed",
                                    "replay_ledger": f"ledger/{RUN}/{plan_hash}"}  # fmt: skip
    params["runs"]["replay-v1"] = {**params["runs"][RUN], "model": "replayed"}
    params["report"]["cost_runs"]["include_simulated"] = False
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    again = repo.dvc("repro", timeout=2400)
    assert "execute@replay-v1" in stages_ran(again.stdout)
    replayed = {(r["cell_id"], r["source"]) for r in _rows(repo, "data/extract/replay-v1/candidates.parquet")}  # fmt: skip
    original = {(r["cell_id"], r["source"]) for r in _rows(repo, f"data/extract/{RUN}/candidates.parquet")}  # fmt: skip
    assert replayed == original
    assert SIMULATED in repo.read("data/report/runs/replay-v1/abstraction.md")
    costs = json.loads(repo.read("data/report/duplication_cost.json"))
    assert {"replay-v1", RUN} <= set(costs["excluded_runs"]), costs["excluded_runs"]
    assert all("simulated" in costs["excluded_runs"][r] for r in ("replay-v1", RUN))
