"""Speed of ``assay measure``: the fast batch path against the naive way, side by side in one run.

Outputs are generated from the v1 fixtures: each subject's reference implementations (reused and
duplicated) as changes to both arms, made distinct by a variant comment and, for every third
output, an extra import. The fast path measures all of them; the naive way (every tool as a
fresh process per output, before and after) is measured on an evenly spaced sample and its
per-output cost extrapolated to the whole set. The sample's rows are compared between the paths.

    uv run python benchmarks/measure_speed.py [--outputs 1000] [--naive-sample 30] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from assay.fixtures.scenarios import load_scenario
from assay.metrics import MeasureItem, measure
from assay.metrics.naive import measure_naive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def v1_outputs(count: int) -> list[MeasureItem]:
    scenario = load_scenario("v1", FIXTURES)
    combos = [
        (subject, arm, reference)
        for subject in scenario.subjects
        for arm in subject.arms
        for reference in (subject.task.references.reused, subject.task.references.duplicated)
    ]
    items: list[MeasureItem] = []
    for index in range(count):
        subject, arm, reference = combos[index % len(combos)]
        extra_import = "import re\n" if index % 3 == 0 else ""
        candidate = f"{extra_import}# variant {index}\n{reference}"
        items.append(
            MeasureItem(
                cell_id=f"bench-{index:05d}",
                repo_key=subject.arm_digest(arm.name),
                files=arm.files,
                target=subject.target,
                candidate=candidate,
            )
        )
    return items


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=1000)
    parser.add_argument("--naive-sample", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    items = v1_outputs(args.outputs)
    step = max(1, len(items) // args.naive_sample)
    sample = items[::step][: args.naive_sample]
    print(f"machine: {os.cpu_count()} cores; outputs: {len(items)}; naive sample: {len(sample)}")

    started = time.perf_counter()
    rows = measure(items, workers=args.workers)
    fast_seconds = time.perf_counter() - started
    missing = sum(1 for row in rows if row.missing_reason)
    print(
        f"fast path: {fast_seconds:.1f} s for {len(items)} outputs "
        f"({1000 * fast_seconds / len(items):.1f} ms per output), {len(rows)} rows, {missing} missing"
    )

    started = time.perf_counter()
    naive_rows = measure_naive(sample)
    naive_seconds = time.perf_counter() - started
    naive_per_output = naive_seconds / len(sample)
    naive_extrapolated = naive_per_output * len(items)
    print(
        f"naive way: {naive_seconds:.1f} s for {len(sample)} outputs ({naive_per_output:.2f} s per output); "
        f"extrapolated to {len(items)} outputs: {naive_extrapolated:.0f} s"
    )
    print(f"speed-up: {naive_extrapolated / fast_seconds:.1f}x")

    sample_cells = {item.cell_id for item in sample}
    fast_sample_rows = [row for row in rows if row.cell_id in sample_cells]
    same = fast_sample_rows == naive_rows
    print(f"sample rows identical between the paths: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
