"""End to end: `dvc repro` on a fresh copy, no-op re-runs, rescoring without re-executing."""

import json

import pytest
import yaml

from tests.conftest import stages_ran
from tests.stage_imports import stages_importing
from tests.study import declared_run

pytestmark = [pytest.mark.dvc, pytest.mark.docker]


def _set_param(repo, path, value):
    params = yaml.safe_load(repo.read("params.yaml"))
    node = params
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def _only_runs(repo, *runs):
    """Keep the declared runs named (and the scenarios they use), to keep the test short."""
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"] = {name: spec for name, spec in params["runs"].items() if name in runs}
    params["scenarios"] = sorted({spec["scenario"] for spec in params["runs"].values()})
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    return params


def _intents(repo):
    return sum(
        line.count('"type":"intent"')
        for p in (repo.path / "ledger").rglob("ledger.jsonl")
        for line in p.read_text().splitlines()
    )


def _ran(output, stage):
    return any(name.startswith(stage) for name in stages_ran(output))


def test_repro_runs_end_to_end_then_skips_then_rescores_without_executing(v1_run, v1_copy):
    first, repo = v1_run.output, v1_copy
    for stage in (
        "image",
        "selftest@v1",
        "plan@",
        "execute@",
        "structure@",
        "correctness@",
        "measure@",
        "report",
    ):
        assert _ran(first, stage), stage
    report = json.loads(repo.read("data/report/runs/sim-follower-v1/abstraction.json"))
    assert report["run"]["simulated"] is True
    assert sum(row["calls"] for row in report["execution"]) == 48
    (test,) = report["sign_tests"]
    assert (test["reference_arm"], test["arm"], test["complete_subjects"]) == (
        "clean",
        "inconsistent",
        12,
    )
    assert "SIMULATED MODEL" in repo.read("data/report/runs/sim-follower-v1/abstraction.md")
    plan = json.loads(repo.read("data/plan/sim-follower-v1/plan.json"))
    assert plan["sandbox"]["image_id"].startswith("sha256:") and plan["sandbox"]["python_version"]
    assert plan["sandbox"]["selftest_checks"] == 60  # 12 subjects × 2 arms × 2 references + 12

    correctness = json.loads(repo.read("data/report/runs/sim-follower-v1/correctness.json"))
    assert correctness["report"] == "correctness" and correctness["scale"] == [
        "incorrect",
        "correct",
    ]
    assert {row["outcome"] for row in correctness["outcome_counts"]} == {"correct"}
    assert "Correctness report (secondary" in repo.read(
        "data/report/runs/sim-follower-v1/correctness.md"
    )
    assert "correct" not in {row["outcome"] for row in report["outcome_counts"]}, "reports mixed"

    costs = repo.read("data/report/duplication_cost.md")
    assert "Not pooled: `sim-follower-v1` (simulated" in costs and "jscpd" in costs
    metrics = json.loads(repo.read("reports/metrics.json"))["sim-follower-v1"]
    assert metrics["simulated"] == 1 and metrics["complete"] == 12
    assert 0 <= metrics["reuse_ref"] <= 1 and len(metrics) <= 16
    assert not any(key.startswith("correctness") for key in metrics), "not confirmatory"
    sent = _intents(repo)
    assert sent == 48
    first_report = repo.read("data/report/runs/sim-follower-v1/abstraction.md")

    again = repo.dvc("repro").stdout
    assert not any(
        _ran(again, s)
        for s in ("plan@", "execute@", "structure@", "correctness@", "measure@", "report")
    ), again

    # each stage depends on the params.yaml sections it reads (data/params/<key>.json): an
    # edit to a model no run here uses re-runs the check alone
    _set_param(repo, ["models", "sim-reuser", "seed"], 7)
    assert stages_ran(repo.dvc("repro").stdout) == {"params"}
    assert json.loads(repo.read("data/params/models.sim-reuser.json"))["seed"] == 7

    _set_param(repo, ["evaluators", "structure"], 6)
    rescored = repo.dvc("repro").stdout
    assert _ran(rescored, "structure@sim-follower-v1") and _ran(rescored, "report")
    for stage in ("plan@", "execute@", "correctness@", "measure@"):
        assert not _ran(rescored, stage), stage
    assert _intents(repo) == sent, "rescoring sent a provider request"
    versions = repo.run(
        "python", "-c", "import pyarrow.parquet as pq; print(set(pq.read_table("
        "'data/structure/sim-follower-v1/verdicts.parquet').column('evaluator_version').to_pylist()))",
    ).stdout  # fmt: skip
    assert versions.strip() == "{6}"
    assert "Deviation from the plan" in repo.read("data/report/runs/sim-follower-v1/abstraction.md")

    _set_param(repo, ["evaluators", "structure"], 7)
    repo.dvc("repro")
    assert repo.read("data/report/runs/sim-follower-v1/abstraction.md") == first_report, (
        "not deterministic"
    )

    (repo.path / "uv.lock").write_text(repo.read("uv.lock") + "# a metric tool's version changed\n")
    bumped = repo.dvc("repro").stdout
    # measure re-runs; its rows are identical here (the tool did not really change), so DVC
    # skips the report too — with a real version change the rows and the report change
    assert _ran(bumped, "measure@sim-follower-v1")
    # plan records tool versions and execute re-checks the plan it would rebuild, so both may
    # run again; the plan is unchanged, so nothing is sent and no evaluator re-runs
    assert _intents(repo) == 48, "a lock change sent a request"
    for stage in ("extract@", "structure@", "correctness@"):
        assert not _ran(bumped, stage), stage

    # a code edit reaches a stage through its digest (data/code/<stage>.json), derived from what
    # the stage's script imports: the structure stage's module is the code of that stage alone
    module = repo.path / "src" / "assay" / "pipeline" / "structure.py"
    module.write_text(module.read_text(encoding="utf-8") + "# an edit\n", encoding="utf-8")
    edited = repo.dvc("repro").stdout
    assert {"code", "structure@sim-follower-v1"} <= stages_ran(edited)
    for stage in ("params", "plan@", "execute@", "extract@", "correctness@", "measure@"):
        assert not _ran(edited, stage), stage
    assert _changed_for(edited) == {"structure"}
    assert stages_ran(repo.dvc("repro").stdout) == set()

    # a module many stages import (chain steps: execute, selftest, ...) changes every one of
    # their digests, as their scripts' imports say (the code stage prints whose; that a changed
    # digest re-runs its stage is shown just above)
    chain = repo.path / "src" / "assay" / "fixtures" / "chain.py"
    chain.write_text(chain.read_text(encoding="utf-8") + "# an edit\n", encoding="utf-8")
    edited = repo.dvc("repro", "code").stdout
    assert _changed_for(edited) == stages_importing("assay.fixtures.chain")
    assert {"execute", "selftest"} <= _changed_for(edited)


