"""How long the codebase scenarios take to prepare: snapshot, subjects, prompts, self-test.

Times, on this machine:

- the snapshot from the cached sdists (every slice of ``fixtures/codebase/sources.toml``);
- building the three codebase scenarios from it;
- the largest and smallest rendered prompt;
- with ``--selftest``, the sandbox self-test of ``codebase`` in the packages image (needs the
  Docker engine and ``data/image/packages.json``, i.e. ``dvc repro image`` first).

Pre-fetch first (``uv run python -m assay.fixtures.snapshot --fetch-only``): this script never fetches.

    uv run python benchmarks/codebase_snapshot.py [--selftest]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from assay.fixtures import snapshot
from assay.fixtures.codebase import SCENARIO_NAMES, build
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        start = time.perf_counter()
        slices = snapshot.run(ROOT / snapshot.SOURCES_FILE, out)
        print(
            f"snapshot of {len(slices)} slices from the cache: {time.perf_counter() - start:.1f} s"
        )
        start = time.perf_counter()
        scenarios = {name: build(name, ROOT / "fixtures", out)[0] for name in SCENARIO_NAMES}
        print(f"three codebase scenarios built: {time.perf_counter() - start:.1f} s")
        sizes = [
            len(render_input(subject, arm.name, "layered").text.encode())
            for scenario in scenarios.values()
            for subject in scenario.subjects
            for arm in subject.arms
        ]
        print(f"prompts: {min(sizes) / 1024:.0f}-{max(sizes) / 1024:.0f} KiB")
        if "--selftest" in argv:
            from assay.pipeline.selftest import read_image
            from assay.sandbox.selftest import run_selftest

            image = read_image("packages").image_id
            start = time.perf_counter()
            report = run_selftest(scenarios["codebase"].subjects, image)
            elapsed = time.perf_counter() - start
            print(f"self-test of codebase: {report.checks} checks, {len(report.failures)} "
                  f"failures, {elapsed:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
