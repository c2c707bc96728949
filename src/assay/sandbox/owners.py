"""Who owns a sandbox container, and the sweeps that remove containers nobody owns any more.

Every container carries ``assay.owner=<host>/<pid>/<process start time>``: the process that
created it, identified so that a reused pid is not mistaken for the owner. A container that ran
when its owner was killed outright ends by itself (its lifeline, stdin, closes; the daemon
auto-removes it), but one the owner had created and not yet started stays on the engine for
ever. Two sweeps remove such leftovers:

- :func:`remove_orphans`: every container on the engine whose owner was a process of this host
  that no longer exists; run before a batch of cells and by every Dask worker as it starts
  (so a nanny restarting a killed worker also clears what the dead one left);
- :func:`remove_stage`: every container of one Dask stage (label ``assay.stage``), run on every
  worker when that stage ends, fails or is cancelled: the stage no longer wants any of them.

A container owned by another host (an engine shared across hosts) is never judged here.
"""

from __future__ import annotations

import functools
import os
import socket

import docker
import psutil
from docker import errors as docker_errors

from assay.sandbox.engine_api import docker_client, remove_container

SANDBOX_LABEL = "assay.sandbox"
OWNER_LABEL = "assay.owner"
STAGE_LABEL = "assay.stage"


@functools.cache
def _started(pid: int) -> str | None:
    """The start time of process ``pid`` as recorded in labels, or ``None`` if it is gone."""
    try:
        return f"{psutil.Process(pid).create_time():.2f}"
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


def owner() -> str:
    """This process as a container's owner: ``<host>/<pid>/<start time>``."""
    pid = os.getpid()
    return f"{socket.gethostname()}/{pid}/{_started(pid)}"


def labels(stage: str | None = None) -> dict[str, str]:
    """The labels of a container this process creates (for ``stage``, if it is part of one)."""
    marks = {SANDBOX_LABEL: "1", OWNER_LABEL: owner()}
    if stage is not None:
        marks[STAGE_LABEL] = stage
    return marks


def owner_gone(label: str) -> bool:
    """True only for a process of this host that no longer exists (a reused pid with another
    start time counts as gone)."""
    host, _, rest = label.partition("/")
    pid, _, started = rest.partition("/")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        current = f"{psutil.Process(int(pid)).create_time():.2f}"
    except psutil.NoSuchProcess:
        return True
    except (psutil.AccessDenied, psutil.ZombieProcess):
        return False
    return current != started


def _remove(api: docker.APIClient, containers: list[dict[str, object]]) -> int:
    for container in containers:
        remove_container(api, str(container["Id"]))
    return len(containers)


def remove_orphans(api: docker.APIClient) -> int:
    """Force-remove every sandbox container whose owner process on this host is gone."""
    listed = api.containers(all=True, filters={"label": [f"{SANDBOX_LABEL}=1", OWNER_LABEL]})
    return _remove(api, [c for c in listed if owner_gone(c["Labels"].get(OWNER_LABEL, ""))])


def remove_stage(api: docker.APIClient, stage: str) -> int:
    """Force-remove every sandbox container of ``stage`` on this engine."""
    return _remove(api, api.containers(all=True, filters={"label": f"{STAGE_LABEL}={stage}"}))


def sweep_orphans() -> int:
    """:func:`remove_orphans` on this process's engine (an engine that cannot be reached is
    left as it is: nothing can be removed there)."""
    try:
        api = docker_client()
        try:
            return remove_orphans(api)
        finally:
            api.close()
    except (docker_errors.DockerException, OSError):
        return 0
