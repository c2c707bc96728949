"""Sandboxed cells on a real LocalCluster of worker processes and the real Docker engine."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import docker
import pytest
from compute_testkit import in_background, own_containers, reference_candidates, start_cluster
from distributed import Client

from assay.compute import LOCAL
from assay.compute.engine import local_identity
from assay.compute.plugin import SandboxPlugin, evaluate_cells, readiness
from assay.compute.sandbox import evaluate_placed
from assay.compute.sandbox_cluster import evaluate_on_cluster
from assay.config.params import Compute
from assay.core.errors import ComputeError
from assay.core.tables import write_records
from assay.evidence import CorrectnessRow
from assay.pipeline.correctness import placed_correctness_rows
from assay.sandbox.cells import request_for
from assay.sandbox.image import save_archive
from tests.cancellation import signal_once_running

CLUSTER = Compute(scheduler="tcp://127.0.0.1:8786")  # the address is not used with a client

pytestmark = [pytest.mark.docker, pytest.mark.cluster]


@pytest.fixture(scope="module")
def local_parquet(v1, sandbox_image, tmp_path_factory) -> bytes:
    """correctness.parquet of a scenario's worth of cells, evaluated on this machine."""
    rows, placements = placed_correctness_rows(
        reference_candidates(v1), v1, sandbox_image,
        lambda requests: evaluate_placed(requests, Compute(), sandbox_image),
    )  # fmt: skip
    assert {p.worker for p in placements} == {LOCAL}
    path = tmp_path_factory.mktemp("local") / "correctness.parquet"
    write_records(path, CorrectnessRow, rows)
    return path.read_bytes()


def cluster_parquet(client: Client, v1, image: str, out: Path) -> tuple[bytes, set[str]]:
    rows, placements = placed_correctness_rows(
        reference_candidates(v1), v1, image,
        lambda requests: evaluate_on_cluster(client, requests, CLUSTER, image),
    )  # fmt: skip
    write_records(out, CorrectnessRow, rows)
    return out.read_bytes(), {p.worker for p in placements}


def wait_for_containers(api: docker.APIClient, prefix: str, seconds: float) -> None:
    end = time.monotonic() + seconds
    while not own_containers(api, [prefix]):
        assert time.monotonic() < end, f"no container {prefix}* started"
        time.sleep(0.05)


def test_cluster_parquet_is_byte_identical_to_local(
    client, v1, sandbox_image, local_parquet, tmp_path
):
    data, workers = cluster_parquet(client, v1, sandbox_image, tmp_path / "c.parquet")
    assert data == local_parquet
    assert workers <= set(client.scheduler_info()["workers"]) and len(workers) == 2


def test_a_worker_killed_mid_run_is_replaced_and_leaves_no_container(
    client, v1, sandbox_image, local_parquet, tmp_path
):
    pids: dict[str, int] = client.run(os.getpid)
    victim = min(pids.values())
    prefix = f"assay-sandbox-{victim}-"
    api = docker.APIClient(**docker.utils.kwargs_from_env())
    thread, outcome = in_background(
        lambda: cluster_parquet(client, v1, sandbox_image, tmp_path / "c.parquet")
    )
    wait_for_containers(api, prefix, 60)
    os.kill(victim, signal.SIGKILL)  # mid-cell: its container is running
    thread.join(timeout=600)
    assert "error" not in outcome, outcome.get("error")
    data, _ = outcome["data"]  # type: ignore[misc]
    assert data == local_parquet
    end = time.monotonic() + 30
    while own_containers(api, [prefix]):
        assert time.monotonic() < end, own_containers(api, [prefix])
        time.sleep(0.2)


def test_a_worker_that_joins_mid_stage_takes_cells(v1, sandbox_image, local_parquet, tmp_path):
    """Cells ask for a resource every ready worker offers, not for the workers there when the
    stage started: a worker that joins once the first worker's containers run (as a second
    host's ``dask worker`` may) takes part of the rest, and the rows stay the same."""
    api = docker.APIClient(**docker.utils.kwargs_from_env())
    with start_cluster(1) as cluster, Client(cluster, set_as_default=False) as client:
        (first,) = client.run(os.getpid).values()
        thread, outcome = in_background(
            lambda: cluster_parquet(client, v1, sandbox_image, tmp_path / "c.parquet")
        )
        wait_for_containers(api, f"assay-sandbox-{first}-", 120)
        cluster.scale(2)
        thread.join(timeout=600)
        workers = set(client.scheduler_info()["workers"])
    assert "error" not in outcome, outcome.get("error")
    data, placed = outcome["data"]  # type: ignore[misc]
    assert data == local_parquet
    assert placed == workers and len(placed) == 2, (placed, workers)


