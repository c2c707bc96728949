"""Cancelling a real process mid-run: wait until its sandbox containers are running, then signal it.

Shared by the tests that check a signalled stage, command or ``evaluate_many`` leaves no container
behind (tests/sandbox, tests/compute); each asserts its own exit status and leftovers.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable


def signal_once_running(
    process: subprocess.Popen,
    running: Callable[[], bool],
    *,
    start_seconds: float,
    settle_seconds: float,
    exit_seconds: float,
    signum: int = signal.SIGTERM,
) -> int:
    """Wait (up to ``start_seconds``, the process alive) until ``running()``, let the work settle
    for ``settle_seconds``, send ``signum`` and return the exit status within ``exit_seconds``.
    The process is killed if it is still there when this ends, whatever happened."""
    try:
        deadline = time.monotonic() + start_seconds
        while not running():
            assert process.poll() is None, f"exited ({process.returncode}) before it was running"
            assert time.monotonic() < deadline, f"not running after {start_seconds} s"
            time.sleep(0.05)
        time.sleep(settle_seconds)
        process.send_signal(signum)
        return process.wait(timeout=exit_seconds)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
