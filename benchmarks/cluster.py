"""Correctness and measure throughput on one and two Dask workers, and which worker did what.

    uv run python benchmarks/cluster.py [--scenario v1] [--workers 1 2] [--threads 2] [--slots 2]
                                        [--cells N] [--skip-local]

Work: a scenario's references (both) and a known-wrong implementation on every sandboxed arm
(v1: 72 cells), as sandboxed cells (what the correctness stage sends to the cluster) and as metric
items (what the measure stage sends). For each worker count, a real ``dask scheduler`` and that
many ``dask worker`` processes on 127.0.0.1 (as docs/scale.md, "Start a cluster", starts them), each worker
with ``--threads`` threads and ``--slots`` sandbox slots; the library functions the stages call
(``evaluate_on_cluster``, ``measure_on_cluster``) run the work after a warm-up of two cells and
two items (plugin checks, imports, tool start-up). Every cluster result must equal the local
one (asserted). Prints, per configuration: wall seconds, cells per second, the cells or items
each worker took, and the machine's load average before and after (the machine is shared).

The memo (``assay.core.memo``) is off: every cell and measurement is computed.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from distributed import Client

from assay.compute import Placed
from assay.compute.measure_cluster import measure_on_cluster
from assay.compute.sandbox_cluster import evaluate_on_cluster
from assay.config.params import Compute
from assay.evidence import CandidateRow
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import load_scenario
from assay.metrics import MeasureItem, Measurement, measure, tool_versions
from assay.metrics.records import by_cell
from assay.pipeline.measure import load_items
from assay.sandbox.cells import request_for
from assay.sandbox.image import ensure_image
from assay.sandbox.parallel import evaluate_many
from assay.sandbox.results import CorrectnessResult, SandboxRequest
from assay.sandbox.selftest import KNOWN_WRONG

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.dask_cluster import dask_cluster  # the tests' own cluster start-up

STARTUP_SECONDS = 180


def candidates(scenario: Scenario) -> list[CandidateRow]:
    rows = []
    for subject in scenario.subjects:
        sources = (subject.task.references.reused, subject.task.references.duplicated, KNOWN_WRONG)
        for arm in subject.arms:
            if arm.sandbox == "skip":
                continue
            for repeat, source in enumerate(sources):
                rows.append(
                    CandidateRow(
                        run="benchmark", cell_id=f"{subject.id}/{arm.name}/r{repeat}",
                        subject=subject.id, arm=arm.name, repeat=repeat, step=1,
                        execution_status="completed", extract_status="code",
                        extraction_version=2, source=source,
                    )
                )  # fmt: skip
    return rows


def shares(placed: Sequence[Placed[object]]) -> dict[str, int]:
    return dict(sorted(collections.Counter(p.worker for p in placed).items()))


def loads(before: tuple[float, float, float]) -> str:
    """The load average (1, 5, 15 min) before and after."""
    return " -> ".join(" / ".join(f"{x:.1f}" for x in t) for t in (before, os.getloadavg()))


def timed(figures: dict[str, object], name: str, count: int, started: float) -> None:
    wall = time.perf_counter() - started
    figures[name] = {"wall_seconds": round(wall, 2), "per_second": round(count / wall, 2)}


def run_cluster(
    workers: int,
    args: argparse.Namespace,
    image: str,
    requests: list[SandboxRequest],
    items: list[MeasureItem],
    figures: dict[str, object],
) -> tuple[list[CorrectnessResult], dict[str, list[Measurement]]]:
    with dask_cluster(
        workers, cwd=ROOT, threads=args.threads, startup_seconds=STARTUP_SECONDS
    ) as address, Client(
        address, set_as_default=False
    ) as client:  # fmt: skip
        compute = Compute(scheduler=address, sandbox_slots_per_worker=args.slots)
        expected = tool_versions()
        evaluate_on_cluster(client, requests[:2], compute, image)  # warm: plugin, imports
        measure_on_cluster(client, items[:2], compute, expected)  # warm: tools' start-up
        load = os.getloadavg()
        started = time.perf_counter()
        placed = evaluate_on_cluster(client, requests, compute, image)
        timed(figures, f"correctness_{workers}_workers", len(requests), started)
        started = time.perf_counter()
        measured = measure_on_cluster(client, items, compute, expected)
        timed(figures, f"measure_{workers}_workers", len(items), started)
        figures[f"placements_{workers}_workers"] = {
            "correctness": shares(placed),
            "measure": shares(measured),
        }
        figures[f"loadavg_{workers}_workers"] = loads(load)
    rows = {item.cell_id: p.value for item, p in zip(items, measured, strict=True)}
    return [p.value for p in placed], rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="v1", help="a scenario of fixtures/ (not codebase)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--threads", type=int, default=2, help="threads per worker")
    parser.add_argument("--slots", type=int, default=2, help="sandbox slots per worker")
    parser.add_argument("--cells", type=int, default=None, help="use the first N cells")
    parser.add_argument("--skip-local", action="store_true", help="no local baseline")
    args = parser.parse_args()
    os.environ["ASSAY_MEMO"] = "off"  # every cell computed; the workers inherit it
    with tempfile.TemporaryDirectory() as work:
        image = ensure_image("standard", Path(work) / "standard.json").image_id
    scenario = load_scenario(args.scenario, ROOT / "fixtures")
    rows = candidates(scenario)[: args.cells]
    requests = [
        request_for(scenario.subject(r.subject), r.arm, r.source or "", image) for r in rows
    ]
    items = load_items(rows, scenario)
    figures: dict[str, object] = {
        "scenario": args.scenario,
        "cells": len(requests),
        "measure_items": len(items),
        "threads_per_worker": args.threads,
        "slots_per_worker": args.slots,
        "cpus": os.cpu_count(),
    }
    local_cells = local_rows = None
    if not args.skip_local:
        evaluate_many(requests[:2], workers=args.slots)  # warm, as the workers are
        measure(items[:2], workers=args.threads)
        load = os.getloadavg()
        started = time.perf_counter()
        local_cells = evaluate_many(requests, workers=args.slots)
        timed(figures, "correctness_local", len(requests), started)
        started = time.perf_counter()
        local_rows = by_cell(measure(items, workers=args.threads))
        timed(figures, "measure_local", len(items), started)
        figures["loadavg_local"] = loads(load)
    for workers in args.workers:
        cells, measured = run_cluster(workers, args, image, requests, items, figures)
        if local_cells is not None:
            assert cells == local_cells, "cluster correctness results differ from local"
        if local_rows is not None:
            assert all(measured[c] == local_rows.get(c, []) for c in measured), "metrics differ"
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
