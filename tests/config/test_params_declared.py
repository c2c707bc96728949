"""params.yaml and declared scenarios: a scenario declared under the file's own `fixtures:` root
(relative to the current directory, as the pipeline runs) is as good as a built-in one in
`scenarios:` and in a run; a misspelt name is refused with the nearest built-in or declared
name; a declaration folder no scenario may be named after is refused (cases/params_declared.yaml).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.config.params import ParamsError, validate_params

ROOT = Path(__file__).resolve().parents[2]
CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parents[1] / "cases" / "params_declared.yaml").read_text(encoding="utf-8")
)["cases"]


def _params(case: dict[str, Any]) -> dict[str, Any]:
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["scenarios"] = case["scenarios"]
    params["runs"] = {k: v for k, v in params["runs"].items() if v["scenario"] == "v1"}
    if "set" in case:
        path, value = case["set"]
        node = params
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return params


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_declared_scenarios_in_params(case, tmp_path, monkeypatch):
    shutil.copytree(ROOT / "fixtures" / "v1", tmp_path / "fixtures" / "v1")
    for name in case["declared"]:
        folder = tmp_path / "fixtures" / name
        folder.mkdir(exist_ok=True)
        (folder / "scenario.toml").write_text('layout = "v1"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    if case.get("valid"):
        params = validate_params(_params(case))
        assert set(case["scenarios"]) == set(params.scenarios)
        return
    with pytest.raises(ParamsError) as caught:
        validate_params(_params(case))
    lines = caught.value.lines
    assert any(case["line"] in line for line in lines), lines
