"""The sandbox's client of the Docker engine, and the one way it removes a container."""

from __future__ import annotations

import time

import docker
from docker import errors as docker_errors

API_TIMEOUT_SECONDS = 30
REMOVAL_WAIT_SECONDS = 15.0


def docker_client() -> docker.APIClient:
    return docker.APIClient(timeout=API_TIMEOUT_SECONDS, **docker.utils.kwargs_from_env())


def remove_container(api: docker.APIClient, name: str) -> None:
    """Force-remove ``name`` and wait until the daemon no longer knows it."""
    end = time.monotonic() + REMOVAL_WAIT_SECONDS
    while time.monotonic() < end:
        try:
            api.remove_container(name, force=True)
        except docker_errors.NotFound:
            return
        except docker_errors.APIError:
            pass  # removal already in progress (auto-remove): poll until it is gone
        try:
            api.inspect_container(name)
        except docker_errors.NotFound:
            return
        except docker_errors.APIError:
            pass
        time.sleep(0.05)
