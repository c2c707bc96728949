"""One error root, translated once at the boundary: ``assay: <message>`` on stderr, exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assay.commands import UsageError
from assay.config.params import ParamsError
from assay.core import errors
from assay.core.errors import AssayError, InputError, boundary
from assay.fixtures import FixtureError
from assay.paid.authorize import AuthorizationError
from assay.paid.ledger import LedgerBindingError
from assay.providers.factory import ProviderConfigError
from assay.sandbox.image import ImageBuildError
from assay.science.change import ChangeError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "error",
    [
        ParamsError,
        FixtureError,
        ProviderConfigError,
        UsageError,
        AuthorizationError,
        LedgerBindingError,
        errors.SelfTestFailed,
        ImageBuildError,
        ChangeError,
        errors.MissingEvidence,
    ],
)
def test_every_error_has_the_one_root(error: type[Exception]) -> None:
    assert issubclass(error, AssayError)


def test_input_errors_stay_value_errors() -> None:
    assert issubclass(InputError, ValueError) and issubclass(ParamsError, InputError)


def test_boundary_prints_one_line_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info, boundary():
        raise errors.MissingEvidence("data/plan/r1/plan.json is missing")
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == "assay: data/plan/r1/plan.json is missing\n"


def test_boundary_lets_bugs_through() -> None:
    with pytest.raises(KeyError), boundary():
        raise KeyError("a bug keeps its traceback")


@pytest.mark.process
def test_a_stage_with_missing_input_says_one_line(tmp_path: Path) -> None:
    """Run as DVC runs it: the stage script, in a folder with params.yaml but no inputs."""
    (tmp_path / "params.yaml").write_bytes((ROOT / "params.yaml").read_bytes())
    result = subprocess.run(
        [sys.executable, str(ROOT / "stages" / "extract.py"), "r1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == (
        "assay: data/plan/r1/plan.json is missing: run `uv run dvc repro` first\n"
    )
