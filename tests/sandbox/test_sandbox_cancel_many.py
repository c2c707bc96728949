"""A real SIGTERM to a process running evaluate_many: every container is gone when it exits."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import docker
import pytest
from sandbox_testkit import live_containers

from assay.sandbox.policy import CONTAINER_NAME_PREFIX
from tests.cancellation import signal_once_running

SCRIPT = """
import sys
from assay.sandbox import SandboxCancelled, SandboxRequest, evaluate_many
sleeper = "import time\\n\\n\\ndef implement(value):\\n    time.sleep(60)\\n"
requests = [
    SandboxRequest(files={"m.py": ""}, target="m.py", candidate=sleeper, cases=(1, 2), expected=(1, 2),
                   image=sys.argv[1])
    for _ in range(6)
]
try:
    evaluate_many(requests, workers=3)
except SandboxCancelled as cancelled:
    sys.exit(128 + cancelled.signum)
sys.exit(0)
"""


@pytest.mark.docker
def test_sigterm_during_evaluate_many_removes_every_container(
    sandbox_image: str, docker_api: docker.APIClient, tmp_path: Path
) -> None:
    script = tmp_path / "many.py"
    script.write_text(SCRIPT, encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(script), sandbox_image])
    prefix = f"{CONTAINER_NAME_PREFIX}{process.pid}-"
    returncode = signal_once_running(
        process,
        lambda: len(live_containers(docker_api, prefix)) >= 3,
        start_seconds=30,
        settle_seconds=0.5,
        exit_seconds=60,
    )
    assert returncode == 128 + signal.SIGTERM
    assert live_containers(docker_api, prefix) == []
