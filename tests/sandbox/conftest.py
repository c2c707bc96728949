"""Docker fixtures for the sandbox tests.

Docker tests are marked ``docker``. When the environment variable ``CI`` is set they FAIL if
Docker or the image is unusable; elsewhere they skip with a loud reason.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import docker
import pytest

from assay.core.errors import SandboxImageError
from assay.sandbox.image import ensure_image
from tests.unavailable import unavailable


def docker_unusable(reason: str) -> None:
    message = f"SANDBOX DOCKER TESTS NOT RUN: {reason}"
    if not os.environ.get("CI"):
        warnings.warn(message, stacklevel=2)
    unavailable(message)


@pytest.fixture(scope="session")
def docker_api() -> docker.APIClient:
    try:
        api = docker.APIClient(**docker.utils.kwargs_from_env())
        api.ping()
    except Exception as exc:  # noqa: BLE001 - any failure means Docker is unusable here
        docker_unusable(f"the Docker daemon is unreachable ({type(exc).__name__}: {exc})")
    return api


@pytest.fixture(scope="session")
def sandbox_image(docker_api: docker.APIClient, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The standard image id, built if the daemon lacks it for the current recipe."""
    record = tmp_path_factory.mktemp("image") / "standard.json"
    try:
        return ensure_image("standard", Path(record)).image_id
    except (SandboxImageError, OSError, docker.errors.DockerException) as exc:
        docker_unusable(f"the sandbox image cannot be built ({exc})")
        raise


@pytest.fixture(scope="session")
def packages_image(sandbox_image: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The packages image id (httpx, aiosqlite, pydantic, docstring-parser, feedparser-sgmllib),
    built if missing."""
    record = tmp_path_factory.mktemp("image") / "packages.json"
    try:
        return ensure_image("packages", Path(record)).image_id
    except (SandboxImageError, OSError, docker.errors.DockerException) as exc:
        docker_unusable(f"the packages image cannot be built ({exc})")
        raise
