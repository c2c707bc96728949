"""Which runs a DVC command line asks for (assay.pipeline.requested)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.pipeline.requested import EVERY_RUN, Requested, dvc_arguments, requested_by

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "dvc_command_lines.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_dvc_arguments_of_a_command_line(case: dict[str, Any]) -> None:
    assert dvc_arguments(case["argv"]) == case["arguments"]


@pytest.mark.parametrize(
    "arguments",
    [
        ["repro"],
        ["repro", "--all-pipelines"],
        ["status"],
        ["exp", "exec-run"],
        ["repro", "--bad"],
        ["exp", "run", "-S", "models.sim-follower.seed=2"],
        ["exp", "run", "--run-all"],
    ],
)
def test_commands_without_targets_or_not_a_repro_ask_for_every_run(
    arguments: list[str], tmp_path: Path
) -> None:
    """Decided from the command line alone: no repository is opened."""
    assert requested_by(arguments, tmp_path / "not-a-repository", ["a", "b"]) == EVERY_RUN


def test_every_run_is_wanted_unless_some_are_named() -> None:
    assert EVERY_RUN.wants("anything")
    some = Requested(runs=frozenset({"a"}), command="dvc repro execute@a")
    assert some.wants("a") and not some.wants("b")


def test_a_temporary_experiment_reads_its_own_workspace(tmp_path: Path) -> None:
    """`dvc exp run --temp` runs the stages in a copy under .dvc/tmp/exps: the targets are read
    there (its params.yaml may declare other runs), not in the folder the command was typed in;
    a `dvc repro` typed in a subfolder reads that subfolder."""
    from assay.pipeline.requested import targets_folder

    copy = tmp_path / ".dvc" / "tmp" / "exps" / "run" / "abc"
    copy.mkdir(parents=True)
    assert targets_folder(tmp_path, copy) == copy
    assert targets_folder(tmp_path / "pipeline", tmp_path) == tmp_path / "pipeline"
