"""A real Dask cluster on 127.0.0.1, started as docs/scale.md, "Start a cluster", says: one
``dask scheduler`` and ``dask worker`` processes, stopped afterwards. Used by the cluster tests and
``benchmarks/cluster.py``."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from distributed import Client

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return int(free.getsockname()[1])


@contextlib.contextmanager
def dask_cluster(
    workers: int,
    *,
    cwd: Path,
    threads: int = 2,
    env: Mapping[str, str] | None = None,
    startup_seconds: float = 120,
) -> Iterator[str]:
    """The address of a ``dask scheduler`` with ``workers`` separate ``dask worker`` processes
    of ``threads`` threads each, running the code of ``cwd`` (as on a worker host with that
    checkout) once every worker has joined."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    worker = ["worker", address, "--nthreads", str(threads), "--host", "127.0.0.1"]
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for command in [scheduler] + [[*worker, "--no-dashboard"]] * workers:
            processes.append(
                subprocess.Popen(
                    [str(BIN / "dask"), *command],
                    cwd=cwd,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        with Client(address, timeout=startup_seconds, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=startup_seconds)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