def _changed_for(output: str) -> set[str]:
    """The stages whose code digest the code stage rewrote, as it prints them."""
    line = next(x for x in output.splitlines() if x.startswith("code: "))
    return (
        set(line.removeprefix("code: changed for ").split(", ")) if "changed for" in line else set()
    )


def test_unauthorized_paid_run_spends_nothing_and_mismatch_fails(v1_copy):
    """The seed's Haiku route on the whole of v1, beside the shared v1 run (whose subjects, image
    and self-test it shares)."""
    repo = v1_copy
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"]["paid-v1"] = declared_run("haiku-v1")
    params["models"]["haiku-3-bedrock"]["base_url"] = "http://127.0.0.1:9/api/v1"
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))

    repo.dvc("repro")
    report = json.loads(repo.read("data/report/runs/paid-v1/abstraction.json"))
    assert report["run"]["authorization"] == "awaiting-authorization"
    assert report["run"]["worst_case_usd"] == 2.88 and report["run"]["cells"] == 48
    assert report["execution"] == [
        {"status": "not-run", "calls": 48, "reserved_usd": 0.0, "reported_usd": 0.0}
    ]
    assert "Awaiting authorization" in repo.read("data/report/runs/paid-v1/abstraction.md")
    assert not (repo.path / "ledger" / "paid-v1").exists(), "an unauthorized run opened a ledger"

    plan_hash = repo.read("data/plan/paid-v1/plan.sha256").strip()
    shown = repo.run("python", "-m", "assay.cli", "plan", "show", "paid-v1").stdout
    assert plan_hash in shown and "$2.88" in shown

    params["runs"]["paid-v1"].update(allow_paid=True, authorization="f" * 64, plan_ref="f" * 64)
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    failed = repo.dvc("repro", check=False)
    assert failed.returncode != 0
    assert "the plan changed since it was approved" in failed.stdout + failed.stderr

    wrong = repo.run(
        "python", "-m", "assay.cli", "authorize", "paid-v1", "--plan-hash", "0" * 64, check=False
    )
    assert wrong.returncode == 2 and "is not the current plan" in wrong.stderr
    # no qualification run on the route: refused, nothing written (tests/providers/
    # test_provider_qualification.py authorizes a study once its route's qualification passed)
    unqualified = repo.run(
        "python", "-m", "assay.cli", "authorize", "paid-v1", "--plan-hash", plan_hash, check=False
    )
    assert unqualified.returncode == 2
    assert "is not qualified: no qualification run is declared on it" in unqualified.stderr
    assert "qualification  none declared on this route" in shown
    assert "power          clean vs inconsistent: 12 subjects" in shown
    written = yaml.safe_load(repo.read("params.yaml"))["runs"]["paid-v1"]
    assert written["authorization"] == "f" * 64, "a refused authorization wrote params.yaml"
