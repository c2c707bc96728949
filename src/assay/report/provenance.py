"""Where a report page came from: the assay version, the git commit of the repository it was
built in with that commit's date, and the tracked files that differed from it.

The date is the commit's, not the clock's, so the same commit and evidence give the same page
byte for byte. DVC rewrites lock files and the report stage its own tracked outputs while the
pipeline runs, so those are not counted as changes. Without git (an unpacked copy), the commit
is ``None`` and the page says so.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import assay
from assay.core.records import Frozen

WRITTEN_BY_THE_PIPELINE = ("dvc.lock", "reports/")
"""Tracked paths DVC or the report stage rewrites during ``dvc repro`` (suffix or prefix)."""


class Provenance(Frozen):
    assay_version: str
    commit: str | None
    commit_date: str | None
    """ISO 8601, the committer's date."""
    changed: tuple[str, ...] = ()
    """Tracked files that differ from the commit (besides what the pipeline itself writes)."""


def _git(repository: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(repository), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def _pipeline_output(path: str) -> bool:
    return path.endswith(WRITTEN_BY_THE_PIPELINE[0]) or path.startswith(WRITTEN_BY_THE_PIPELINE[1])


def provenance(repository: Path) -> Provenance:
    """The provenance of a page built in ``repository`` now."""
    head = _git(repository, "log", "-1", "--format=%H %cI")
    if not head:
        return Provenance(assay_version=assay.__version__, commit=None, commit_date=None)
    commit, date = head.split()
    names = _git(repository, "diff", "--name-only", "-z", "HEAD") or ""
    changed = sorted(name for name in names.split("\0") if name and not _pipeline_output(name))
    return Provenance(
        assay_version=assay.__version__, commit=commit, commit_date=date, changed=tuple(changed)
    )
