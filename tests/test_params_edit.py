"""`assay run add` and `assay authorize` edit params.yaml without losing its comments."""

import shutil
from pathlib import Path

import pytest
import yaml

from assay.params import ParamsError, load_params
from assay.params_edit import add_run, write_authorization

ROOT = Path(__file__).resolve().parents[1]


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
    with pytest.raises(ValueError, match="already declared"):
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


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda p: p["runs"]["sim-follower-v1"].update(repeats=0), "runs.sim-follower-v1.repeats"),
        (
            lambda p: p["runs"]["sim-follower-v1"].update(scenario="nowhere"),
            "is not listed under 'scenarios'",
        ),
        (lambda p: p["models"]["sim-follower"].update(follow_rate=2), "models.sim-follower"),
    ],
)
def test_invalid_params_name_the_field(params_file, mutate, message):
    params = yaml.safe_load(params_file.read_text())
    mutate(params)
    params_file.write_text(yaml.safe_dump(params))
    with pytest.raises(ParamsError, match=message.replace(".", r"\.")):
        load_params(params_file)
