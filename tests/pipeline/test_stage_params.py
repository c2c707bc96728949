"""Stages read only the params their dvc.yaml declares (assay.pipeline.stage_params).

For every stage: the keys its module declares (``PARAMS``) are the keys its dvc.yaml declares;
its ``read_params`` reads every one of them and no other, for every run or scenario of the
default params.yaml; nothing its script imports reads params.yaml another way; and through
real ``dvc repro``, an edit to a key a stage does not declare leaves it as it was, an edit to
one it declares re-runs it, and a stage that reads a key it does not declare fails, naming the
key, instead of keeping a result DVC would not re-run.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from assay.config.params import load_params
from assay.pipeline.params import publish
from assay.pipeline.stage_params import (
    PLACEMENT,
    Declaration,
    StageParams,
    UndeclaredParams,
)
from tests.conftest import stages_ran
from tests.dvc_stages import declared_params, stage_bodies
from tests.stage_imports import ROOT, script_modules, stage_scripts

BODIES = stage_bodies()
PARAMS = load_params(ROOT / "params.yaml")

READS_PARAMS_YAML = {
    "send": "declares ledger_root, runs and sending as DVC params (read from params.yaml, as "
    "DVC tracks them) and re-reads params.yaml on purpose before a paid run's first request: "
    "the authorization and the plan as they are now, not as the params stage saw them",
    "execute": "the same admission as send, for one run",
}
"""The send path's stages: what they read of params.yaml is DVC ``params:`` (dvc.yaml), and
admission's re-read is the guard against an edit made while the stage runs."""

READERS = sorted(set(stage_scripts()) - set(READS_PARAMS_YAML))
"""The stages that read params through StageParams (or read none)."""

LOADERS = frozenset({"load_params", "read_params_yaml", "read_params_text", "validate_params"})
"""What reads params.yaml itself (assay.config.params)."""


def _module(stage: str) -> ModuleType:
    return importlib.import_module(f"assay.pipeline.{stage}")


def _declaration(stage: str) -> Declaration | None:
    """The stage module's ``PARAMS``; ``None`` for a stage that reads no params."""
    try:
        return getattr(_module(stage), "PARAMS", None)
    except ModuleNotFoundError:  # snapshot: its script calls assay.fixtures.snapshot
        return None


def _keys(stage: str) -> list[str]:
    """The items the stage runs for: each run, each scenario, or none."""
    foreach = yaml.safe_load(
        (ROOT / "pipeline" / stage / "dvc.yaml").read_text(encoding="utf-8")
        if (ROOT / "pipeline" / stage / "dvc.yaml").exists()
        else (ROOT / "dvc.yaml").read_text(encoding="utf-8")
    )["stages"][stage].get("foreach")
    return {"${runs}": list(PARAMS.runs), "${scenarios}": list(PARAMS.scenarios)}.get(foreach, [""])


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default params.yaml's sections as the params stage writes them."""
    folder = tmp_path_factory.mktemp("params")
    publish(PARAMS.model_dump(mode="json"), folder)
    return folder


@pytest.mark.parametrize("stage", READERS)
def test_the_module_declares_what_the_dvc_yaml_declares(stage: str) -> None:
    body = BODIES[stage]
    declared = declared_params(body)
    if stage == "params":
        assert declared == {"params.yaml"}  # the whole file: it validates and publishes it
        return
    declaration = _declaration(stage)
    if declaration is None:  # reads no params (render, image, snapshot, code)
        assert not declared, stage
        return
    assert set(declaration.keys) == declared, stage


@pytest.mark.parametrize("stage", READERS)
def test_each_stage_reads_every_key_it_declares_and_no_other(stage: str, published) -> None:
    declaration = _declaration(stage)
    if stage == "params" or declaration is None:
        return  # the params stage reads the whole file; the others here read none
    for key in _keys(stage):
        params = StageParams(declaration, key, folder=published)
        _module(stage).read_params(params)
        assert params.read - {PLACEMENT} == set(params.declared), (stage, key)
        assert (PLACEMENT in params.read) == declaration.placement, (stage, key)


def test_only_the_stages_dvc_yaml_names_read_compute_undeclared() -> None:
    """dvc.yaml: `compute` is read by selftest, correctness and measure, no stage's dependency."""
    placing = {s for s in READERS if (d := _declaration(s)) is not None and d.placement}
    assert placing == {"selftest", "correctness", "measure"}
    assert not any(PLACEMENT in declared_params(body) for body in BODIES.values())


def _loader_uses(relative: str) -> list[str]:
    tree = ast.parse((ROOT / relative).read_text(encoding="utf-8"))
    return [
        f"{relative}:{node.lineno} {name}"
        for node in ast.walk(tree)
        for name in [getattr(node, "id", None) or getattr(node, "attr", None)]
        if isinstance(node, ast.Name | ast.Attribute) and name in LOADERS
    ]


