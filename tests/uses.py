"""What a test uses beyond its own process, as pytest markers: ``scripts/test --fast`` leaves out
every test marked with one of them, so a missing marker would put a DVC run or a container into
the fast tier. So a test that uses one unmarked fails, naming the marker to add. What it uses is
seen where it happens: an audit hook watches every process a test starts (``dvc``, ``dockerd``,
Playwright's browser driver) and every connection to the Docker engine's socket; the DVC API and
Dask clusters call :func:`uses` where tests start them. See docs/testing.md."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import PurePath
from typing import Any

import pytest

MARKS = {
    "dvc": "runs DVC (`dvc repro`, `dvc status`, DVC's API) in a throwaway repository",
    "docker": "needs the Docker engine (and the sandbox images), or starts one",
    "browser": "drives headless Chromium",
    "cluster": "starts a Dask cluster (scheduler and worker processes)",
    "process": "starts another program (the assay CLI, git, mypy, Node.js, ...) as a process",
}
"""Marker → what it means (registered in tests/conftest.py)."""

ALIASES = {"slow": "dvc"}
"""Older names still accepted: ``slow`` meant a real ``dvc repro``."""

FIXTURES = {
    "repo": "dvc",
    "study": "dvc",
    "study_copy": "dvc",
    "v1_run": "dvc",
    "v1_copy": "dvc",
    "planned": "dvc",
    "paid": "dvc",
    "second_engine": "docker",
    "docker_api": "docker",
    "sandbox_image": "docker",
    "packages_image": "docker",
    "sandbox_record": "docker",
    "cluster": "cluster",
    "client": "cluster",
}
"""A test that requests one of these fixtures is marked for it at collection."""

_current: list[pytest.Item] = []
_unmarked: dict[str, str] = {}
"""Marker → what the running test did that needs it."""


def running(item: pytest.Item | None) -> None:
    """Set by tests/conftest.py around each test's setup, call and teardown."""
    _current[:] = [item] if item is not None else []
    _unmarked.clear()


def _marked(item: pytest.Item, mark: str) -> bool:
    """``process`` is implied by every other marker: each of them starts processes."""
    accepted = MARKS if mark == "process" else (mark,)
    return any(item.get_closest_marker(m) is not None for m in accepted)


def uses(mark: str, what: str = "") -> None:
    """Note that the running test uses ``mark``'s resource (nothing outside a test)."""
    if _current and not _marked(_current[0], mark):
        _unmarked.setdefault(mark, what or MARKS[mark])


def check() -> None:
    """Fail the running test if it used something it is not marked for."""
    if _current and _unmarked:
        lines = [f"{what}: mark it @pytest.mark.{mark}" for mark, what in sorted(_unmarked.items())]
        _unmarked.clear()
        pytest.fail(
            f"{_current[0].nodeid} uses what it is not marked for (docs/testing.md):\n"
            + "\n".join(lines),
            pytrace=False,
        )


def _docker_socket() -> str:
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    return host.removeprefix("unix://") if host.startswith("unix://") else "/var/run/docker.sock"


_STARTED = {
    "dvc": "dvc",
    "dockerd": "docker",
    "docker": "docker",
    "chromium": "browser",
    "dask": "cluster",
}


def _spawned(args: Any) -> str:
    command = [os.fsdecode(a) for a in args[1]] if isinstance(args[1], (list, tuple)) else []
    if not command:
        return "process"
    program = PurePath(command[0]).name
    if program in _STARTED:
        return _STARTED[program]
    if program.startswith("python") and command[1:3] == ["-m", "dvc"]:
        return "dvc"
    if "playwright" in command[0]:
        return "browser"
    return "process"


def _is_docker_socket(sock: socket.socket, address: object) -> bool:
    if sock.family != socket.AF_UNIX or not isinstance(address, str):
        return False
    # an engine listens there (a test pointing DOCKER_HOST at nothing uses no engine); a private
    # engine is seen starting (dockerd)
    return address == _docker_socket() and os.path.exists(address)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _current or event not in ("subprocess.Popen", "socket.connect"):
        return
    if event == "subprocess.Popen":
        uses(_spawned(args), f"started {os.fsdecode(args[0])}")
    elif _is_docker_socket(args[0], args[1]):
        uses("docker", f"connected to the Docker engine at {args[1]}")


def watch() -> None:
    """Install the audit hook (once per test session, from tests/conftest.py)."""
    sys.addaudithook(_audit)
