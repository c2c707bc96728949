"""Fixtures: a misbehaving local server, a refused port and a port whose handshake hangs."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import pytest
from provider_server import LocalServer


@pytest.fixture
def server() -> Iterator[LocalServer]:
    running = LocalServer()
    running.start()
    yield running
    running.stop()


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
