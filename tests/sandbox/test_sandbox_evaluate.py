"""evaluate / evaluate_many outside the hostile corpus: missing evidence, parallel order."""

from __future__ import annotations

import datetime as dt
import os
import time

import docker
import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, RIGHT, WRONG, live_containers

from assay.sandbox import SandboxRequest, evaluate, evaluate_many
from assay.sandbox.policy import CONTAINER_NAME_PREFIX, PROFILES


def request(candidate: str, image: str, **changes: object) -> SandboxRequest:
    fields: dict[str, object] = {
        "files": CORPUS_FILES,
        "target": CORPUS_TARGET,
        "candidate": candidate,
        "cases": (1, 2),
        "expected": (3, 5),
        "image": image,
    }
    fields.update(changes)
    return SandboxRequest.model_validate(fields)


@pytest.mark.docker
def test_missing_image_is_evaluator_failure_before_any_container(
    docker_api: docker.APIClient,
) -> None:
    ours = f"{CONTAINER_NAME_PREFIX}{os.getpid()}-"  # the engine is shared: others' come and go
    before = live_containers(docker_api, ours)
    result = evaluate(request(RIGHT, "sha256:" + "0" * 64))
    assert (result.status, result.reason, result.cases) == (
        "evaluator-failure",
        "image-missing",
        (),
    )
    assert result.is_missing
    assert live_containers(docker_api, ours) == before == []


def test_unpinned_image_is_evaluator_failure() -> None:
    result = evaluate(request(RIGHT, "assay-sandbox:latest"))
    assert (result.status, result.reason) == ("evaluator-failure", "image-not-pinned")


def test_unreachable_daemon_is_evaluator_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    result = evaluate(request(RIGHT, "sha256:" + "1" * 64))
    assert (result.status, result.reason) == ("evaluator-failure", "daemon-unreachable")


@pytest.mark.parametrize(
    "changes",
    [
        {"expected": (float("nan"), 5)},
        {"cases": (dt.date(2024, 1, 1), 2)},
        {"expected": ("x" * 100_000, 5)},
    ],
)
def test_values_that_cannot_cross_the_protocol_are_missing_evidence(
    changes: dict[str, object],
) -> None:
    result = evaluate(request(RIGHT, "sha256:" + "1" * 64, **changes))
    assert result.status == "evaluator-failure"
    assert result.reason in {"invalid-request", "expected-too-large"}


def test_mismatched_cases_are_an_invalid_request() -> None:
    result = evaluate(request(RIGHT, "sha256:" + "1" * 64, expected=(3,)))
    assert (result.status, result.reason) == ("evaluator-failure", "invalid-request")


@pytest.mark.docker
def test_large_profile_runs(sandbox_image: str) -> None:
    result = evaluate(request(RIGHT, sandbox_image, profile="large"))
    assert result.status == "correct"


@pytest.mark.docker
def test_evaluate_many_keeps_request_order(sandbox_image: str) -> None:
    requests = [request(RIGHT if i % 2 else WRONG, sandbox_image) for i in range(6)]
    results = evaluate_many(requests, workers=2)
    assert [r.status for r in results] == ["incorrect", "correct"] * 3
    assert results[0].reason == "wrong-value"


def test_evaluate_many_rejects_zero_workers() -> None:
    with pytest.raises(ValueError):
        evaluate_many([], workers=0)


PACKAGES_REPO = {
    "app/__init__.py": "",
    "app/models.py": (
        "import aiosqlite\nimport docstring_parser\nimport feedparser_sgmllib\nimport httpx\n"
        "from pydantic import BaseModel\n\n\n"
        "class Item(BaseModel):\n    name: str\n    price: int\n"
    ),
}


@pytest.mark.docker
def test_packages_image_imports_the_codebase_dependencies(packages_image: str) -> None:
    items = ({"name": "a", "price": 1}, {"name": "b", "price": 2}, {"name": "c", "price": 3})
    result = evaluate(
        SandboxRequest(
            files=PACKAGES_REPO,
            target="app/models.py",
            candidate="def implement(value):\n    return Item(**value).model_dump()\n",
            cases=items,
            expected=items,
            profile="large",
            image=packages_image,
        )
    )
    assert result.status == "correct", result


@pytest.mark.docker
def test_a_task_with_many_vectors_is_judged_on_all_of_them(sandbox_image: str) -> None:
    """Every case's pipes are closed in the supervisor: 100 cases stay far below the container's
    64 open files (a leak of three per case once made a right answer with 20 vectors fail)."""
    inputs = tuple(range(100))
    result = evaluate(
        request(RIGHT, sandbox_image, cases=inputs, expected=tuple(2 * i + 1 for i in inputs))
    )
    assert (result.status, result.reason, len(result.cases)) == ("correct", "all-cases-passed", 100)


LOOPS_ON_TWO = (
    "def implement(value):\n    while value == 2:\n        pass\n    return double(value) + 1\n"
)


@pytest.mark.docker
def test_a_case_that_times_out_ends_the_candidate(
    sandbox_image: str, docker_api: docker.APIClient
) -> None:
    """A looping candidate costs one deadline, not one per case: its remaining cases are
    recorded as not run, and the cases before the timeout keep their outcomes."""
    deadline = PROFILES["standard"].case_deadline_seconds
    started = time.monotonic()
    result = evaluate(
        request(LOOPS_ON_TWO, sandbox_image, cases=(1, 2, 2, 2), expected=(3, 5, 5, 5))
    )
    elapsed = time.monotonic() - started
    assert (result.status, result.reason) == ("incorrect", "timeout")
    assert [c.outcome for c in result.cases] == ["pass", "timeout", "not-run", "not-run"]
    assert elapsed < 2 * deadline
    assert live_containers(docker_api, f"{CONTAINER_NAME_PREFIX}{os.getpid()}-") == []
