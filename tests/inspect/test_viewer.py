"""``assay inspect-view DEST``: Inspect's viewer with every run's log in a new folder, never over
a folder that holds files, and one line naming what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cli import main
from assay.core.errors import MissingEvidence
from assay.evidence import inspect_logs_dir
from assay.inspect.logs import write_log
from assay.inspect.viewer import ViewerError, bundle
from tests.inspect.evidence import Call, run_evidence


@pytest.fixture
def data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    logs = data / inspect_logs_dir(Path())
    logs.mkdir(parents=True)
    write_log(run_evidence({"a/clean/r1": [Call()]}, run="one"), logs)
    write_log(run_evidence({"a/clean/r1": [Call(verdict="duplicated")]}, run="two"), logs)
    return data


def test_the_command_bundles_every_log_with_the_viewer(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "view"
    assert main(["inspect-view", str(dest), "--data", str(data)]) == 0
    assert (dest / "index.html").is_file()
    logs = sorted(p.name for p in (dest / "logs").iterdir())
    assert logs == sorted([*(p.name for p in (data / "inspect_logs").iterdir()), "listing.json"])
    out = capsys.readouterr().out
    assert f"{dest}: Inspect's viewer with 2 run logs" in out
    assert "python -m http.server --bind 127.0.0.1" in out


def test_an_empty_folder_is_used(data: Path, tmp_path: Path) -> None:
    dest = tmp_path / "view"
    dest.mkdir()
    assert bundle(data / "inspect_logs", dest) == 2


def test_a_folder_that_holds_files_is_never_written_to(data: Path, tmp_path: Path) -> None:
    dest = tmp_path / "mine"
    dest.mkdir()
    (dest / "kept.txt").write_text("mine")
    with pytest.raises(ViewerError, match="exists and is not an empty folder"):
        bundle(data / "inspect_logs", dest)
    assert [p.name for p in dest.iterdir()] == ["kept.txt"]


def test_no_logs_is_one_line_saying_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(MissingEvidence, match="no Inspect logs; run `uv run dvc repro` first"):
        bundle(tmp_path / "data" / "inspect_logs", tmp_path / "view")
    assert not (tmp_path / "view").exists()
