"""``assay power``: one design as JSON, the default table from params.yaml's stated
assumptions, the subjects a target needs, and one line for a bad argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from assay.cli import main
from assay.commands import power as command
from assay.science import power, stats

ROOT = Path(__file__).resolve().parents[2]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["power", *argv]) == 0
    return capsys.readouterr().out


def test_json_is_the_power_with_its_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--subjects", "12", "--complete", "0.75", "--favour", "0.8",
               "--against", "0", "--json")  # fmt: skip
    (line,) = out.splitlines()
    printed = json.loads(line)
    assert printed == power.power(12, 0.75, 0.8, 0.0).model_dump(mode="json")
    assert round(printed["power"], 3) == 0.381
    assert set(printed) >= {"power", "subjects", "complete", "favour", "against", "alpha"}


def test_the_default_table_is_params_yamls_alternatives(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`assay power` alone: 12, 24 and 36 subjects at the stated completeness and alternatives
    (the closing note's table)."""
    lines = _run(capsys, "--params", str(ROOT / "params.yaml")).splitlines()
    assert lines[0].startswith("paired-v2: alpha 0.05, at least 10 complete subjects")
    assert lines[1].split() == ["subjects", "P(>=", "10", "complete)", "strong", "(F", "0.8,",
                                "A", "0)", "moderate", "(F", "0.6,", "A", "0.1)"]  # fmt: skip
    assert [line.split() for line in lines[2:]] == [
        ["12", "0.391", "0.381", "0.140"],
        ["24", "1.000", "1.000", "0.684"],
        ["36", "1.000", "1.000", "0.891"],
    ]


def test_the_alternatives_come_from_the_params_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["power"] = {
        "completeness": 1.0,
        "alternatives": {"sure": {"favour": 1.0, "against": 0.0}},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    out = _run(capsys, "--params", str(path), "--subjects", "9", "10", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["alternative"], r["subjects"], r["power"]) for r in rows] == [
        ("sure", 9, 0.0),
        ("sure", 10, pytest.approx(1.0)),
    ]


def test_target_gives_the_smallest_and_the_steady_number(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _run(capsys, "--target", "0.8", "--complete", "1", "--favour", "0.8", "--against",
               "0.2", "--minimum", "0")  # fmt: skip
    assert "20 subjects first reach 0.8 (power 0.804)" in out
    assert "every number from 23 to 200 reaches it" in out
    out = _run(capsys, "--target", "0.8", "--complete", "1", "--favour", "0.8", "--against",
               "0.2", "--minimum", "0", "--json")  # fmt: skip
    found = json.loads(out)
    assert (found["smallest"], found["steady"], found["bound"]) == (20, 23, 200)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--favour", "0.8"], "give both --favour and --against"),
        (["--target", "0.8", "--subjects", "12"], "give --subjects or --target, not both"),
        (["--complete", "1.5", "--favour", "0.8", "--against", "0"], "complete must be"),
        (["--complete", "0.7", "--favour", "0.8", "--against", "0.3"], "favour + against"),
        (["--complete", "0.7", "--favour", "0.8", "--against", "0", "--target", "1"], "target"),
        (["--complete", "0.7", "--favour", "0.8", "--against", "0", "--subjects", "5000"],
         "subjects must be at most 1000"),
        (["--params", "/nowhere/params.yaml"], "/nowhere/params.yaml: not found"),
    ],
)  # fmt: skip
def test_bad_arguments_are_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["power", *argv])
    assert exited.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("assay: error: ") and message in line


def test_the_defaults_are_the_preregistered_ones() -> None:
    assert command.DEFAULT_ALPHA == stats.ALPHA
    assert command.DEFAULT_MINIMUM == stats.MINIMUM_SUBJECTS
    assert command.DEFAULT_BOUND == power.SEARCH_BOUND
