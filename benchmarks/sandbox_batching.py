"""Several candidates per container against one container per candidate, side by side.

    uv run python benchmarks/sandbox_batching.py [--scenario dose] [--rounds 2]

The requests are a scenario's self-test (every sandboxed arm × both references, plus the
known-wrong implementation once per subject), run through ``assay.sandbox.evaluate_many`` on
the default workers, alternately with ``MAX_BATCH = 1`` (one container per candidate, the way
before batching) and with the default batch size. Both must give the same statuses. Prints the
best wall time of each and the ratio, and the load average (other processes share the cores).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from assay.fixtures.scenarios import image_kind, load_scenario
from assay.sandbox import parallel
from assay.sandbox.cells import request_for
from assay.sandbox.image import ensure_image
from assay.sandbox.selftest import KNOWN_WRONG

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="dose")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        kind = image_kind(args.scenario)
        image = ensure_image(kind, Path(work) / f"{kind}.json").image_id  # type: ignore[arg-type]
    requests = []
    for subject in load_scenario(args.scenario, FIXTURES).subjects:
        arms = [arm for arm in subject.arms if arm.sandbox != "skip"]
        for index, arm in enumerate(arms):
            sources = [subject.task.references.reused, subject.task.references.duplicated]
            for source in sources + ([KNOWN_WRONG] if index == 0 else []):
                requests.append(request_for(subject, arm.name, source, image))
    workers = parallel.default_workers()
    default_batch = parallel.MAX_BATCH
    best: dict[int, float] = {}
    statuses: dict[int, list[str]] = {}
    print(f"{args.scenario}: {len(requests)} requests, {workers} workers, load {os.getloadavg()}")
    for _ in range(args.rounds):
        for batch in (1, default_batch):
            parallel.MAX_BATCH = batch
            started = time.perf_counter()
            results = parallel.evaluate_many(requests, workers=workers)
            elapsed = time.perf_counter() - started
            best[batch] = min(best.get(batch, elapsed), elapsed)
            statuses[batch] = [result.status for result in results]
            print(f"  batch {batch:2d}: {elapsed:6.1f} s")
    parallel.MAX_BATCH = default_batch
    assert statuses[1] == statuses[default_batch], "batching changed a status"
    print(f"one container per candidate  {best[1]:.1f} s ({best[1] / len(requests):.3f} s each)")
    print(f"up to {default_batch} per container     {best[default_batch]:.1f} s "
          f"({best[default_batch] / len(requests):.3f} s each)")  # fmt: skip
    print(f"ratio                        {best[1] / best[default_batch]:.2f}x; "
          f"load after {os.getloadavg()}")  # fmt: skip


if __name__ == "__main__":
    main()
