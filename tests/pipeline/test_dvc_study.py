"""The whole default study through real `dvc repro`: every scenario and every declared run of
the default params.yaml, on a subject subset with one repeat so it stays affordable on 2 cores.

Scenarios and runs are read from params.yaml, so a scenario added there is driven here too.
"""

import json
import re

import pyarrow.parquet as pq
import pytest
import yaml

from assay.fixtures.scenarios import source_folders
from assay.pipeline.layout import address
from assay.report.codebase_sets import VARIANTS as CODEBASE_VARIANTS
from tests.conftest import Repo, stages_ran
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

PER_RUN_STAGES = ("plan", "authorize", "execute", "extract", "structure", "correctness", "measure")
PER_SCENARIO_STAGES = ("selftest",)
SINGLE_STAGES = ("image", "snapshot", "subjects", "render", "report", "inspect_logs")
OWN_STEP_CALL = re.compile(r"return implement_step_\d+\(")


def _ran(output: str) -> set[str]:
    return stages_ran(output)


def _rows(repo, table: str) -> list[dict]:
    return pq.read_table(repo.path / table).to_pylist()


def test_default_study_runs_every_scenario_and_report_through_dvc_repro(study: Study) -> None:
    """The shared study run (tests/study.py), read only."""
    repo, params = study.repo, study.params
    scenarios, runs = params["scenarios"], params["runs"]
    assert {"v1", "layered", "dose", "placement", "chain", "context"} <= set(scenarios)
    ran = _ran(study.output)
    expected = {f"{stage}@{s}" for stage in PER_SCENARIO_STAGES for s in scenarios}
    expected |= {f"{stage}@{r}" for stage in PER_RUN_STAGES for r in runs}
    assert expected | set(SINGLE_STAGES) <= ran, sorted(expected - ran)

    for name in scenarios:
        report = json.loads(repo.read(f"data/report/scenarios/{name}.json"))
        assert {r["run"] for r in report["runs"]} == {
            r for r, spec in runs.items() if spec["scenario"] == name
        }
        assert (repo.path / f"data/report/scenarios/{name}.md").exists()
    for run in runs:
        assert (repo.path / f"data/report/runs/{run}/abstraction.md").exists()
        assert (repo.path / f"data/report/runs/{run}/correctness.md").exists()

    # chain: planned through the pipeline, no sandbox check, five step reports
    selftest = json.loads(repo.read("data/selftest/chain/selftest.json"))
    assert selftest["sandbox"]["checks"] == 0 and selftest["sandbox"]["sandboxed_arms"] == 0
    assert selftest["known_answers"]["step_checks"] == 2 * 3 * 2 * 4
    plan = json.loads(repo.read("data/plan/sim-follower-chain/plan.json"))
    assert plan["sandbox"]["image_id"] is None and plan["budget"]["requests"] == 2 * 3 * 5
    chain_md = repo.read("data/report/scenarios/chain.md")
    assert [f"## abstraction-{k}" in chain_md for k in range(1, 6)] == [True] * 5
    chain = json.loads(repo.read("data/report/scenarios/chain.json"))
    assert sorted(chain["steps"], key=int) == ["1", "2", "3", "4", "5"]
    correctness = {row["status"] for row in _rows(repo, "data/correctness/sim-follower-chain/correctness.parquet")}  # fmt: skip
    assert correctness == {"skipped"}

    # the own-step count equals the ambiguous answers that return the model's earlier step
    verdicts = _rows(repo, "data/structure/sim-follower-chain/verdicts.parquet")
    sources = {(c["cell_id"], c["step"]): c["source"]
               for c in _rows(repo, "data/extract/sim-follower-chain/candidates.parquet")}  # fmt: skip
    own = [v for v in verdicts if v["step"] > 1 and v["verdict"] == "ambiguous"
           and OWN_STEP_CALL.search(sources[(v["cell_id"], v["step"])] or "")]  # fmt: skip
    reported = sum(
        per_run["own_step"]
        for step in chain["steps"].values()
        for per_arm in step["ambiguous"].values()
        for per_run in per_arm.values()
    )
    assert own and reported == len(own)
    assert all(v["reason"] == "no-helper-no-primitive" for v in own)
    assert "those that only call the model's own earlier step function" in chain_md
    abstraction = repo.read("data/report/runs/haiku-context/abstraction.md")
    assert (
        "**Excluded by the plan:** 2 cells at ctx-90, never sent (request-over-cap" in abstraction
    )

    # request caps: Haiku's 64 KB cap excludes exactly the ctx-90 cells, counted per arm
    context_plan = json.loads(repo.read("data/plan/haiku-context/plan.json"))
    excluded = {c["arm"] for c in context_plan["cells"] if c["excluded"]}
    assert excluded == {"ctx-90"}
    context = json.loads(repo.read("data/report/scenarios/context.json"))
    assert [(e["run"], e["arm"], e["cells"]) for e in context["excluded"]] == [
        ("haiku-context", "ctx-90", 2)
    ]
    assert "`haiku-context` (anthropic/claude-3-haiku): 2 cells at ctx-90, request-over-cap" in (
        repo.read("data/report/scenarios/context.md")
    )
    calls = _rows(repo, "data/execute/haiku-context/cells.parquet")
    assert {(c["arm"], c["status"]) for c in calls} == {
        ("ctx-00", "not-run"), ("ctx-30", "not-run"), ("ctx-90", "excluded")
    }  # fmt: skip

    # the codebase sets in the seed's table shape: a row per variant, a column per model
    sets = repo.read("data/report/codebase_sets.md")
    for scenario, variant in CODEBASE_VARIANTS:
        cells = json.loads(repo.read(f"data/report/scenarios/{scenario}.json"))["steps"]["1"]
        (run,) = [r for r, spec in runs.items() if spec["scenario"] == scenario]
        clean, messy = cells["cells"]["clean"][run], cells["cells"]["inconsistent"][run]
        per_arm = clean["scored"] + sum(clean["unscored"].values())
        row = f"| {variant} | {clean['reused']} / {messy['reused']} of {per_arm}"
        assert row in sets, sets
    assert 'id="codebase-sets"' in repo.read("data/report/index.html")

    # simulated runs are labelled in every scenario report that holds one
    models = params["models"]
    simulated = {
        s["scenario"] for s in runs.values() if models[s["model"]]["provider"] == "simulated"
    }
    for name in scenarios:
        labelled = "SIMULATED MODEL" in repo.read(f"data/report/scenarios/{name}.md")
        assert labelled is (name in simulated), name


