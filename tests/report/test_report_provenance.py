"""What the page says it was built from: the assay version, the commit and its date, and the
tracked files that differ from it (not the ones the pipeline itself rewrites)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import assay
from assay.report.provenance import provenance

GIT = ["git", "-c", "user.email=t@assay.invalid", "-c", "user.name=t"]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [*GIT, "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.process
def test_commit_date_and_changed_files(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "reports").mkdir(parents=True)
    for name in ("params.yaml", "dvc.lock", "reports/metrics.json"):
        (repo / name).write_text("a\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first", "--date=2026-01-02T03:04:05+00:00")
    built = provenance(repo)
    assert built.assay_version == assay.__version__
    assert built.commit == _git(repo, "rev-parse", "HEAD")
    assert built.commit_date == _git(repo, "log", "-1", "--format=%cI")
    assert built.changed == ()
    for name in ("params.yaml", "dvc.lock", "reports/metrics.json"):
        (repo / name).write_text("b\n")
    assert provenance(repo).changed == ("params.yaml",)  # DVC and the report stage rewrite the rest
    assert provenance(repo) == provenance(repo), "the same state gives the same provenance"


@pytest.mark.process
def test_outside_git_there_is_no_commit(tmp_path: Path) -> None:
    built = provenance(tmp_path)
    assert (built.commit, built.commit_date, built.changed) == (None, None, ())
