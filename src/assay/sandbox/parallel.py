"""Many evaluations at once: the work is in containers, so threads suffice."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

from assay.core.progress import progress
from assay.sandbox.owners import sweep_orphans
from assay.sandbox.results import CorrectnessResult, SandboxRequest
from assay.sandbox.runner import cancelled, evaluate, removal_on_signals, remove_all_live

POLL_SECONDS = 0.2


def default_workers() -> int:
    """Two per core: a cell spends most of its time waiting on the daemon (measured in
    benchmarks/sandbox_throughput.py: 4 workers beat 2 on a 2-core machine)."""
    return 2 * (os.cpu_count() or 1)


def evaluate_many(
    requests: Sequence[SandboxRequest],
    *,
    workers: int,
    description: str | None = None,
    already_done: int = 0,
) -> list[CorrectnessResult]:
    """Evaluate ``requests`` on ``workers`` threads, each in its own containers (never sharing
    one: see :mod:`~assay.sandbox.runner`); results in request order. With a ``description``,
    progress (done/total, rate, ETA) goes to stderr (:mod:`assay.core.progress`), counting
    ``already_done`` results the caller has without evaluating them (remembered ones).

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
            progress(
                len(requests) + already_done if description else 0,
                description or "",
                unit="run",
                initial=already_done,
            ) as bar,
        ):
            futures = [executor.submit(evaluate, request) for request in requests]
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_EXCEPTION)
                bar.update(already_done + len(futures) - len(pending) - bar.n)
                if any(f.done() and f.exception() is not None for f in futures):
                    break
            return [future.result() for future in futures]
    except BaseException:
        cancelled.set()
        remove_all_live()
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        remove_all_live()
