"""Where per-cell work runs: this machine, or a Dask cluster named in ``params.yaml: compute``.

- :mod:`~assay.compute.client`: connect to the scheduler (one line if it cannot be reached);
- :mod:`~assay.compute.engine`: a Docker engine's identity, the pinned image as an archive;
- :mod:`~assay.compute.plugin`: the worker plugin that loads and verifies the pinned image and
  refuses a worker whose engine, seccomp default or metric tools differ;
- :mod:`~assay.compute.sandbox` / :mod:`~assay.compute.measure`: sandboxed cells and metric
  measurements, here or on the cluster; only the cluster path imports Dask;
- :mod:`~assay.compute.sandbox_cluster` / :mod:`~assay.compute.measure_cluster`: their fan-out
  over the cluster, gathered in plan order so the Parquet is byte-identical to a local run.

Every result comes back with the worker that produced it (:class:`Placed`); the stages write
that into a separate provenance table, never into the evidence rows.
"""

from assay.compute.placed import LOCAL, Placed

__all__ = ["LOCAL", "Placed"]