def test_the_image_is_shipped_to_a_worker_whose_engine_lacks_it(
    second_engine, v1, sandbox_record, tmp_path
):
    image = sandbox_record.image_id
    archive = tmp_path / "standard.tar"
    save_archive(sandbox_record, archive)  # what the image stage keeps in DVC's cache
    api = docker.APIClient(base_url=second_engine)
    assert api.images(quiet=True) == []
    subject = v1.subjects[0]
    requests = [
        request_for(subject, arm.name, subject.task.references.reused, image)
        for arm in subject.arms
        if arm.sandbox != "skip"
    ]
    with (
        start_cluster(1, env={"DOCKER_HOST": second_engine}) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        without = evaluate_on_cluster(client, requests, CLUSTER, image)  # no archive to ship
        placed = evaluate_on_cluster(client, requests, CLUSTER, image, archive)
        (state,) = client.run(readiness, image).values()
    assert {(p.value.status, p.value.reason) for p in without} == {
        ("evaluator-failure", "worker-image-mismatch")
    }
    assert [p.value.status for p in placed] == ["correct"] * len(requests)
    assert state[0] is None and state[3] is True  # ready, and it had to load the archive
    assert api.inspect_image(image)["Id"] == image


def test_a_worker_whose_engine_differs_is_refused_as_missing_evidence(client, v1, sandbox_image):
    reference = local_identity().model_copy(update={"seccomp": "profile=someone-elses"})
    client.register_plugin(SandboxPlugin(sandbox_image, reference, 2))
    subject = v1.subjects[0]
    request = request_for(
        subject, subject.arms[0].name, subject.task.references.reused, sandbox_image
    )
    batches = client.gather(
        client.map(evaluate_cells, [[request]] * 3, stage="refused", pure=False)
    )
    assert {(p.value.status, p.value.reason) for batch in batches for p in batch} == {
        ("evaluator-failure", "worker-seccomp-mismatch")
    }


def test_an_unreachable_scheduler_fails_in_one_line_before_any_work():
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    compute = Compute(scheduler=f"tcp://127.0.0.1:{port}", connect_timeout_seconds=2)
    started = time.monotonic()
    with pytest.raises(ComputeError) as caught:
        evaluate_placed([object()], compute, "sha256:" + "0" * 64)  # type: ignore[list-item]
    assert time.monotonic() - started < 30
    message = str(caught.value)
    assert "\n" not in message and f"127.0.0.1:{port}" in message and "nothing was run" in message


CANCELLED_STAGE = """
import sys
from assay.compute.sandbox import evaluate_placed
from assay.config.params import Compute
from assay.sandbox import SandboxCancelled, SandboxRequest
sleeper = "import time\\n\\n\\ndef implement(value):\\n    time.sleep(60)\\n"
requests = [
    SandboxRequest(files={"m.py": ""}, target="m.py", candidate=sleeper + "#" * n, cases=(1, 2),
                   expected=(1, 2), image=sys.argv[2])
    for n in range(10)
]
try:
    evaluate_placed(requests, Compute(scheduler=sys.argv[1]), sys.argv[2])
except SandboxCancelled as cancelled:
    sys.exit(128 + cancelled.signum)
sys.exit(0)
"""


def test_a_cancelled_stage_leaves_no_container_on_any_worker(
    cluster, client, sandbox_image, tmp_path
):
    script = tmp_path / "stage.py"
    script.write_text(CANCELLED_STAGE, encoding="utf-8")
    prefixes = [f"assay-sandbox-{pid}-" for pid in client.run(os.getpid).values()]
    api = docker.APIClient(**docker.utils.kwargs_from_env())
    stage = subprocess.Popen(
        [sys.executable, str(script), cluster.scheduler_address, sandbox_image]
    )
    returncode = signal_once_running(
        stage,
        lambda: len(own_containers(api, prefixes)) >= 3,  # up to two slots on each of two workers
        start_seconds=120,
        settle_seconds=1.0,  # the candidates are sleeping now; more batches wait for a slot
        exit_seconds=120,
    )
    assert returncode == 128 + signal.SIGTERM
    assert own_containers(api, prefixes) == []
    time.sleep(3.0)  # a cell that was waiting for a slot starts no container after the cancel
    assert own_containers(api, prefixes) == []
