"""End to end: `dvc repro` on a fresh copy, no-op re-runs, rescoring without re-executing."""

import json

import yaml


def _set_param(repo, path, value):
    params = yaml.safe_load(repo.read("params.yaml"))
    node = params
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def _intents(repo):
    return sum(
        line.count('"type":"intent"')
        for p in (repo.path / "ledger").rglob("ledger.jsonl")
        for line in p.read_text().splitlines()
    )


def test_repro_runs_end_to_end_then_skips_then_rescores_without_executing(repo):
    first = repo.dvc("repro")
    assert "Running stage 'execute@sim-follower-v1'" in first.stdout
    report = json.loads(repo.read("data/report/runs/sim-follower-v1/abstraction.json"))
    assert report["run"]["simulated"] is True
    assert sum(row["calls"] for row in report["execution"]) == 48
    (test,) = report["sign_tests"]
    assert (test["reference_arm"], test["arm"], test["complete_subjects"]) == (
        "clean",
        "inconsistent",
        12,
    )
    markdown = repo.read("data/report/runs/sim-follower-v1/abstraction.md")
    assert "SIMULATED MODEL" in markdown
    metrics = json.loads(repo.read("reports/metrics.json"))
    assert "reused_clean" in metrics["sim-follower-v1"]
    sent = _intents(repo)
    assert sent == 48
    first_report = repo.read("data/report/runs/sim-follower-v1/abstraction.md")

    again = repo.dvc("repro")
    assert "Running stage" not in again.stdout, again.stdout

    _set_param(repo, ["evaluators", "structure"], 6)
    rescored = repo.dvc("repro")
    assert "Running stage 'structure@sim-follower-v1'" in rescored.stdout
    assert "Running stage 'report'" in rescored.stdout
    assert "Running stage 'execute@" not in rescored.stdout
    assert _intents(repo) == sent, "rescoring sent a provider request"
    verdicts = repo.run(
        "python",
        "-c",
        "import pyarrow.parquet as pq; "
        "print(set(pq.read_table('data/structure/sim-follower-v1/verdicts.parquet')"
        ".column('evaluator_version').to_pylist()))",
    ).stdout
    assert verdicts.strip() == "{6}"

    _set_param(repo, ["evaluators", "structure"], 7)
    repo.dvc("repro")
    assert repo.read("data/report/runs/sim-follower-v1/abstraction.md") == first_report, (
        "report not deterministic"
    )


def test_unauthorized_paid_run_spends_nothing_and_mismatch_fails(repo):
    params = yaml.safe_load(repo.read("params.yaml"))
    params["models"]["paid-local"] = {
        "provider": "openai-compatible",
        "model": "local-paid",
        "base_url": "http://127.0.0.1:9/v1",
        "price_caps": {"prompt": 0.25, "completion": 1.25},
        "reservation_usd": 0.06,
        "ceiling_usd": 2.88,
    }
    params["runs"]["paid-v1"] = {"model": "paid-local", "scenario": "v1", "repeats": 2}
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
    repo.run("python", "-m", "assay.cli", "authorize", "paid-v1", "--plan-hash", plan_hash)
    written = yaml.safe_load(repo.read("params.yaml"))["runs"]["paid-v1"]
    assert (
        written["authorization"] == written["plan_ref"] == plan_hash
        and written["allow_paid"] is True
    )


def test_experiment_with_changed_follow_rate_is_compared_by_exp_show(repo):
    repo.dvc("repro")
    repo.git("add", "-A")
    repo.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qm", "baseline")
    repo.dvc("exp", "run", "-n", "always-follow", "-S", "models.sim-follower.follow_rate=1.0")
    shown = json.loads(repo.dvc("exp", "show", "--json").stdout)
    names, values = [], []
    for entry in shown:
        for experiment in [entry] + [
            e for exp in entry.get("experiments") or [] for e in exp.get("revs", [])
        ]:
            data = experiment.get("data") or {}
            metrics = (data.get("metrics") or {}).get("reports/metrics.json", {}).get("data")
            if metrics:
                names.append(experiment.get("name") or data.get("rev"))
                values.append(metrics["sim-follower-v1"]["reused_clean"])
    assert "always-follow" in names and len(values) >= 2
    assert values[names.index("always-follow")] == 24
