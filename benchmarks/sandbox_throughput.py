"""Throughput of the correctness work on 48 cells using every core.

    uv run python benchmarks/sandbox_throughput.py [--workers N]

The 48 cells are the v1 scenario's 12 subjects × 2 arms × 2 reference implementations (each
with all of its task's vectors), run through ``assay.sandbox.evaluate_many``; all must be
correct. Prints wall time, cells per second and seconds per cell.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from assay.fixtures.scenarios import load_scenario
from assay.sandbox import SandboxRequest, evaluate_many
from assay.sandbox.image import ensure_image

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        image = ensure_image("standard", Path(work) / "standard.json").image_id
    scenario = load_scenario("v1", FIXTURES)
    requests = [
        SandboxRequest(
            files=arm.files,
            target=subject.target,
            candidate=source,
            cases=tuple(v.input for v in subject.task.vectors),
            expected=tuple(v.expected for v in subject.task.vectors),
            profile="standard" if arm.sandbox == "skip" else arm.sandbox,
            image=image,
        )
        for subject in scenario.subjects
        for arm in subject.arms
        for source in (subject.task.references.reused, subject.task.references.duplicated)
    ][:48]
    started = time.perf_counter()
    results = evaluate_many(requests, workers=args.workers)
    wall = time.perf_counter() - started
    statuses = sorted({r.status for r in results})
    print(
        json.dumps(
            {
                "cells": len(requests),
                "cases": sum(len(r.cases) for r in requests),
                "workers": args.workers,
                "wall_seconds": round(wall, 2),
                "cells_per_second": round(len(requests) / wall, 2),
                "seconds_per_cell": round(wall / len(requests), 3),
                "statuses": statuses,
            }
        )
    )


if __name__ == "__main__":
    main()
