"""The committed dvc.lock matches the code: on a fresh clone, `dvc status` says only what the
first `dvc repro` will create (outputs not there yet; the image stage, always changed by design),
never a changed dependency or parameter.

This fails whenever a commit changes a stage's code, dependencies or parameters without
refreshing dvc.lock (`dvc repro` and commit the lock)."""

from __future__ import annotations

import json

from tests.conftest import make_repo

FIRST_RUN_CREATES = {"deleted", "not in cache"}


def test_fresh_clone_dvc_status_lists_only_what_the_first_run_creates(tmp_path):
    clone = make_repo(tmp_path / "clone", with_lock=True)
    status = json.loads(clone.dvc("status", "--json").stdout or "{}")
    unexpected = {}
    for stage, changes in status.items():
        for change in changes:
            if change == "always changed":
                continue
            if (
                isinstance(change, dict)
                and set(change) == {"changed outs"}
                and set(change["changed outs"].values()) <= FIRST_RUN_CREATES
            ):
                continue
            unexpected.setdefault(stage, []).append(change)
    assert not unexpected, (
        "dvc.lock is stale for these stages (run `dvc repro` and commit dvc.lock):\n"
        + json.dumps(unexpected, indent=1)
    )
    assert clone.run("git", "status", "--porcelain").stdout == ""
