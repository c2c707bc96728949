"""How the local server's OpenMP threads wait at the barriers of llama.cpp's graph.

llama.cpp meets an OpenMP barrier after every operation of a token's graph (hundreds a token). A
thread that sleeps at once at each (``OMP_WAIT_POLICY=PASSIVE``) pays a wake-up every time; one
that first busy-waits a little (``GOMP_SPINCOUNT``) mostly does not, and generates about a third
faster on cores it has to itself (docs/local-models.md, Threads). On cores shared with other
work the same spinning takes time from that work and from the other thread: slower than
sleeping. So the server spins only when, at its start, a core it may run on is free for each of
its threads (those cores' counters in ``/proc/stat``, sampled for a quarter of a second), and
sleeps otherwise. The
caller's own work does not count against it (the send stage starts a local run's server while
its threads still send the simulated runs, done seconds later): only other processes' does.

How threads wait never changes an answer: every operation computes the same values whichever
thread runs it and however long the others waited. ``ASSAY_LOCAL_SPIN`` = ``on`` or ``off``
fixes the choice; ``auto`` (the default) samples.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

SPIN_COUNT = "2000"
"""libgomp's busy-wait before an idle thread sleeps: 2,000 spins, tens of microseconds (0 with
``OMP_WAIT_POLICY=PASSIVE`` alone)."""
SAMPLE_SECONDS = 0.25
FREE_MARGIN = 0.2
"""A core counts as free when no more than this share of it is busy."""


def idle_cores(sample_seconds: float = SAMPLE_SECONDS, stat: Path = Path("/proc/stat")) -> float:
    """How many of the cores this process may run on other processes left idle over
    ``sample_seconds`` (their CPU counters, with this process's own CPU time counted as idle);
    0 where they cannot be read, so nothing spins."""
    cores = os.sched_getaffinity(0)
    try:
        first, own = _cpu_times(stat, cores), time.process_time()
        time.sleep(sample_seconds)
        second, own = _cpu_times(stat, cores), time.process_time() - own
    except (OSError, ValueError, IndexError):
        return 0.0
    total = sum(second) - sum(first)
    if total <= 0:
        return 0.0
    idle = (second[3] + second[4]) - (first[3] + first[4])  # idle and iowait
    ticks = own * os.sysconf("SC_CLK_TCK")
    return min(len(cores), len(cores) * (idle + ticks) / total)


def _cpu_times(stat: Path, cores: set[int]) -> list[int]:
    """The first eight counters (user … steal) summed over ``cores``' lines of ``stat``."""
    summed = [0] * 8
    found = 0
    for line in stat.read_text().splitlines():
        name, *values = line.split()
        if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cores:
            summed = [a + int(b) for a, b in zip(summed, values[:8], strict=True)]
            found += 1
    if found != len(cores):
        raise ValueError(f"{stat} lacks the counters of some of cores {sorted(cores)}")
    return summed


def spins(threads: int, choice: str, idle: float | None = None) -> bool:
    """Whether a server of ``threads`` threads busy-waits: ``on``/``off`` as asked; ``auto``
    when a core stands free for each thread (``idle`` cores, sampled when not given)."""
    if choice == "on":
        return True
    if choice == "off":
        return False
    if choice != "auto":
        raise ValueError(f"ASSAY_LOCAL_SPIN must be auto, on or off, not {choice!r}")
    free = idle_cores() if idle is None else idle
    return free >= threads - FREE_MARGIN


def openmp_environment(threads: int, choice: str | None = None) -> dict[str, str]:
    """The OpenMP variables of a server of ``threads`` threads (``choice``: ``ASSAY_LOCAL_SPIN``
    when not given)."""
    env = {"OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": str(threads)}
    if spins(threads, os.environ.get("ASSAY_LOCAL_SPIN", "auto") if choice is None else choice):
        env["GOMP_SPINCOUNT"] = SPIN_COUNT
    return env


def with_openmp(openmp: Mapping[str, str], base: Mapping[str, str] = os.environ) -> dict[str, str]:
    """``base`` (the caller's environment) with ``openmp`` in place of its OpenMP settings: a
    ``GOMP_SPINCOUNT`` the caller carries is dropped, so only :func:`spins` decides it."""
    return {**{k: v for k, v in base.items() if k != "GOMP_SPINCOUNT"}, **openmp}
