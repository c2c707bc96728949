"""Sandboxed cells fanned out over a Dask cluster, gathered in request order.

Before any cell: the reference engine is this machine's (the one the self-test ran on); every
worker checks its own engine against it and loads the pinned image if it lacks it, from the
image stage's ``docker save`` archive (``data/image/<kind>.tar``, kept in DVC's cache), which is
shipped only when some worker lacks the image. Cells ask for one unit of the image's worker
resource, which a worker offers once it is ready (:mod:`~assay.compute.resources`): they go to
every ready worker, one that joins mid-stage included, and never to a refused one; if no worker
is ready, they go to any worker and come back as evaluator failures naming the refusal.

Faults: Dask re-runs a cell whose worker died on another worker (evaluation is free and
deterministic). Every container carries the stage's token (label ``assay.stage``): when the
stage ends, every worker force-removes the stage's containers left on its engine (a dead
worker's, whether running or only created) and those of dead processes of its host; the nanny's
replacement worker does the latter as it starts. On SIGTERM/SIGINT or any error the cells are
cancelled, every worker stops the stage's cells (none starts a container any more) and removes
its containers before the exception propagates.
"""

from __future__ import annotations

import contextlib
import math
import uuid
from collections.abc import Sequence
from pathlib import Path

from distributed import Client

from assay.compute.engine import local_identity
from assay.compute.placed import Placed
from assay.compute.plugin import (
    SandboxPlugin,
    end_stage,
    evaluate_cells,
    plugin_name,
    readiness,
)
from assay.compute.resources import one_unit
from assay.config.params import Compute
from assay.sandbox.results import CorrectnessResult, SandboxRequest
from assay.sandbox.runner import removal_on_signals

Readiness = tuple[str | None, str, str, bool]


def prepare_workers(
    client: Client, image: str, slots: int, archive: Path | None
) -> dict[str, Readiness]:
    """Every worker checked (and given the image if it lacks it and ``archive`` is here):
    address → readiness. A worker still without the image is refused (``no archive shipped``
    or ``loaded archive has another id``)."""
    reference = local_identity()
    client.register_plugin(SandboxPlugin(image, reference, slots))
    states: dict[str, Readiness] = client.run(readiness, image)
    lacking = any(state[0] == "worker-image-mismatch" for state in states.values())
    if lacking and archive is not None and archive.is_file():
        client.register_plugin(SandboxPlugin(image, reference, slots, archive.read_bytes()))
        states = client.run(readiness, image)
    return states


def task_cells(count: int, tasks: int) -> list[range]:
    """Positions ``0..count`` in request order, split into at most ``tasks`` runs of nearly
    equal length."""
    size = max(1, math.ceil(count / max(tasks, 1)))
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def evaluate_on_cluster(
    client: Client,
    requests: Sequence[SandboxRequest],
    compute: Compute,
    image: str,
    archive: Path | None = None,
) -> list[Placed[CorrectnessResult]]:
    if not requests:
        return []
    states = prepare_workers(client, image, compute.sandbox_slots_per_worker, archive)
    ready = sum(state[0] is None for state in states.values())
    stage = uuid.uuid4().hex[:12]
    # several cells per task (each in its own containers), about eight tasks per slot, so a
    # faster worker takes more and a dead worker's share is small
    slots = compute.sandbox_slots_per_worker * max(ready, 1)
    planned = task_cells(len(requests), 8 * slots)
    futures = client.map(
        evaluate_cells,
        [[requests[position] for position in cells] for cells in planned],
        stage=stage,
        key=[f"assay-cells-{stage}-{index:06d}" for index in range(len(planned))],
        pure=False,
        # with no worker ready, any worker takes the cells and each comes back as an evaluator
        # failure naming that worker's refusal
        resources=one_unit(plugin_name(image)) if ready else None,
    )
    try:
        with removal_on_signals():
            gathered: list[list[Placed[CorrectnessResult]]] = client.gather(futures)
    except BaseException:
        client.cancel(futures, force=True)
        # best effort: with the connection lost, each worker's cells end and remove their own
        with contextlib.suppress(Exception):
            client.run(end_stage, stage, cancelled=True)
        raise
    client.run(end_stage, stage, cancelled=False)
    placed: list[Placed[CorrectnessResult] | None] = [None] * len(requests)
    for cells, results in zip(planned, gathered, strict=True):
        for position, result in zip(cells, results, strict=True):
            placed[position] = result
    return [result for result in placed if result is not None]
