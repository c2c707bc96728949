"""``assay adjudicate`` and ``assay compare`` over stored evidence."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.cli import main
from assay.science.adjudication import blind_id
from tests.report.evidence_kit import write_run

HEADER = "# decisions on ambiguous cells\n[]\n"


def _study(tmp_path: Path) -> tuple[Path, Path]:
    table = {f"s{i}": {"clean": ["reused", "reused"], "inconsistent": ["ambiguous", "reused"]}
             for i in range(3)}  # fmt: skip
    data = tmp_path / "data"
    write_run(data, "run-a", {7: {1: table}})
    path = tmp_path / "adjudications.yaml"
    path.write_text(HEADER)
    return data, path


def _adjudicate(data: Path, path: Path, *argv: str) -> int:
    return main(["adjudicate", *argv, "--data", str(data), "--file", str(path)])


def test_adjudicate_is_blind_until_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, path = _study(tmp_path)
    assert _adjudicate(data, path) == 0
    listed = capsys.readouterr().out
    assert "3 ambiguous cells" in listed
    ids = [blind_id("run-a", f"s{i}/inconsistent/r1", 1) for i in range(3)]
    assert [line.split(":")[0].strip() for line in listed.splitlines()[1:]] == sorted(ids)
    for hidden in ("run-a", "s0", "s1", "inconsistent", "clean", "/r1"):
        assert hidden not in listed, hidden
        assert all(hidden not in i for i in ids), hidden
    assert _adjudicate(data, path, ids[1]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"# {ids[1]}: ambiguous") and "## Candidate" in shown
    assert not [h for h in ("run-a", "s1", "inconsistent") if h in shown]

    decision = (ids[1], "--verdict", "duplicated",
                "--rationale", "the helper call is unreachable", "--by", "A. Person")  # fmt: skip
    assert _adjudicate(data, path, *decision) == 0
    assert "it was run-a s1/inconsistent/r1 step 1" in capsys.readouterr().out
    text = path.read_text()
    assert text.startswith("# decisions on ambiguous cells")
    assert yaml.safe_load(text) == [
        {"id": ids[1], "verdict": "duplicated",
         "rationale": "the helper call is unreachable", "adjudicator": "A. Person"}
    ]  # fmt: skip
    assert "inconsistent" not in text and "run-a" not in text
    assert _adjudicate(data, path) == 0
    listed = capsys.readouterr().out
    assert (f"{ids[1]}: adjudicated duplicated by A. Person: run-a s1/inconsistent/r1 step 1 "
            "(arm inconsistent)") in listed  # fmt: skip
    assert f"{ids[0]}: open (x)" in listed
    assert listed.count("inconsistent") == 2, "an open cell showed its arm"

    with pytest.raises(SystemExit) as twice:
        _adjudicate(data, path, *decision)
    assert twice.value.code == 2
    assert "already adjudicated" in capsys.readouterr().err


@pytest.mark.parametrize("cell", ["s1/clean/r1", "nope", "run-a"])
def test_adjudicate_refuses_what_is_no_ambiguous_cell_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cell: str
) -> None:
    data, path = _study(tmp_path)
    blind = blind_id("run-a", cell, 1) if "/" in cell else cell
    with pytest.raises(SystemExit) as refused:
        _adjudicate(data, path, blind, "--verdict", "reused", "--rationale", "r", "--by", "A")
    assert refused.value.code == 2 and f"no ambiguous cell {blind!r}" in capsys.readouterr().err
    assert path.read_text() == HEADER, "a refused decision changed the file"


def test_compare_refuses_unknown_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = _study(tmp_path)
    with pytest.raises(SystemExit) as refused:
        main(["compare", "run-a", "run-b", "--data", str(data)])
    assert refused.value.code == 2 and "no run 'run-b'" in capsys.readouterr().err


def test_costs_command_scopes_runs_and_leaves_simulated_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.report.evidence_kit import write_metrics, write_subjects

    table = {f"s{i}": {"clean": ["reused"], "inconsistent": ["duplicated"]} for i in range(3)}
    for run, provider in (("real", "openrouter"), ("sim", "simulated")):
        write_run(tmp_path, run, {7: {1: table}}, provider=provider)
        write_metrics(tmp_path, run, {f"s{i}/{arm}/r1": 1.0 for i in range(3)
                                      for arm in ("clean", "inconsistent")})  # fmt: skip
    write_subjects(tmp_path, "v1", [f"s{i}" for i in range(3)])
    assert main(["costs", "--data", str(tmp_path)]) == 0
    default = capsys.readouterr().out
    assert "- `real` (m, v1): 6 outputs" in default and "Not pooled: `sim` (simulated" in default
    assert main(["costs", "--data", str(tmp_path), "--run", "sim", "--include-simulated"]) == 0
    scoped = capsys.readouterr().out
    assert "- `sim` (m, v1, simulated): 6 outputs" in scoped and "SIMULATED MODEL" in scoped