def test_a_second_repro_runs_nothing_and_a_fixture_edit_only_what_reads_it(
    study: Study, study_copy: Repo
) -> None:
    repo, runs, scenarios = study_copy, study.params["runs"], study.params["scenarios"]
    again = repo.dvc("repro")
    assert _ran(again.stdout) == set(), again.stdout  # nothing, not even the image stage

    # one subjects stage realises every scenario; a fixture edit re-runs what reads the edited
    # scenario only (the others are realised byte for byte as before): every plan and all it
    # reads brought up to date, the self-tests and plans compared
    task = repo.path / "fixtures" / "v1" / "card-mask" / "task.toml"
    task.write_text(task.read_text(encoding="utf-8") + "# an edit\n", encoding="utf-8")
    edited = _ran(repo.dvc("repro", "pipeline/plan/dvc.yaml").stdout)
    v1_runs = [r for r, spec in runs.items() if spec["scenario"] == "v1"]
    assert {"code", "subjects", "render", "selftest@v1"} | {f"plan@{r}" for r in v1_runs} <= edited
    # bank reads fixtures/v1 too: its sources (every byte, in the plan hash) changed with it
    reading = {s for s in scenarios if "v1" in source_folders(s, repo.path / "fixtures")}
    assert {f"selftest@{s}" for s in reading} <= edited
    others = {f"selftest@{s}" for s in scenarios if s not in reading}
    others |= {f"plan@{r}" for r, spec in runs.items() if spec["scenario"] not in reading}
    assert not edited & others, sorted(edited & others)


def test_subject_subset_names_the_key_when_an_id_is_unknown(repo):
    params = yaml.safe_load(repo.read("params.yaml"))
    params["scenarios"], params["runs"] = ["v1"], {}
    params["subject_subset"] = {"v1": ["card-mask", "no-such-subject"]}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    failed = repo.dvc("repro", address("subjects"), check=False)
    assert failed.returncode != 0
    assert (
        "params.yaml: field 'subject_subset.v1': unknown subject(s) no-such-subject"
        in failed.stderr + failed.stdout
    )
    params["subject_subset"] = {"dose": ["slug-path"]}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    failed = repo.dvc("repro", address("subjects"), check=False)
    assert "subject_subset.dose: 'dose' is not listed under 'scenarios'" in (
        failed.stderr + failed.stdout
    )
