"""A second, private Docker engine for tests that need an engine without some image.

A separate ``dockerd`` with its own data root, exec root, pid file and unix socket (no bridge, no
iptables), so a test can remove images there without anyone touching the shared engine's images.
It is stopped and its directories removed afterwards. The ``second_engine`` fixture
(tests/conftest.py) yields its ``unix://`` address.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.unavailable import unavailable

ENGINE_START_SECONDS = 60


def require_dockerd() -> None:
    """Fail (``CI`` set) or skip when there is no ``dockerd`` to start."""
    if shutil.which("dockerd") is None:
        unavailable("dockerd is not installed: the second-engine test cannot run")


@contextlib.contextmanager
def private_engine() -> Iterator[str]:
    """``unix://`` address of a fresh dockerd that has no images at all."""
    import docker

    require_dockerd()
    root = Path(tempfile.mkdtemp(prefix="assay-d2-", dir="/tmp"))
    (root / "daemon.json").write_text("{}\n")
    socket = root / "d.sock"
    log = (root / "dockerd.log").open("wb")
    process = subprocess.Popen(
        [
            "dockerd",
            "--config-file", str(root / "daemon.json"),
            "--data-root", str(root / "data"),
            "--exec-root", str(root / "x"),
            "--pidfile", str(root / "d.pid"),
            "-H", f"unix://{socket}",
            "--bridge=none", "--iptables=false", "--ip-forward=false", "--ip-masq=false",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    address = f"unix://{socket}"
    try:
        end = time.monotonic() + ENGINE_START_SECONDS
        while True:
            try:
                api = docker.APIClient(base_url=address, timeout=5)
                api.ping()
                api.close()
                break
            except Exception:  # noqa: BLE001 - not up yet
                if process.poll() is not None or time.monotonic() > end:
                    raise AssertionError(
                        "second dockerd did not start:\n" + (root / "dockerd.log").read_text()
                    ) from None
                time.sleep(0.3)
        yield address
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        with contextlib.suppress(OSError):
            subprocess.run(["umount", "-R", str(root / "x")], capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)


def copy_images(references: list[str], address: str) -> None:
    """``docker save`` the shared engine's ``references`` into the private engine at
    ``address`` (ids and tags are preserved: an image id is the digest of its configuration)."""
    save = subprocess.Popen(["docker", "save", *references], stdout=subprocess.PIPE)
    load = subprocess.run(
        ["docker", "-H", address, "load", "--quiet"],
        stdin=save.stdout,
        capture_output=True,
        check=False,
    )
    assert save.stdout is not None
    save.stdout.close()
    assert save.wait() == 0 and load.returncode == 0, load.stderr.decode()
