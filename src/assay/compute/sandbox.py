"""Sandboxed cells evaluated on this machine or on the Dask cluster ``params.yaml: compute``
names (:mod:`~assay.compute.sandbox_cluster`), gathered in request order.

Dask is imported only when a cluster is named: it adds about 0.4 s to the start of every
self-test and correctness stage, which run locally by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assay.compute.engine import local_identity
from assay.compute.placed import LOCAL, Placed
from assay.params import Compute
from assay.sandbox.parallel import default_workers, evaluate_many
from assay.sandbox.results import CorrectnessResult, SandboxRequest


def evaluate_placed(
    requests: Sequence[SandboxRequest],
    compute: Compute,
    image: str,
    *,
    archive: Path | None = None,
    description: str | None = None,
) -> list[Placed[CorrectnessResult]]:
    """Every request evaluated, in request order, here or on the cluster ``compute`` names
    (``archive``: the pinned image's ``docker save``, for workers that lack it; with a
    ``description``, progress goes to stderr here)."""
    if not compute.distributed:
        engine = local_identity().version if requests else "-"
        results = evaluate_many(requests, workers=default_workers(), description=description)
        return [Placed(result, LOCAL, engine) for result in results]
    from assay.compute.client import connect
    from assay.compute.sandbox_cluster import evaluate_on_cluster

    with connect(compute) as client:
        return evaluate_on_cluster(client, requests, compute, image, archive)
