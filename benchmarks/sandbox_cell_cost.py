"""Cost of one correctness cell against a bare container start on the same machine.

    uv run python benchmarks/sandbox_cell_cost.py [--repeats N]

Bare: ``docker run --rm --network none IMAGE python3 -c pass`` (the Docker CLI, as a person
would measure it). Cell: ``assay.sandbox.evaluate`` of a correct three-case candidate (create,
attach, start, supervisor, three child Pythons, forced removal). Prints medians and the ratio;
the target is a ratio under 2.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from assay.fixtures.model import SourceFile
from assay.sandbox import SandboxRequest, evaluate
from assay.sandbox.image import ensure_image

FILES = (
    SourceFile(path="pkg/helpers.py", text="def double(x):\n    return x * 2\n"),
    SourceFile(path="pkg/target.py", text="from pkg.helpers import double\n"),
)
RIGHT = "def implement(value):\n    return double(value) + 1\n"


def timed(action: object) -> float:
    started = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        image = ensure_image("standard", Path(work) / "standard.json").image_id
    bare_command = ["docker", "run", "--rm", "--network", "none", image, "python3", "-c", "pass"]
    request = SandboxRequest(
        files=FILES,
        target="pkg/target.py",
        candidate=RIGHT,
        cases=(1, 2, 3),
        expected=(3, 5, 7),
        image=image,
    )

    def bare() -> None:
        subprocess.run(bare_command, check=True, capture_output=True)

    def cell() -> None:
        assert evaluate(request).status == "correct"

    bare(), cell()  # warm caches
    bare_times, cell_times = [], []
    for _ in range(args.repeats):  # interleaved, so load drifts hit both alike
        bare_times.append(timed(bare))
        cell_times.append(timed(cell))
    bare_median = statistics.median(bare_times)
    cell_median = statistics.median(cell_times)
    print(
        json.dumps(
            {
                "repeats": args.repeats,
                "bare_docker_run_seconds_median": round(bare_median, 3),
                "cell_seconds_median": round(cell_median, 3),
                "cell_over_bare": round(cell_median / bare_median, 2),
                "bare_min": round(min(bare_times), 3),
                "cell_min": round(min(cell_times), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
