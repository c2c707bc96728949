"""Metric measurements on a real LocalCluster: byte-identical rows from every worker (one that
joins mid-stage too), tool versions checked."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from compute_testkit import in_background, reference_candidates, start_cluster
from distributed import Client

from assay.compute import Placed
from assay.compute.measure import measure_placed
from assay.compute.measure_cluster import measure_on_cluster
from assay.config.params import Compute
from assay.core.errors import ComputeError
from assay.core.tables import write_records
from assay.evidence import CandidateRow, MetricRow
from assay.metrics import Measurement, tool_versions
from assay.pipeline.measure import load_items, metric_rows

CLUSTER = Compute(scheduler="tcp://127.0.0.1:8786", measure_cells_per_task=8)

pytestmark = pytest.mark.cluster


def parquet_of(
    candidates: list[CandidateRow], placed: list[Placed[list[Measurement]]], path: Path
) -> bytes:
    """The metrics.parquet of ``placed`` measurements."""
    rows = metric_rows(candidates, [m for p in placed for m in p.value])
    write_records(path, MetricRow, rows)
    return path.read_bytes()


def test_cluster_metrics_are_byte_identical_to_local(client, v1, tmp_path):
    candidates = reference_candidates(v1)[:30]
    items = load_items(candidates, v1)
    local = measure_placed(items, Compute(), {}, local_workers=2)
    remote = measure_on_cluster(client, items, CLUSTER, tool_versions())
    assert parquet_of(candidates, local, tmp_path / "local.parquet") == parquet_of(
        candidates, remote, tmp_path / "cluster.parquet"
    )
    workers = set(client.scheduler_info()["workers"])
    assert {p.worker for p in remote} <= workers
    assert len({p.worker for p in remote}) == 2  # every worker takes measurements


def test_a_worker_that_joins_mid_stage_takes_measurements(v1, tmp_path):
    """Tasks ask for a resource every worker with the plan's tool versions offers, not for the
    workers there when the stage started: one that joins while the first measures takes part
    of the rest, and the rows stay the same."""
    candidates = reference_candidates(v1)[:30]
    items = load_items(candidates, v1)
    local = measure_placed(items, Compute(), {}, local_workers=2)
    with start_cluster(1) as cluster, Client(cluster, set_as_default=False) as client:
        thread, outcome = in_background(
            lambda: measure_on_cluster(client, items, CLUSTER, tool_versions())
        )
        end = time.monotonic() + 120
        while not any(client.processing().values()):
            assert time.monotonic() < end and thread.is_alive(), outcome
            time.sleep(0.05)
        cluster.scale(2)
        thread.join(timeout=600)
        workers = set(client.scheduler_info()["workers"])
    assert "error" not in outcome, outcome.get("error")
    remote = outcome["data"]
    assert isinstance(remote, list)
    assert parquet_of(candidates, local, tmp_path / "local.parquet") == parquet_of(
        candidates, remote, tmp_path / "cluster.parquet"
    )
    placed = {p.worker for p in remote}
    assert placed == workers and len(placed) == 2, (placed, workers)


def test_a_worker_with_other_tool_versions_is_refused(client, v1):
    items = load_items(reference_candidates(v1)[:2], v1)
    planned = {**tool_versions(), "radon": "0.0.1"}
    with pytest.raises(ComputeError, match="radon") as caught:
        measure_on_cluster(client, items, CLUSTER, planned)
    assert "\n" not in str(caught.value)
