"""params.yaml validation: every malformed file in the case table gives one clear line naming the
key through `assay check` (the check the `params` stage runs), with a non-zero exit."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli import main
from assay.config.params import ParamsError, load_params
from tests.params_cases import PARAMS_CASES, malformed

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = (ROOT / "params.yaml").read_text(encoding="utf-8")


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    with pytest.raises(SystemExit) as exited:
        main(["check", "--params", str(path)])
    return int(exited.value.code or 0), capsys.readouterr().err.splitlines()


def test_the_default_params_are_valid(capsys):
    assert main(["check", "--params", str(ROOT / "params.yaml")]) == 0
    assert "valid" in capsys.readouterr().out


def uncommented_templates(text: str) -> tuple[str, list[str]]:
    """params.yaml with every commented model profile under ``models:`` uncommented, and their
    names: a ``  # name:`` line starts one, its ``  #   key: value`` lines follow."""
    lines, names, inside = [], [], False
    for line in text.splitlines():
        header = re.fullmatch(r"  # ([a-z0-9-]+):(\s+#.*)?", line)
        if header:
            names.append(header.group(1))
            inside = True
            lines.append(f"  {header.group(1)}:")
        elif inside and line.startswith("  #   "):
            lines.append("  " + line[4:])
        else:
            inside = False
            lines.append(line)
    return "\n".join(lines) + "\n", names


def test_the_commented_model_templates_pass_the_check_as_shipped(tmp_path, capsys):
    text, names = uncommented_templates((ROOT / "params.yaml").read_text(encoding="utf-8"))
    assert len(names) >= 6, names
    (tmp_path / "params.yaml").write_text(text, encoding="utf-8")
    params = load_params(tmp_path / "params.yaml")
    assert set(names) <= set(params.models)


def test_the_case_table_is_large_enough():
    assert len(PARAMS_CASES) >= 25
    assert len({case["id"] for case in PARAMS_CASES}) == len(PARAMS_CASES)


@pytest.mark.parametrize("case", PARAMS_CASES, ids=lambda case: case["id"])
def test_each_malformed_file_gives_one_line_naming_the_key(case, tmp_path, capsys):
    path = tmp_path / "params.yaml"
    path.write_text(malformed(DEFAULT, case), encoding="utf-8")
    before = path.read_bytes()
    code, lines = _check(path, capsys)
    assert code != 0
    assert len(lines) == 1, lines
    (line,) = lines
    assert line.startswith(f"assay: error: {path}")
    assert case["line"] in line, line
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]


def test_every_problem_is_reported_at_once(tmp_path):
    path = tmp_path / "params.yaml"
    text = DEFAULT
    for case_id in (
        "typo-key-repeat",
        "alpha-out-of-range",
        "typo-model-field",
        "unknown-schedule",
    ):
        (case,) = [c for c in PARAMS_CASES if c["id"] == case_id]
        text = malformed(text, case)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ParamsError) as raised:
        load_params(path)
    assert len(raised.value.lines) == 4, raised.value.lines
    assert all(line.startswith(f"{path}: ") for line in raised.value.lines)


def test_a_missing_file_is_one_line(tmp_path, capsys):
    code, lines = _check(tmp_path / "nowhere.yaml", capsys)
    assert code != 0 and lines == [f"assay: error: {tmp_path / 'nowhere.yaml'}: not found"]


@pytest.mark.process
def test_check_prints_no_traceback_as_a_process(tmp_path):
    """What a user sees in a shell: the line on stderr, nothing else."""
    path = tmp_path / "params.yaml"
    (case,) = [c for c in PARAMS_CASES if c["id"] == "typo-key-repeat"]
    path.write_text(malformed(DEFAULT, case), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "assay.cli", "check", "--params", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"assay: error: {path}: runs.sim-follower-v1.repeat: unknown key (did you mean 'repeats'?)"
    ]


def test_the_names_params_checks_are_the_registries() -> None:
    """params.yaml is checked against vocabularies (no builder imported); they must name exactly
    the registered scenario builders and structural evaluator versions."""
    from typing import get_args

    from assay.core.records import ScenarioName, StructureVersion
    from assay.fixtures.scenarios import SCENARIOS
    from assay.structure.versions import EVALUATOR_VERSIONS

    assert set(get_args(ScenarioName)) == set(SCENARIOS)
    assert set(get_args(StructureVersion)) == set(EVALUATOR_VERSIONS)
