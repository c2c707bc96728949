"""`assay run add` and `assay authorize` edit params.yaml without losing its comments; every
refused `run add` (the case table) is one line, a non-zero exit and an untouched file."""

import difflib
import shutil
from pathlib import Path

import pytest
import yaml

from assay.cli import main
from assay.config.params import ParamsError, load_params
from assay.config.params_edit import add_run, write_authorization
from tests.params_cases import RUN_ADD_CASES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def params_file(tmp_path):
    path = tmp_path / "params.yaml"
    shutil.copy(ROOT / "params.yaml", path)
    return path


def test_add_run_declares_the_scenario_and_its_default_schedule(params_file):
    add_run(
        params_file,
        "sim-context",
        model="sim-follower",
        scenario="context",
        repeats=2,
        schedule=None,
    )
    params = load_params(params_file)
    assert params.runs["sim-context"].schedule == "subject-rotated-v1"
    assert "context" in params.scenarios
    assert "# The write-ahead ledger" in params_file.read_text(), "comments were lost"


def test_add_run_refuses_duplicates_and_unknown_models(params_file):
    with pytest.raises(ParamsError, match="already declared"):
        add_run(
            params_file,
            "sim-follower-v1",
            model="sim-follower",
            scenario="v1",
            repeats=2,
            schedule=None,
        )
    before = params_file.read_text()
    with pytest.raises(ParamsError, match="unknown model profile"):
        add_run(params_file, "new", model="nope", scenario="v1", repeats=2, schedule=None)
    assert params_file.read_text() == before, "a refused edit changed the file"


def test_write_authorization_writes_the_hash_twice_and_opts_in(params_file):
    write_authorization(params_file, "haiku-v1", "c" * 64)
    run = yaml.safe_load(params_file.read_text())["runs"]["haiku-v1"]
    assert (run["authorization"], run["plan_ref"], run["allow_paid"]) == ("c" * 64, "c" * 64, True)


def _without_context(params_file):
    """The default params.yaml with the context scenario and its runs taken out by hand."""
    text = params_file.read_text()
    text = text.replace("  - chain\n  - context\n", "  - chain\n")
    for run in ("sim-follower-context", "haiku-context"):
        start = text.index(f"  {run}:\n")
        end = text.find("\n  ", start + 1)
        while end != -1 and text[end + 3] == " ":
            end = text.find("\n  ", end + 1)
        text = text[:start] + (text[end + 1 :] if end != -1 else "")
    params_file.write_text(text)
    assert "context" not in load_params(params_file).scenarios


def test_run_add_only_inserts_lines(params_file, capsys):
    """Comments, indentation, nulls and flow style stay exactly where they were."""
    _without_context(params_file)
    before = params_file.read_text().splitlines()
    code = main(
        ["run", "add", "sim-context", "--model", "sim-reuser", "--scenario", "context",
         "--params", str(params_file)]
    )  # fmt: skip
    assert code == 0 and "added run sim-context" in capsys.readouterr().out
    after = params_file.read_text().splitlines()
    changes = [
        line for line in difflib.ndiff(before, after) if line[:1] in "+-" and line[:2] != "? "
    ]
    assert all(line.startswith("+ ") for line in changes), changes
    assert "+   - context" in changes
    assert after.index("  - context") < after.index("# The evaluator versions the evaluator "
                                                    "stages score with. Changing one re-runs only that")  # fmt: skip
    assert load_params(params_file).runs["sim-context"].model == "sim-reuser"
    assert sorted(p.name for p in params_file.parent.iterdir()) == ["params.yaml"]


@pytest.mark.parametrize("case", RUN_ADD_CASES, ids=lambda case: case["id"])
def test_each_refused_run_add_is_one_line_and_changes_nothing(case, params_file, capsys):
    if "text" in case:
        params_file.write_text(case["text"])
    before = params_file.read_bytes()
    with pytest.raises(SystemExit) as exited:
        main(["run", "add", *case["args"], "--params", str(params_file)])
    assert exited.value.code != 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("assay")]
    assert len(lines) == 1, lines
    assert case["line"] in lines[0], lines[0]
    assert ".tmp" not in lines[0] and "<root>" not in lines[0]
    assert params_file.read_bytes() == before
    assert sorted(p.name for p in params_file.parent.iterdir()) == ["params.yaml"]


def test_run_add_qualifies_declares_a_qualification_run(params_file, capsys):
    code = main(
        ["run", "add", "haiku-v1-qualify", "--like", "haiku-v1", "--qualifies",
         "--params", str(params_file)]
    )  # fmt: skip
    assert code == 0 and "added run haiku-v1-qualify" in capsys.readouterr().out
    run = load_params(params_file).runs["haiku-v1-qualify"]
    assert (run.model, run.scenario, run.qualifies, run.sample) == (
        "haiku-3-bedrock", "v1", True, None
    )  # fmt: skip
    assert not load_params(params_file).runs["haiku-v1"].qualifies


def test_run_add_refuses_to_qualify_a_free_route(params_file, capsys):
    before = params_file.read_text()
    with pytest.raises(SystemExit) as exited:
        main(["run", "add", "sim-qualify", "--model", "sim-follower", "--scenario", "v1",
              "--qualifies", "--params", str(params_file)])  # fmt: skip
    assert exited.value.code == 2
    assert "a free route needs no qualification" in capsys.readouterr().err
    assert params_file.read_text() == before
