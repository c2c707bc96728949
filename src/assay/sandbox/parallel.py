"""Many evaluations at once: the work is in containers, so threads suffice."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

from assay.progress import progress
from assay.sandbox.owners import sweep_orphans
from assay.sandbox.results import CorrectnessResult, SandboxRequest
from assay.sandbox.runner import (
    cancelled,
    evaluate_batch,
    removal_on_signals,
    remove_all_live,
)

POLL_SECONDS = 0.2
MAX_BATCH = 12
"""At most this many candidates share one container (one after another): a container costs
~0.15 s of daemon time, a case ~0.05 s (benchmarks/sandbox_batching.py)."""
BATCHES_PER_WORKER = 4
"""Batches are small enough that each worker gets about this many: the last ones to finish
then hold the other workers idle only briefly."""


def default_workers() -> int:
    """Two per core: a cell spends most of its time waiting on the daemon (measured in
    benchmarks/sandbox_throughput.py: 4 workers beat 2 on a 2-core machine)."""
    return 2 * (os.cpu_count() or 1)


def batches(requests: Sequence[SandboxRequest], workers: int) -> list[list[int]]:
    """Positions of ``requests`` in container-sized batches: same image and profile, in request
    order, about :data:`BATCHES_PER_WORKER` per worker and at most :data:`MAX_BATCH` each."""
    groups: dict[tuple[str, str], list[int]] = {}
    for position, request in enumerate(requests):
        groups.setdefault((request.image, request.profile), []).append(position)
    share = math.ceil(len(requests) / (max(workers, 1) * BATCHES_PER_WORKER))
    size = max(1, min(MAX_BATCH, share))
    return [
        positions[start : start + size]
        for positions in groups.values()
        for start in range(0, len(positions), size)
    ]


def evaluate_many(
    requests: Sequence[SandboxRequest], *, workers: int, description: str | None = None
) -> list[CorrectnessResult]:
    """Evaluate ``requests`` on ``workers`` threads, several per container (each exactly as
    alone, see :func:`~assay.sandbox.runner.evaluate_batch`); results in request order. With a
    ``description``, progress (done/total, rate, ETA) goes to stderr (:mod:`assay.progress`).

    On SIGTERM/SIGINT (main thread) or any error, no new container starts, every live one is
    removed, and the workers are joined before the exception propagates. Containers left by an
    earlier process of this host that was killed outright are removed first.
    """
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if requests:
        sweep_orphans()
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="assay-sandbox")
    try:
        with (
            removal_on_signals(),
            progress(len(requests) if description else 0, description or "", unit="run") as bar,
        ):
            planned = batches(requests, workers)
            futures = {
                executor.submit(evaluate_batch, [requests[p] for p in batch]): batch
                for batch in planned
            }
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_EXCEPTION)
                finished = sum(len(futures[f]) for f in futures if f not in pending)
                bar.update(finished - bar.n)
                if any(f.done() and f.exception() is not None for f in futures):
                    break
            results: list[CorrectnessResult | None] = [None] * len(requests)
            for future, batch in futures.items():
                for position, result in zip(batch, future.result(), strict=True):
                    results[position] = result
            return [result for result in results if result is not None]
    except BaseException:
        cancelled.set()
        remove_all_live()
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        remove_all_live()
