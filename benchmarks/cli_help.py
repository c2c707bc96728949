"""How long `assay --help` and every subcommand's `--help` take, as a user runs them.

Runs the installed entry point (`.venv/bin/assay`, what `uv run assay` execs) REPEATS times per
command and reports the fastest and the median wall time and the CPU time (user + system) of the
fastest run; the target is under 0.3 s. On a loaded machine the median wall time measures the
load; the fastest and the CPU time measure assay. Also reports `uv run assay --help`, which adds
uv's own start-up.

    uv run python benchmarks/cli_help.py
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_cli import PATHS  # the command paths the tests cover

REPEATS = 7
TARGET_SECONDS = 0.3
ASSAY = str(Path(sys.executable).parent / "assay")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[list[float], float]:
    """Wall times of every run, and the CPU time of the least CPU-hungry run."""
    times, cpus = [], []
    for _ in range(REPEATS):
        cpu, start = _cpu(), time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    return times, min(cpus)


def row(label: str, times: list[float], cpu: float) -> str:
    return f"{label:<34} {min(times):>7.3f}s {statistics.median(times):>7.3f}s {cpu:>7.3f}s"


def main() -> int:
    print(f"{'command':<34} {'fastest':>8} {'median':>8} {'cpu':>8}")
    worst = 0.0
    for path in PATHS:
        times, cpu = timed([ASSAY, *path, "--help"])
        worst = max(worst, min(times))
        print(row("assay " + " ".join(path) + " --help", times, cpu))
    if shutil.which("uv"):
        print(row("uv run assay --help", *timed(["uv", "run", "--frozen", "assay", "--help"])))
    verdict = "under" if worst < TARGET_SECONDS else "OVER"
    print(f"slowest fastest-of-{REPEATS}: {worst:.3f}s ({verdict} the {TARGET_SECONDS} s target)")
    return 0 if worst < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
