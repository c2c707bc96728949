"""Metric measurements taken on this machine or on the Dask cluster ``params.yaml: compute``
names (:mod:`~assay.compute.measure_cluster`), in item order.

Dask is imported only when a cluster is named: it adds about 0.4 s to the start of every
measure stage, which runs locally by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.compute.placed import LOCAL, Placed
from assay.config.params import Compute
from assay.metrics import MeasureItem, Measurement, measure
from assay.metrics.records import by_cell


def measure_placed(
    items: Sequence[MeasureItem],
    compute: Compute,
    expected_tools: Mapping[str, str],
    *,
    local_workers: int,
) -> list[Placed[list[Measurement]]]:
    """Per item (in item order): its measurements and where they were taken."""
    if not compute.distributed:
        rows = by_cell(measure(items, workers=local_workers))
        return [Placed(rows.get(item.cell_id, []), LOCAL) for item in items]
    from assay.compute.client import connect
    from assay.compute.measure_cluster import measure_on_cluster

    with connect(compute) as client:
        return measure_on_cluster(client, items, compute, expected_tools)
