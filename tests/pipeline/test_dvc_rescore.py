"""Through real `dvc repro`: rescoring side by side without executing, the verdict diff, the
adjudication section, the exploratory cross-model comparison and the scoped cost report."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from test_dvc_pipeline import _intents, _only_runs, _ran

from assay.pipeline.layout import address, stage_file

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

RUNS = ("sim-follower-v1", "sim-reuser-v1")


def _with_reuser_run(repo):
    """The shared study (tests/study.py: two subjects per scenario, one repeat) and a run of v1
    by the simulated reuser beside its follower run, at the same repeats so the two compare."""
    params = yaml.safe_load(repo.read("params.yaml"))
    follower = params["runs"]["sim-follower-v1"]
    params["runs"]["sim-reuser-v1"] = {**follower, "model": "sim-reuser"}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def _repro_with_docker(repo, *args):
    """A repro that runs sandbox containers: on a loaded, shared host it can take longer than
    the fixture's 10-minute limit, so it gets its own."""
    process = repo.dvc_process("repro", *args)
    output, _ = process.communicate(timeout=2400)
    assert process.returncode == 0, output
    return output


def _lock_entry(repo, stage, key):
    lock = stage_file(stage).replace("dvc.yaml", "dvc.lock")
    return yaml.safe_load(repo.read(lock))["stages"][f"{stage}@{key}"]


def test_rescore_v7_to_v6_writes_a_verdict_diff_without_executing(study_copy):
    repo = study_copy
    before = _intents(repo)
    _with_reuser_run(repo)
    _repro_with_docker(repo)
    sent = _intents(repo)
    cells = len(pq.read_table(repo.path / "data/execute/sim-reuser-v1/cells.parquet"))
    assert cells > 0 and sent == before + cells
    execute_before = _lock_entry(repo, "execute", "sim-follower-v1")
    first = json.loads(repo.read("data/report/rescore/sim-follower-v1.json"))
    assert first["preregistered"] == 7 and first["reported_with"] == [7]
    assert [d["version"] for d in first["diffs"]] == [4, 5, 6, 8]
    primary = repo.read("data/report/runs/sim-follower-v1/abstraction.md")
    assert "## Rescoring with other evaluator versions" in primary
    assert "With human adjudication of ambiguous cells" in primary

    rescored = repo.run(
        "python", "-m", "assay.cli", "rescore", "sim-follower-v1", "--structure-version", "6"
    )
    output = rescored.stdout + rescored.stderr
    assert _ran(output, "structure@sim-follower-v1") and _ran(output, "report"), output
    for stage in ("plan@", "authorize@", "execute@", "extract@", "correctness@", "measure@",
                  "structure@sim-reuser-v1"):  # fmt: skip
        assert not _ran(output, stage), stage
    assert "v6 changes" in output and "data/report/rescore/sim-follower-v1.md" in output
    assert _intents(repo) == sent, "rescoring sent a provider request"
    assert _lock_entry(repo, "execute", "sim-follower-v1") == execute_before
    params = yaml.safe_load(repo.read("params.yaml"))
    assert params["evaluators"]["structure_runs"] == {"sim-follower-v1": 6}
    diff = json.loads(repo.read("data/report/rescore/sim-follower-v1.json"))
    assert diff["reported_with"] == [6] and [d["version"] for d in diff["diffs"]] == [4, 5, 6, 8]
    v6 = next(d for d in diff["diffs"] if d["version"] == 6)
    assert v6["changed_verdicts"] == len(v6["changes"])
    assert "Deviation from the plan" in repo.read("data/report/runs/sim-follower-v1/abstraction.md")
    assert "Deviation" not in repo.read("data/report/runs/sim-reuser-v1/abstraction.md")

    again = repo.dvc("repro").stdout
    # `evaluators` changed, so the other run's structure stage re-scores (identically)
    for stage in ("execute@", "correctness@", "structure@sim-follower-v1"):
        assert not _ran(again, stage), again

    scenario = repo.read("data/report/scenarios/v1.md")
    assert "## Cross-model comparison (exploratory)" in scenario
    compared = repo.run("python", "-m", "assay.cli", "compare", *RUNS, "--format", "json")
    comparison = json.loads(compared.stdout)
    assert comparison["exploratory"] and {t["arm"] for t in comparison["tests"]} == {
        "clean", "inconsistent"
    }  # fmt: skip

    costs = json.loads(repo.read("data/report/duplication_cost.json"))
    pooled = {row["run"] for row in costs["pooled_runs"]}  # the study's Haiku runs: no outputs yet
    assert pooled.isdisjoint(RUNS) and set(RUNS) <= set(costs["excluded_runs"])
    params["report"]["cost_runs"] = {"runs": ["sim-reuser-v1"], "include_simulated": True}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    scoped = repo.dvc("repro").stdout
    assert _ran(scoped, "report") and not _ran(scoped, "execute@")
    costs = json.loads(repo.read("data/report/duplication_cost.json"))
    assert [r["run"] for r in costs["pooled_runs"]] == ["sim-reuser-v1"] and costs["outputs"] > 0
    assert "- `sim-reuser-v1` (sim-reuser, v1, simulated)" in repo.read(
        "data/report/duplication_cost.md"
    )
    assert _intents(repo) == sent

    # correctness: every image/policy version is kept beside the others across re-runs
    versions = repo.path / "data/correctness-versions/sim-reuser-v1/versions.parquet"
    current = pq.read_table(versions)
    older = current.set_column(
        current.schema.get_field_index("policy"), "policy", pa.array(["0" * 12] * len(current))
    )
    pq.write_table(pa.concat_tables([older, current]), versions)
    _repro_with_docker(repo, "--force", "--single-item", address("correctness", "sim-reuser-v1"))
    policies = repo.run("python", "-m", "assay.cli", "sql", "--format", "csv",
                        "SELECT policy, count(*) AS cells FROM correctness_versions "
                        "WHERE run = 'sim-reuser-v1' GROUP BY policy ORDER BY policy").stdout  # fmt: skip
    (_, old_version, current_version) = policies.split()
    assert old_version == f"000000000000,{cells}", "a correctness re-run dropped an earlier version"
    assert current_version.endswith(f",{cells}"), policies
    assert _intents(repo) == sent


def test_a_bad_cost_runs_scope_is_one_clear_line(repo):
    params = _only_runs(repo, "sim-follower-v1")
    params.setdefault("report", {})["cost_runs"] = {"models": ["no-such-model"]}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    failed = repo.run("python", "-m", "assay.cli", "rescore", "sim-follower-v1",
                      "--structure-version", "6", "--no-repro", check=False)  # fmt: skip
    assert failed.returncode == 2
    assert "report.cost_runs.models: unknown 'no-such-model'" in failed.stderr
