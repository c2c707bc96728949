"""A server process that ends with the process that started it, even after ``kill -9``.

``die_with_parent`` asks Linux to send SIGKILL when the parent ends (``PR_SET_PDEATHSIG``, kept
across ``exec``) and watches the parent's pid as well (elsewhere). ``python -m
assay.local.orphan -- COMMAND...`` does that and then becomes ``COMMAND``: how a profile's own
``server_command`` (``llama-server``, ``vllm serve``) is started.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1


def die_with_parent(*, watch: bool = True) -> None:
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # not Linux: the watchdog still notices within a second
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(3)
    if watch:

        def watchdog() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(3)

        threading.Thread(target=watchdog, daemon=True, name="parent-watchdog").start()


def main(argv: list[str] | None = None) -> None:
    command = list(sys.argv[1:] if argv is None else argv)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise SystemExit("usage: python -m assay.local.orphan -- COMMAND [ARG...]")
    die_with_parent(watch=False)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
