"""Containers whose owner process is gone are swept; a living owner's are not (a reused pid with
another start time counts as gone)."""

from __future__ import annotations

import socket
import subprocess
import uuid

import docker
import psutil
import pytest
from sandbox_testkit import live_containers

from assay.sandbox import owners

PREFIX = "assay-sandbox-owners-test-"


def _owned_by(api: docker.APIClient, image: str, pid: int, started: str) -> str:
    name = f"{PREFIX}{uuid.uuid4().hex[:8]}"
    labels = {
        owners.SANDBOX_LABEL: "1",
        owners.OWNER_LABEL: f"{socket.gethostname()}/{pid}/{started}",
    }
    api.create_container(image, name=name, labels=labels, network_disabled=True)  # never started
    return name


@pytest.mark.docker
def test_orphans_are_swept_and_living_owners_containers_are_kept(
    sandbox_image: str, docker_api: docker.APIClient
) -> None:
    owner = subprocess.Popen(["sleep", "60"])
    started = f"{psutil.Process(owner.pid).create_time():.2f}"
    try:
        alive = _owned_by(docker_api, sandbox_image, owner.pid, started)
        reused = _owned_by(docker_api, sandbox_image, owner.pid, "1.00")  # same pid, another start
        assert owners.sweep_orphans() >= 1
        assert live_containers(docker_api, PREFIX) == [alive], reused
        owner.kill()
        owner.wait()
        assert owners.sweep_orphans() >= 1
        assert live_containers(docker_api, PREFIX) == []
    finally:
        owner.kill()
        for name in live_containers(docker_api, PREFIX):
            docker_api.remove_container(name, force=True)


def test_an_owner_on_another_host_is_never_judged_here() -> None:
    assert not owners.owner_gone(f"{socket.gethostname()}-elsewhere/1/1.00")
    assert owners.owner_gone(f"{socket.gethostname()}/{2**22 + 1}/1.00")  # above any pid_max
