"""Metric measurements fanned out over a Dask cluster, gathered in item order.

Items are grouped by repository (so "before" is measured once per repository per task) and cut
into tasks of ``compute.measure_cells_per_task``; each task runs :func:`assay.metrics.measure`
on a worker. Each worker, now or joining later, checks its tool versions (:class:`ToolsPlugin`);
one whose versions are the plan's offers a unit of the versions' worker resource per thread,
one whose versions differ offers none (:mod:`~assay.compute.resources`), and each task asks for
a unit, so tasks go to every matching worker and never to another. If every worker is refused
the stage fails before measuring anything. The rows depend only on their own item and its
repository, so the gathered rows, put back in item order, equal a local run's byte for byte.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence

from distributed import Client, Worker, WorkerPlugin, get_worker

from assay.compute.placed import Placed
from assay.compute.resources import offer, one_unit
from assay.config.params import Compute
from assay.core.digest import digest_of
from assay.core.errors import ComputeError
from assay.metrics import MeasureItem, Measurement, jscpd_tool, measure, tool_versions
from assay.metrics.records import by_cell


def tasks(items: Sequence[MeasureItem], per_task: int) -> list[list[MeasureItem]]:
    """Items grouped by repository (first appearance order), cut into tasks of ``per_task``."""
    groups: dict[str, list[MeasureItem]] = {}
    for item in items:
        groups.setdefault(item.repo_key, []).append(item)
    return [
        group[start : start + per_task]
        for group in groups.values()
        for start in range(0, len(group), per_task)
    ]


def version_refusal(expected: Mapping[str, str]) -> str | None:
    """On a worker: ``None`` if its metric tools are the plan's and can run, else what differs
    (a pinned tool the worker cannot run would turn its figures into missing ones)."""
    mine = tool_versions()
    differing = [
        f"{tool} {mine.get(tool)} != {v}" for tool, v in expected.items() if mine.get(tool) != v
    ]
    problem = jscpd_tool.installation_problem()
    if problem is not None:
        differing.append(f"{jscpd_tool.TOOL}: {problem}")
    return "; ".join(differing) or None


_refusals: dict[str, str | None] = {}


class ToolsPlugin(WorkerPlugin):
    """Registered under one name per set of expected versions (also the resource's name)."""

    def __init__(self, expected: Mapping[str, str]) -> None:
        self.expected = dict(expected)
        self.name = f"assay-metrics-{digest_of(self.expected)[:16]}"

    async def setup(self, worker: Worker) -> None:
        refusal = await asyncio.to_thread(version_refusal, self.expected)
        _refusals[self.name] = refusal
        await offer(worker, self.name, worker.state.nthreads if refusal is None else 0)


def tools_refusal(name: str) -> str | None:
    """Run on every worker by the client: what :class:`ToolsPlugin` ``name`` found."""
    return _refusals.get(name, "metric tools not checked")


def measure_task(items: list[MeasureItem], expected: dict[str, str]) -> Placed[list[Measurement]]:
    refusal = version_refusal(expected)
    address = get_worker().address
    if refusal is not None:
        raise ComputeError(
            f"worker {address}: metric tool versions differ from the plan: {refusal}"
        )
    return Placed(measure(items, workers=1), address)


def measure_on_cluster(
    client: Client,
    items: Sequence[MeasureItem],
    compute: Compute,
    expected_tools: Mapping[str, str],
) -> list[Placed[list[Measurement]]]:
    if not items:
        return []
    expected = dict(expected_tools)
    plugin = ToolsPlugin(expected)
    client.register_plugin(plugin)
    refusals: dict[str, str | None] = client.run(tools_refusal, plugin.name)
    if all(refusal is not None for refusal in refusals.values()):
        lines = "; ".join(f"{a}: {r}" for a, r in refusals.items())
        raise ComputeError(
            f"no worker of {compute.scheduler} has the plan's metric tool versions ({lines})"
        )
    chunks = tasks(items, compute.measure_cells_per_task)
    token = uuid.uuid4().hex[:12]
    futures = client.map(
        measure_task,
        chunks,
        expected=expected,
        key=[f"assay-measure-{token}-{index:06d}" for index in range(len(chunks))],
        pure=False,
        resources=one_unit(plugin.name),
    )
    try:
        placed: list[Placed[list[Measurement]]] = client.gather(futures)
    except BaseException:
        client.cancel(futures, force=True)
        raise
    where: dict[str, Placed[list[Measurement]]] = {}
    for chunk_result in placed:
        for cell, rows in by_cell(chunk_result.value).items():
            where[cell] = Placed(rows, chunk_result.worker)
    return [where.get(item.cell_id, Placed([], "-")) for item in items]
