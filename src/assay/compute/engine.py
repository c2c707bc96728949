"""A Docker engine's identity, and the pinned sandbox image as a ``docker save`` archive.

Two engines run a container the same way when their version, API version, OS/architecture and
default seccomp profile agree; a worker whose engine differs from the one the plan's self-test
ran on is refused (its cells are evaluator failures, missing evidence).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import docker
from docker import errors as docker_errors

from assay.errors import ComputeError
from assay.records import Frozen
from assay.sandbox.runner import docker_client

ARCHIVE_CHUNK = 1 << 20


class EngineIdentity(Frozen):
    version: str
    api_version: str
    platform: str
    seccomp: str
    """The engine's default seccomp profile (``SecurityOptions``), e.g. ``profile=builtin``."""

    def differences(self, other: EngineIdentity) -> list[str]:
        """``field: ours != theirs`` for every field that differs."""
        mine, theirs = self.model_dump(), other.model_dump()
        return [f"{k}: {theirs[k]} != {mine[k]}" for k in mine if mine[k] != theirs[k]]


def identity(api: docker.APIClient) -> EngineIdentity:
    version = api.version()
    security = api.info().get("SecurityOptions") or []
    seccomp = next((o.split(",", 1)[1] for o in security if o.startswith("name=seccomp,")), "none")
    return EngineIdentity(
        version=str(version.get("Version")),
        api_version=str(version.get("ApiVersion")),
        platform=f"{version.get('Os')}/{version.get('Arch')}",
        seccomp=seccomp,
    )


def local_identity() -> EngineIdentity:
    """This machine's engine: the reference every worker's engine must equal."""
    try:
        api = docker_client()
        try:
            return identity(api)
        finally:
            api.close()
    except (docker_errors.DockerException, OSError) as exc:
        raise ComputeError(f"the local Docker engine cannot be reached: {exc}") from None


def has_image(api: docker.APIClient, image_id: str) -> bool:
    try:
        return api.inspect_image(image_id).get("Id") == image_id
    except docker_errors.NotFound:
        return False


def cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "assay" / "images"


def image_archive(image_id: str, directory: Path | None = None) -> Path:
    """``docker save`` of the pinned image, written once per image id and reused."""
    directory = directory or cache_dir()
    path = directory / f"{image_id.removeprefix('sha256:')}.tar"
    if path.exists():
        return path
    directory.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.partial")
    api = docker_client()
    try:
        with partial.open("wb") as out:
            for chunk in api.get_image(image_id, chunk_size=ARCHIVE_CHUNK):
                out.write(chunk)
    except (docker_errors.DockerException, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise ComputeError(f"cannot save the pinned image {image_id}: {exc}") from None
    finally:
        api.close()
    partial.replace(path)
    return path


def archive_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
