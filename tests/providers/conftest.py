"""Fixtures: a misbehaving local server, a refused port and a port whose handshake hangs; one
paid run planned once per module (paid_run.py) and a copy of it for each test."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from paid_run import CHAT, RUN, completions, narrow_to_paid_runs, serve_free_endpoints
from provider_server import PLANTED_KEY, LocalServer

from assay.pipeline.layout import address
from tests.conftest import Repo, copy_repo, make_repo

GIT_USER = ("-c", "user.email=t@assay.invalid", "-c", "user.name=t")


def _serving() -> Iterator[LocalServer]:
    running = LocalServer()
    running.start()
    yield running
    running.stop()


@pytest.fixture
def server() -> Iterator[LocalServer]:
    yield from _serving()


@pytest.fixture(scope="module")
def paid_server() -> Iterator[LocalServer]:
    """The server of a module's paid run: the run's plan names its address."""
    yield from _serving()


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory, paid_server: LocalServer) -> Repo:
    """A repository narrowed to the paid run at ``paid_server`` (paid_run.py), planned through
    `dvc repro plan@RUN` and committed: what every paid test starts from, made once per module."""
    repo = make_repo(tmp_path_factory.mktemp("planned") / "repo")
    narrow_to_paid_runs(repo, {RUN: paid_server})
    repo.dvc("repro", address("plan", RUN))
    repo.git(*GIT_USER, "add", "-A")
    repo.git(*GIT_USER, "commit", "-qm", "a paid run, planned")
    return repo


@pytest.fixture
def paid(planned: Repo, paid_server: LocalServer, tmp_path: Path) -> Repo:
    """A copy of ``planned`` holding the key, with ``paid_server`` emptied and answering every
    free check and every completion (a test may change its routes)."""
    paid_server.requests.clear()
    paid_server.routes.clear()
    serve_free_endpoints(paid_server)
    paid_server.routes[CHAT] = completions()
    copy = copy_repo(planned, tmp_path / "repo")
    copy.env["OPENROUTER_API_KEY"] = PLANTED_KEY
    return copy


@pytest.fixture
def refused_url() -> str:
    """A 127.0.0.1 port nothing listens on."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def unanswered_url() -> Iterator[str]:
    """A 127.0.0.1 port whose accept queue is full, so a new connection hangs in the handshake."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    yield f"http://127.0.0.1:{port}"
    for filler in fillers:
        filler.close()
    listener.close()
