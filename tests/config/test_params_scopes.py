"""``report.cost_runs`` and ``evaluators.structure_runs`` are validated with one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.config.params import ParamsError, load_params
from assay.config.params_edit import write_structure_version

ROOT = Path(__file__).resolve().parents[2]


def _params(tmp_path: Path, change) -> Path:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    change(params)
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p["report"].update(cost_runs={"runs": ["nope"]}),
         "report.cost_runs.runs: unknown 'nope'"),
        (lambda p: p["report"].update(cost_runs={"scenarios": ["codebase-far"]}),
         "report.cost_runs.scenarios: unknown 'codebase-far'"),
        (lambda p: p["report"].update(cost_runs={"models": ["gpt-9"]}),
         "report.cost_runs.models: unknown 'gpt-9'"),
        (lambda p: p["report"].update(cost_runs={"include_simulated": "maybe"}),
         "report.cost_runs.include_simulated"),
        (lambda p: p["evaluators"].update(structure_runs={"haiku-v1": 9}),
         "evaluators.structure_runs.haiku-v1: unknown structural evaluator version 9"),
        (lambda p: p["evaluators"].update(structure_runs={"nope": 6}),
         "evaluators.structure_runs: unknown run 'nope'"),
    ],
)  # fmt: skip
def test_bad_scopes_name_the_field(tmp_path: Path, change, message: str) -> None:
    with pytest.raises(ParamsError, match=message.replace(".", r"\.")):
        load_params(_params(tmp_path, change))


def test_rescoring_one_run_records_and_clears_its_version(tmp_path: Path) -> None:
    path = _params(tmp_path, lambda p: None)
    write_structure_version(path, "haiku-v1", 6)
    params = load_params(path)
    assert params.structure_version("haiku-v1") == 6
    assert params.structure_version("sim-follower-v1") == 7
    write_structure_version(path, "haiku-v1", 7)
    assert "structure_runs" not in yaml.safe_load(path.read_text())["evaluators"]
