"""Sandbox results remembered across stages and runs (assay.core.memo): with recall, a request
evaluated before on this engine is not evaluated again and gives byte for byte the same row;
without it (the self-test's known-wrong implementation) it is evaluated again; missing evidence
is never remembered."""

from __future__ import annotations

import pytest

from assay.compute.placed import LOCAL
from assay.compute.sandbox import MEMO, evaluate_placed
from assay.config.params import Compute
from assay.pipeline.correctness import placed_correctness_rows
from tests.compute.compute_testkit import reference_candidates

pytestmark = pytest.mark.docker


@pytest.fixture
def memo_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_MEMO", raising=False)
    monkeypatch.setenv("ASSAY_MEMO_DIR", str(tmp_path / "memo"))
    return tmp_path / "memo"


def test_a_remembered_verdict_is_taken_only_with_recall(v1, sandbox_image, memo_dir):
    subject = v1.subjects[0]
    v1_one = v1.model_copy(update={"subjects": (subject,)})
    candidates = reference_candidates(v1_one)

    def rows(recall: bool):
        return placed_correctness_rows(
            candidates, v1_one, sandbox_image,
            lambda requests: evaluate_placed(requests, Compute(), sandbox_image, recall=recall),
        )  # fmt: skip

    first, first_placed = rows(recall=False)  # evaluated, and remembered
    assert {p.worker for p in first_placed} == {LOCAL}
    assert len(list(memo_dir.rglob("*.json"))) == len(candidates)
    again, again_placed = rows(recall=True)
    assert again == first
    assert {p.worker for p in again_placed} == {MEMO}
    fresh, fresh_placed = rows(recall=False)
    assert fresh == first and {p.worker for p in fresh_placed} == {LOCAL}


def test_an_evaluator_failure_is_never_remembered(v1, memo_dir):
    subject = v1.subjects[0]
    v1_one = v1.model_copy(update={"subjects": (subject,)})
    missing_image = "sha256:" + "0" * 64
    candidates = reference_candidates(v1_one)[:1]
    rows, _ = placed_correctness_rows(
        candidates, v1_one, missing_image,
        lambda requests: evaluate_placed(requests, Compute(), missing_image, recall=True),
    )  # fmt: skip
    assert rows[0].status == "evaluator-failure" and rows[0].reason == "image-missing"
    assert not list(memo_dir.rglob("*.json"))
