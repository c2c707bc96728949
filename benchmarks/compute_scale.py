"""The correctness work on 1 and 2 Dask workers, and the distributed path's per-cell overhead.

    uv run python benchmarks/compute_scale.py [--scenario v1] [--slots 2] [--repeat 1] [--cells N]

Cells: the scenario's references (both) and a known-wrong implementation on every sandboxed arm
(v1: 72 cells, dose: 198). Runs them (a) locally on ``slots`` threads, (b) on a
``LocalCluster`` of one worker process with ``slots`` sandbox slots, (c) on two such workers;
every run's results must equal the local ones. Prints wall times, the 2-vs-1 worker ratio, the
per-cell overhead of (b) against (a) (same concurrency, so the difference is Dask: connecting,
plugin checks, task submission, pickling, gathering), and the machine's load average before
and after, since this machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from distributed import Client, LocalCluster

from assay.compute.sandbox_cluster import evaluate_on_cluster
from assay.config.params import Compute
from assay.fixtures.scenarios import load_scenario
from assay.sandbox.cells import request_for
from assay.sandbox.image import ensure_image
from assay.sandbox.parallel import evaluate_many
from assay.sandbox.selftest import KNOWN_WRONG

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=2, help="sandbox slots per worker")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per configuration")
    parser.add_argument("--cells", type=int, default=None, help="use the first N cells")
    parser.add_argument("--scenario", default="v1", help="a scenario of fixtures/ (not codebase)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        image = ensure_image("standard", Path(work) / "standard.json").image_id
    scenario = load_scenario(args.scenario, FIXTURES)
    requests = [
        request_for(subject, arm.name, source, image)
        for subject in scenario.subjects
        for arm in subject.arms
        if arm.sandbox != "skip"
        for source in (
            subject.task.references.reused,
            subject.task.references.duplicated,
            KNOWN_WRONG,
        )
    ][: args.cells]
    load_before = os.getloadavg()
    figures: dict[str, float] = {}
    baseline = None
    for _ in range(args.repeat):
        started = time.perf_counter()
        baseline = evaluate_many(requests, workers=args.slots)
        figures["local"] = min(figures.get("local", 1e9), time.perf_counter() - started)
    compute = Compute(scheduler="tcp://127.0.0.1:1", sandbox_slots_per_worker=args.slots)
    for workers in (1, 2):
        with LocalCluster(
            n_workers=workers, threads_per_worker=args.slots, processes=True,
            host="127.0.0.1", dashboard_address=":0",
        ) as cluster, Client(cluster, set_as_default=False) as client:  # fmt: skip
            evaluate_on_cluster(client, requests[:2], compute, image)  # warm: plugin, imports
            for _ in range(args.repeat):
                started = time.perf_counter()
                placed = evaluate_on_cluster(client, requests, compute, image)
                wall = time.perf_counter() - started
                figures[f"workers_{workers}"] = min(figures.get(f"workers_{workers}", 1e9), wall)
                assert [p.value for p in placed] == baseline, "cluster results differ from local"
    cells = len(requests)
    print(
        json.dumps(
            {
                "cells": cells,
                "slots_per_worker": args.slots,
                "cpus": os.cpu_count(),
                "wall_seconds": {k: round(v, 2) for k, v in figures.items()},
                "seconds_per_cell": {k: round(v / cells, 3) for k, v in figures.items()},
                "ratio_2_vs_1_workers": round(figures["workers_1"] / figures["workers_2"], 2),
                "overhead_per_cell_ms_1_worker_vs_local": round(
                    1000 * (figures["workers_1"] - figures["local"]) / cells, 1
                ),
                "loadavg_before": [round(x, 1) for x in load_before],
                "loadavg_after": [round(x, 1) for x in os.getloadavg()],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
