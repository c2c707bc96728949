"""A Docker engine's identity: what must agree between the reference engine and a worker's,
and between the engine the plan's self-test ran on and the one a run is evaluated on.

Two engines run a container the same way when their version, API version, OS/architecture and
default seccomp profile agree, driven by the same client (the Docker SDK and the API version it
speaks); a worker whose engine differs from the one the plan's self-test ran on is refused, and
a run whose engine differs from its plan's is not evaluated (its cells are evaluator failures,
missing evidence).
"""

from __future__ import annotations

import docker
from docker import errors as docker_errors

from assay.core.errors import ComputeError
from assay.core.records import Frozen
from assay.sandbox.engine_api import docker_client


class EngineIdentity(Frozen):
    version: str
    api_version: str
    platform: str
    seccomp: str
    """The engine's default seccomp profile (``SecurityOptions``), e.g. ``profile=builtin``."""
    client: str
    """The client: the Docker SDK's version and the API version it speaks."""

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
        client=f"docker-py {docker.__version__}, API {api.api_version}",
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
