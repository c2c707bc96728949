"""The self-test's known-wrong check is one of the task (assay.pipeline.selftest): a scenario
whose task shares the vectors, target and profile of one checked before (dose, placement and
context share layered's tasks, with other arm files) recalls it, except its first check, which
always runs, so every self-test shows the sandbox works now; with the memo off all run."""

from __future__ import annotations

import pytest

from assay.config.params import Compute
from assay.pipeline import selftest
from assay.sandbox.cells import request_for
from assay.sandbox.selftest import KNOWN_WRONG

pytestmark = pytest.mark.docker


@pytest.fixture
def evaluated(monkeypatch):
    """The requests each self-test really evaluated (not recalled)."""
    seen: list[list[str]] = []
    real = selftest.evaluate_placed

    def recording(requests, compute, image, **options):
        placed = real(requests, compute, image, **options)
        seen.append([p.worker for p in placed if p.worker != "memo"])
        return placed

    monkeypatch.setattr(selftest, "evaluate_placed", recording)
    return seen


def _known_wrong(v1, image, arm):
    return [request_for(subject, arm, KNOWN_WRONG, image) for subject in v1.subjects[:3]]


def test_a_task_checked_before_is_recalled_but_the_first_check_runs(
    v1, sandbox_image, tmp_path, monkeypatch, evaluated
):
    monkeypatch.delenv("ASSAY_MEMO", raising=False)
    monkeypatch.setenv("ASSAY_MEMO_DIR", str(tmp_path / "memo"))
    first = selftest.evaluate_selftest(
        _known_wrong(v1, sandbox_image, "clean"), Compute(), sandbox_image, "standard", "a"
    )
    assert [len(run) for run in evaluated] == [3, 0]
    assert {r.status for r in first} == {"incorrect"}
    evaluated.clear()
    # the same tasks on other arm files: only the first check runs again
    again = selftest.evaluate_selftest(
        _known_wrong(v1, sandbox_image, "inconsistent"), Compute(), sandbox_image, "standard", "b"
    )
    assert [len(run) for run in evaluated] == [1, 0]
    assert again == first


def test_with_the_memo_off_every_check_runs(v1, sandbox_image, monkeypatch, evaluated):
    monkeypatch.setenv("ASSAY_MEMO", "off")
    for arm in ("clean", "inconsistent"):
        selftest.evaluate_selftest(
            _known_wrong(v1, sandbox_image, arm), Compute(), sandbox_image, "standard", arm
        )
    assert [len(run) for run in evaluated] == [3, 0, 3, 0]
