"""Real Dask clusters (worker processes) and a second Docker engine for the compute tests.

``second_engine``: a separate ``dockerd`` with its own data root, exec root, pid file and unix
socket (no bridge, no iptables), so a worker can lack the pinned image without anyone touching
the shared engine's images. It is stopped and its directories removed afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
from compute_testkit import start_cluster
from distributed import Client, LocalCluster

from assay.evidence import ImageRecord
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import load_scenario

ROOT = Path(__file__).resolve().parents[2]
ENGINE_START_SECONDS = 60


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    with start_cluster(2) as running:
        yield running


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster, set_as_default=False) as connected:
        yield connected


@pytest.fixture(scope="session")
def v1() -> Scenario:
    return load_scenario("v1", ROOT / "fixtures")


@pytest.fixture
def second_engine() -> Iterator[str]:
    """``unix://`` address of a fresh dockerd that has no images at all."""
    if shutil.which("dockerd") is None:
        if os.environ.get("CI"):
            pytest.fail("dockerd is not installed: the second-engine test cannot run")
        pytest.skip("dockerd is not installed")
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


@pytest.fixture(scope="session")
def sandbox_record(tmp_path_factory: pytest.TempPathFactory) -> ImageRecord:
    """The standard sandbox image's record (built on the shared engine only if its recipe is
    new)."""
    from assay.sandbox.image import ensure_image

    try:
        return ensure_image("standard", tmp_path_factory.mktemp("image") / "standard.json")
    except Exception as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the sandbox image is unusable: {exc}")
        pytest.skip(f"the sandbox image is unusable: {exc}")
        raise


@pytest.fixture(scope="session")
def sandbox_image(sandbox_record: ImageRecord) -> str:
    return sandbox_record.image_id
