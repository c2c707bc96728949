"""Several candidates in one container (evaluate_batch, and evaluate_many's batches): each ends
exactly as it would alone, whatever the candidates before it did; a candidate that breaks the
stream is charged alone and the rest run in a fresh container; nothing is left behind."""

from __future__ import annotations

import os

import docker
import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, RIGHT, WRONG, live_containers
from test_sandbox_hostile import TABLE, assert_ends_as_its_row, request_for_row

from assay.sandbox import SandboxRequest
from assay.sandbox.parallel import MAX_BATCH, batches, evaluate_many
from assay.sandbox.policy import CONTAINER_NAME_PREFIX
from assay.sandbox.runner import evaluate_batch


def _request(candidate: str, image: str = "sha256:" + "0" * 64, **fields: object) -> SandboxRequest:
    return SandboxRequest(
        files=CORPUS_FILES, target=CORPUS_TARGET, candidate=candidate,
        cases=(1, 2), expected=(3, 5), image=image, **fields,
    )  # fmt: skip


def test_batches_keep_order_split_by_image_and_profile_and_feed_every_worker() -> None:
    other = "sha256:" + "1" * 64
    requests = [
        _request(RIGHT),
        _request(RIGHT, other),
        _request(RIGHT),
        _request(RIGHT, profile="large"),
    ]
    assert batches(requests, workers=1) == [[0, 2], [1], [3]]
    many = [_request(RIGHT)] * 40
    planned = batches(many, workers=4)
    assert [len(b) for b in planned] == [10, 10, 10, 10]
    assert [p for b in planned for p in b] == list(range(40))
    assert max(len(b) for b in batches([_request(RIGHT)] * 500, workers=4)) == MAX_BATCH
    assert batches([], workers=4) == []


@pytest.mark.docker
def test_every_hostile_candidate_ends_as_alone_and_the_next_candidate_is_untouched(
    sandbox_image: str, docker_api: docker.APIClient
) -> None:
    """The whole hostile corpus in one call, each entry followed by the right answer: daemons,
    floods, forged records, killed parents, poisoned /tmp and exhausted descriptors change
    nothing for the candidate after them."""
    requests = []
    for row in TABLE:
        requests += [request_for_row(row, sandbox_image), _request(RIGHT, sandbox_image)]
    results = evaluate_batch(requests)
    assert len(results) == len(requests)
    for row, hostile, following in zip(TABLE, results[::2], results[1::2], strict=True):
        assert_ends_as_its_row(row, hostile)
        assert (following.status, following.reason) == ("correct", "all-cases-passed"), (
            f"after {row['file']}: {following}"
        )
    assert live_containers(docker_api, f"{CONTAINER_NAME_PREFIX}{os.getpid()}-") == []


@pytest.mark.docker
def test_evaluate_many_batches_give_the_results_of_single_evaluations(
    sandbox_image: str, docker_api: docker.APIClient
) -> None:
    requests = [_request(RIGHT if i % 3 else WRONG, sandbox_image) for i in range(30)]
    batched = evaluate_many(requests, workers=2)
    assert [(r.status, r.reason) for r in batched] == [
        ("incorrect", "wrong-value") if i % 3 == 0 else ("correct", "all-cases-passed")
        for i in range(30)
    ]
    assert batched[0] == evaluate_batch([requests[0]])[0]
    assert live_containers(docker_api, f"{CONTAINER_NAME_PREFIX}{os.getpid()}-") == []