@pytest.mark.parametrize("stage", sorted(set(READERS) - {"params"}))
def test_nothing_a_stage_runs_reads_params_yaml_itself(stage: str) -> None:
    script = stage_scripts()[stage]
    files = [str(script.relative_to(ROOT))] + [
        path
        for name, path in script_modules(script).items()
        if name not in ("assay.config.params", "assay.pipeline.params")
    ]
    uses = [use for path in files for use in _loader_uses(path)]
    assert uses == [], uses


def test_an_undeclared_key_is_refused(published) -> None:
    run = next(iter(PARAMS.runs))
    params = StageParams(Declaration(keys=("runs.${key}.scenario", "analysis")), run,
                         folder=published)  # fmt: skip
    assert params.value("analysis.alpha") == PARAMS.analysis.alpha
    assert params.value(f"runs.{run}.scenario") == PARAMS.runs[run].scenario
    for key in (f"runs.{run}", f"runs.{run}.repeats", "analysisx", "ledger_root", "runs"):
        with pytest.raises(UndeclaredParams, match=key.replace(".", r"\.")):
            params.value(key)
    with pytest.raises(UndeclaredParams):
        params.placement()
    assert params.read == {"analysis.alpha", f"runs.{run}.scenario"}


def test_a_run_s_fields_resolve_its_declared_keys(published) -> None:
    run, spec = next(iter(PARAMS.runs.items()))
    params = StageParams(Declaration(keys=("models.${item.model}",)), run, folder=published)
    assert params.declared == (f"models.{spec.model}",)
    assert params.value(f"models.{spec.model}")["model"] == PARAMS.models[spec.model].model


def test_a_section_absent_from_params_yaml_is_read_with_its_default(tmp_path: Path) -> None:
    """The params stage publishes validated values: a stage declaring ``compute`` or
    ``evaluators.extraction`` finds its file even when params.yaml leaves them to defaults."""
    raw = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    del raw["compute"], raw["evaluators"]["extraction"]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    publish(load_params(tmp_path / "params.yaml").model_dump(mode="json"), tmp_path / "out")
    params = StageParams(Declaration(keys=("evaluators.extraction",), placement=True),
                         folder=tmp_path / "out", params_file=tmp_path / "params.yaml")  # fmt: skip
    assert params.typed("evaluators.extraction", int) == 2
    assert params.placement().scheduler == "local"


@pytest.mark.dvc
def test_dvc_repro_reruns_a_stage_for_its_declared_keys_only(repo) -> None:
    """subjects declares fixtures, scenarios and subject_subset (not report, say): through real
    `dvc repro`, an edit to another key runs the params stage alone; an edit to subject_subset
    re-runs subjects; and once its code reads an undeclared key, the stage fails naming it."""

    def edit(change) -> None:
        params = yaml.safe_load(repo.read("params.yaml"))
        change(params)
        repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))

    def only_v1(params: dict) -> None:
        params["runs"] = {k: v for k, v in params["runs"].items() if v["scenario"] == "v1"}
        params["scenarios"] = ["v1"]

    edit(only_v1)
    assert "subjects" in stages_ran(repo.dvc("repro", "subjects").stdout)
    subjects = repo.read("data/subjects/v1/scenario.json")

    edit(lambda p: p["report"].update(metrics_reference_arm="inconsistent"))
    assert stages_ran(repo.dvc("repro", "subjects").stdout) == {"params"}
    assert repo.read("data/subjects/v1/scenario.json") == subjects

    first = yaml.safe_load(subjects)["subjects"][0]["task"]["id"]
    edit(lambda p: p.update(subject_subset={"v1": [first]}))
    assert stages_ran(repo.dvc("repro", "subjects").stdout) == {"params", "subjects"}
    realised = yaml.safe_load(repo.read("data/subjects/v1/scenario.json"))["subjects"]
    assert [subject["task"]["id"] for subject in realised] == [first]

    # a stage that reads a key it does not declare fails, naming the key, instead of keeping
    # a result DVC would not re-run when that key changes
    module = repo.path / "src" / "assay" / "pipeline" / "subjects.py"
    source = module.read_text(encoding="utf-8")
    reads = "def read_params(params: StageParams) -> SubjectsParams:\n"
    assert reads in source
    module.write_text(source.replace(reads, f'{reads}    params.value("report")\n'), "utf-8")
    failed = repo.dvc("repro", "subjects", check=False)
    assert failed.returncode != 0
    assert "'report', which its dvc.yaml does not declare" in failed.stderr, failed.stderr


@pytest.mark.parametrize("stage", sorted(READS_PARAMS_YAML))
def test_the_send_path_declares_what_it_reads_of_params_yaml_as_dvc_params(stage: str) -> None:
    """send and execute read params.yaml itself: every key they read is a DVC ``params:`` entry
    (DVC re-runs them when its value changes), none a params stage file."""
    body = BODIES[stage]
    assert not [d for d in body.get("deps", []) if d.startswith("data/params/")]
    assert {"ledger_root", "runs"} <= {k.split(".")[0] for k in declared_params(body)}
