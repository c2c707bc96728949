"""Work goes to every worker that is ready for it, through Dask's worker resources.

A stage's worker plugin checks each worker, the ones there now and any that joins or restarts
later, and the worker then offers a resource named after what was checked (the pinned image;
the plan's metric tool versions) with as many units as it may run such tasks at once, or none
if it was refused. Every task asks for one unit. So the scheduler places tasks on every ready
worker, one that joins mid-stage included (work stealing hands it queued tasks), and never on a
refused one. Restricting tasks to the workers seen when the stage started (``workers=``) left a
worker that joined a moment later idle for the whole stage.
"""

from __future__ import annotations

from distributed import Worker

UNIT = 1.0


async def offer(worker: Worker, resource: str, units: float) -> None:
    """``worker`` offers ``units`` of ``resource`` (zero: none, it takes no such task)."""
    await worker.set_resources(**{resource: float(units)})


def one_unit(resource: str) -> dict[str, float]:
    """What each task asks for: one unit of ``resource``."""
    return {resource: UNIT}
