"""scripts/setup (what scripts/study and scripts/test run first), on this machine, without touching
the shared Docker engine: a second engine on its own socket, data root, exec root and pid file
is started by the whole setup, outlives it, and is then reused as is; a user without root gets one paragraph saying what is missing
and what to run."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.unavailable import unavailable

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "scripts" / "setup"
ENGINE_FLAGS = "dockerd --bridge=none --iptables=false --ip-forward=false --ip-masq=false"


def _setup(mode: str, env: dict[str, str], user: str | None = None):
    command = [str(SETUP), mode]
    if user is not None:
        command = [
            shutil.which("setpriv") or "setpriv",
            f"--reuid={user}",
            f"--regid={user}",
            "--clear-groups",
            *command,
        ]
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=180, check=False
    )


def _restricted_path(tmp_path: Path, keep: tuple[str, ...]) -> str:
    """A PATH holding only the named commands (the rest of a fresh machine is missing)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    folder.chmod(0o755)
    for name in keep:
        found = shutil.which(name, path="/usr/bin:/bin")
        if found:
            (folder / name).symlink_to(found)
    return str(folder)


BASICS = (
    "bash",
    "env",
    "id",
    "fold",
    "printf",
    "cat",
    "dirname",
    "python3",
    "seq",
    "sleep",
    "tail",
)


@pytest.fixture
def scratch():
    # short: a unix socket path must stay under 108 bytes
    path = Path(tempfile.mkdtemp(prefix="asetup-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.process
def test_without_root_and_docker_one_paragraph_says_what_is_missing(scratch):
    env = {
        "PATH": _restricted_path(scratch, (*BASICS, "git")),
        "HOME": str(scratch),
        "DOCKER_HOST": f"unix://{scratch}/no-engine.sock",
    }
    result = _setup("study", env, user="65534")
    assert result.returncode == 1, result
    paragraph = result.stderr.strip()
    assert "\n\n" not in paragraph and result.stdout == ""
    text = " ".join(paragraph.split())
    for package in ("nodejs", "npm", "docker.io", "debootstrap"):
        assert package in text
    assert "apt-get update && apt-get install -y" in text
    assert f"{ENGINE_FLAGS} -H unix://{scratch}/no-engine.sock" in text
    assert "scripts/study again" in text


@pytest.mark.docker
def test_starts_a_missing_engine_with_networking_disabled_then_reuses_it(scratch):
    if os.geteuid() != 0:
        unavailable("starting a Docker engine needs root")
    socket = scratch / "d.sock"
    pidfile = scratch / "d.pid"
    env = {
        **os.environ,
        "DOCKER_HOST": f"unix://{socket}",
        "ASSAY_DOCKERD_ARGS": f"--data-root {scratch}/root --exec-root {scratch}/exec "
        f"--pidfile {pidfile}",
        "ASSAY_DOCKERD_LOG": str(scratch / "dockerd.log"),
    }
    shared_pid = (
        Path("/var/run/docker.pid").read_text() if Path("/var/run/docker.pid").exists() else None
    )
    try:
        # the whole setup, as scripts/study and scripts/test run it: the engine it starts outlives
        # it (its exit ends its own background jobs, which the engine must not be one of)
        started = _setup("study", env)
        assert started.returncode == 0, (started.stderr, (scratch / "dockerd.log").read_text())
        assert "starting a Docker engine" in started.stderr
        pid = int(pidfile.read_text())
        assert Path(f"/proc/{pid}").exists(), "the engine ended with the setup that started it"
        command_line = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        for flag in ENGINE_FLAGS.split()[1:]:
            assert flag.encode() in command_line
        info = subprocess.run(
            ["docker", "info", "--format", "{{.DockerRootDir}}"],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert info.stdout.strip() == f"{scratch}/root"

        again = _setup("engine", env)
        assert again.returncode == 0 and "starting" not in again.stderr
        assert int(pidfile.read_text()) == pid, "a running engine was not used as is"
    finally:
        if pidfile.exists():
            pid = int(pidfile.read_text())
            os.kill(pid, signal.SIGTERM)
            for _ in range(60):
                if not Path(f"/proc/{pid}").exists():
                    break
                time.sleep(0.5)
        subprocess.run(["umount", "-R", f"{scratch}/exec"], capture_output=True, check=False)
        subprocess.run(["umount", "-R", f"{scratch}/root"], capture_output=True, check=False)
    if shared_pid is not None:
        assert Path("/var/run/docker.pid").read_text() == shared_pid
        assert Path(f"/proc/{int(shared_pid)}").exists(), "the shared engine was touched"
