"""Metric measurements on a real LocalCluster: byte-identical rows, tool versions checked."""

from __future__ import annotations

import pytest
from compute_testkit import reference_candidates

from assay.compute.measure import measure_placed
from assay.compute.measure_cluster import measure_on_cluster
from assay.errors import ComputeError
from assay.evidence import MetricRow
from assay.metrics import tool_versions
from assay.params import Compute
from assay.pipeline.measure import load_items, metric_rows
from assay.tables import write_records

CLUSTER = Compute(scheduler="tcp://127.0.0.1:8786", measure_cells_per_task=8)


def test_cluster_metrics_are_byte_identical_to_local(client, v1, tmp_path):
    candidates = reference_candidates(v1)[:30]
    items = load_items(candidates, v1)
    local = measure_placed(items, Compute(), {}, local_workers=2)
    remote = measure_on_cluster(client, items, CLUSTER, tool_versions())
    for name, placed in (("local", local), ("cluster", remote)):
        rows = metric_rows(candidates, [m for p in placed for m in p.value])
        write_records(tmp_path / f"{name}.parquet", MetricRow, rows)
    assert (tmp_path / "local.parquet").read_bytes() == (tmp_path / "cluster.parquet").read_bytes()
    assert {p.worker for p in remote} <= set(client.scheduler_info()["workers"])


def test_a_worker_with_other_tool_versions_is_refused(client, v1):
    items = load_items(reference_candidates(v1)[:2], v1)
    planned = {**tool_versions(), "radon": "0.0.1"}
    with pytest.raises(ComputeError, match="radon") as caught:
        measure_on_cluster(client, items, CLUSTER, planned)
    assert "\n" not in str(caught.value)
