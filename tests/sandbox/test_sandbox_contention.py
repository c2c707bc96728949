"""Host load never turns a correct answer incorrect.

A reference implementation that needs 60% of its deadline (on an idle host: 1.5 s of CPU, 3 s
at half a CPU out of 5 s) runs four at a time, as the correctness stage runs them, while CPU
hogs (three per core, in containers, so they compete with the sandbox containers under the same
cgroup parent whatever the host's cgroup layout) oversubscribe the machine three times over.
Each case then takes longer than its deadline in wall-clock time (asserted, so the test cannot
pass on an idle machine by luck), and every case must still pass: the deadline counts CPU time
and time not spent waiting for a CPU. On a host shared with other work the test only gets
slower (the wall-clock ceiling is 120 deadlines).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Iterator

import docker
import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, live_containers

from assay.sandbox import SandboxRequest
from assay.sandbox.parallel import evaluate_many
from assay.sandbox.policy import CONTAINER_NAME_PREFIX, PROFILES, cpu_budget_seconds

DEADLINE = PROFILES["standard"].case_deadline_seconds
SLOW_REFERENCE = f"""\
import time


def implement(value):
    while time.process_time() < {0.6 * cpu_budget_seconds(DEADLINE)!r}:
        pass
    return double(value) + 1
"""
OVERSUBSCRIPTION = 3
WORKERS = 4
CASES = (1,)
HOG_PREFIX = "assay-test-hog-"


@pytest.fixture
def oversubscribed(docker_api: docker.APIClient, sandbox_image: str) -> Iterator[list[str]]:
    """``OVERSUBSCRIPTION × cores`` busy containers beside the sandbox containers (same cgroup
    parent, so they compete with the sandbox for CPU on equal terms); removed afterwards."""
    names = []
    try:
        for _ in range(OVERSUBSCRIPTION * (os.cpu_count() or 1)):
            name = f"{HOG_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
            docker_api.create_container(
                sandbox_image,
                command=["/usr/bin/python3", "-c", "while True: pass"],
                name=name,
                network_disabled=True,
                labels={"assay.test": "contention-hog"},
                host_config=docker_api.create_host_config(network_mode="none", auto_remove=True),
            )
            names.append(name)
            docker_api.start(name)
        time.sleep(1.0)
        yield names
    finally:
        for name in names:
            with contextlib.suppress(docker.errors.NotFound):
                docker_api.remove_container(name, force=True)


@pytest.mark.docker
def test_a_slow_correct_reference_stays_correct_on_an_oversubscribed_host(
    oversubscribed: list[str], sandbox_image: str, docker_api: docker.APIClient
) -> None:
    request = SandboxRequest(
        files=CORPUS_FILES,
        target=CORPUS_TARGET,
        candidate=SLOW_REFERENCE,
        cases=CASES,
        expected=tuple(2 * value + 1 for value in CASES),
        image=sandbox_image,
    )
    started = time.monotonic()
    results = evaluate_many([request] * WORKERS, workers=WORKERS)
    elapsed = time.monotonic() - started

    assert [result.status for result in results] == ["correct"] * WORKERS, results
    # The load was real: a plain wall-clock deadline would have timed these cases out.
    assert elapsed > len(CASES) * DEADLINE, f"host not oversubscribed ({elapsed:.1f} s)"
    assert live_containers(docker_api, f"{CONTAINER_NAME_PREFIX}{os.getpid()}-") == []
