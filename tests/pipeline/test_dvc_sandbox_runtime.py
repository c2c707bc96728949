"""Through real `dvc repro`: the plan binds the sandbox runtime its self-test ran on (the Docker
engine and client, and the runtime policy: limits, profiles, deadlines). A run evaluated on
another engine or under another policy gets missing evidence (evaluator failures naming the
mismatch), never a verdict; the same runtime again gives the same plan and the verdicts back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pyarrow.parquet as pq
import pytest

from assay.compute.engine import local_identity
from assay.sandbox import policy
from tests.conftest import stages_ran
from tests.pipeline.test_dvc_image_archive import RUN, _one_small_run

SELFTEST = "data/selftest/v1/selftest.json"
PLAN = f"data/plan/{RUN}/plan.json"
CORRECTNESS = f"data/correctness/{RUN}/correctness.parquet"
TARGET = f"pipeline/correctness/dvc.yaml:correctness@{RUN}"

pytestmark = [pytest.mark.slow, pytest.mark.docker]


def _outcomes(repo) -> set[tuple[str | None, str]]:
    rows = pq.read_table(repo.path / CORRECTNESS).to_pylist()
    return {(row["status"], row["reason"]) for row in rows}


def _changed(original: str, change: Callable[[dict[str, Any]], None]) -> str:
    """The self-test report as if it had run on another runtime (``change`` edits its sandbox
    section)."""
    report = json.loads(original)
    change(report["sandbox"])
    return json.dumps(report)


def _recorded(repo, report: str) -> str:
    """``report`` committed as the self-test stage's output, then `dvc repro` up to
    correctness: its output."""
    repo.write(SELFTEST, report)
    repo.dvc("commit", "--force", "pipeline/selftest/dvc.yaml:selftest@v1")
    result = repo.dvc("repro", TARGET, timeout=600)
    return result.stdout + result.stderr


def test_a_run_on_another_engine_or_policy_than_its_plan_is_missing_never_a_verdict(repo) -> None:
    _one_small_run(repo)
    repo.dvc("repro", TARGET, timeout=900)
    pinned = json.loads(repo.read(PLAN))["sandbox"]
    assert pinned["engine"] == local_identity().model_dump()
    assert pinned["policy"] == json.loads(json.dumps(policy.describe()))
    assert pinned["policy"]["standard"]["sysctls"] == policy.IPC_SYSCTLS
    assert _outcomes(repo) == {("correct", "all-cases-passed")}
    first_plan, original = repo.read(PLAN), repo.read(SELFTEST)

    def elsewhere(sandbox: dict[str, Any]) -> None:
        sandbox["engine"]["version"] = "0.0.0-elsewhere"

    output = _recorded(repo, _changed(original, elsewhere))
    assert {f"plan@{RUN}", f"correctness@{RUN}"} <= stages_ran(output)
    assert json.loads(repo.read(PLAN))["sandbox"]["engine"]["version"] == "0.0.0-elsewhere"
    assert _outcomes(repo) == {("evaluator-failure", "plan-engine-mismatch")}
    assert "plan-engine-mismatch" in output and "0.0.0-elsewhere" in output

    def more_memory(sandbox: dict[str, Any]) -> None:
        sandbox["policy"]["standard"]["mem_limit"] *= 2

    output = _recorded(repo, _changed(original, more_memory))
    assert _outcomes(repo) == {("evaluator-failure", "plan-policy-mismatch")}
    assert "standard.mem_limit" in output

    _recorded(repo, original)
    assert repo.read(PLAN) == first_plan
    assert _outcomes(repo) == {("correct", "all-cases-passed")}
