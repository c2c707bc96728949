"""One server process for one run's calls, on 127.0.0.1, started and stopped by the send stage.

``ManagedServer`` starts assay's own server (``python -m assay.local.server``) or the profile's
``server_command`` at a free loopback port, waits until ``GET /v1/models`` answers (or the
process ends, or ``startup_timeout_seconds`` pass), and on exit stops it (SIGTERM, then SIGKILL
after ten seconds). The process gets ``OMP_NUM_THREADS`` = the profile's threads and
``OMP_WAIT_POLICY=PASSIVE``, with a short busy-wait first (``GOMP_SPINCOUNT``) only when the
machine has a core free for each thread as it starts (``assay.local.waiting``): OpenMP threads
do not spin on cores other work is using. Its output goes to a log the caller names, each start
headed by these settings and the command. A server that dies mid-run is not restarted: the call
in flight fails, the run halts (``assay.paid.execute``), and the next ``dvc repro`` starts a new
server for the calls still unanswered.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

from assay.core.errors import AssayError
from assay.local.settings import LocalModel
from assay.local.waiting import openmp_environment, with_openmp

STOP_GRACE_SECONDS = 10.0
POLL_SECONDS = 0.2


class ServerStartError(AssayError):
    """The local model's server did not come up; nothing was sent to it."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_command(
    local: LocalModel, *, weights: Path, model: str, context_tokens: int, port: int
) -> list[str]:
    """The command line that serves ``model`` at ``port``."""
    if local.server_command is None:
        return [
            sys.executable,
            "-m",
            "assay.local.server",
            "--weights",
            str(weights),
            "--weights-sha256",
            local.weights_sha256,
            "--model",
            model,
            "--port",
            str(port),
            "--threads",
            str(local.threads),
            "--batch-tokens",
            str(local.batch_tokens),
            "--context-tokens",
            str(context_tokens),
            "--gpu-layers",
            str(local.gpu_layers),
            "--seed",
            str(local.seed),
        ]
    values = {
        "{port}": str(port),
        "{weights}": str(weights),
        "{model}": model,
        "{threads}": str(local.threads),
        "{context_tokens}": str(context_tokens),
    }
    command = [sys.executable, "-m", "assay.local.orphan", "--"]
    for part in local.server_command:
        for placeholder, value in values.items():
            part = part.replace(placeholder, value)
        command.append(part)
    return command


class ManagedServer:
    """``with ManagedServer(...) as base_url:`` a running server for the block's calls."""

    def __init__(
        self,
        local: LocalModel,
        *,
        weights: Path,
        model: str,
        context_tokens: int,
        log: Path,
    ) -> None:
        self.local = local
        self.weights = weights
        self.model = model
        self.context_tokens = context_tokens
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.base_url = ""

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> str:
        port = free_port()
        command = server_command(
            self.local,
            weights=self.weights,
            model=self.model,
            context_tokens=self.context_tokens,
            port=port,
        )
        try:
            openmp = openmp_environment(self.local.threads)
        except ValueError as exc:
            raise ServerStartError(f"{exc}; nothing was sent") from exc
        env = {**with_openmp(openmp), "PYTHONUNBUFFERED": "1"}
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            settings = " ".join(f"{k}={v}" for k, v in sorted(openmp.items()))
            started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            log.write(f"== {started} {settings} {' '.join(command)}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env
            )
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self._wait_ready()
        return self.base_url

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.local.startup_timeout_seconds
        assert self.process is not None
        with httpx.Client(timeout=2.0, trust_env=False) as client:
            while True:
                code = self.process.poll()
                if code is not None:
                    raise ServerStartError(
                        f"the server for {self.model} exited with status {code} before it "
                        f"answered; nothing was sent to it (its output: {self.log})"
                    )
                try:
                    if client.get(f"{self.base_url}/models").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise ServerStartError(
                        f"the server for {self.model} did not answer within "
                        f"{self.local.startup_timeout_seconds:g} s; nothing was sent to it (raise "
                        f"local.startup_timeout_seconds, or see its output: {self.log})"
                    )
                time.sleep(POLL_SECONDS)

    def exit_status(self, wait: float = 0.5) -> int | None:
        """The server's exit status once it has ended (waiting up to ``wait`` seconds for it to
        finish ending); ``None`` while it runs."""
        if self.process is None:
            return None
        try:
            return self.process.wait(wait)
        except subprocess.TimeoutExpired:
            return None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
