"""How the local server's OpenMP threads wait (assay.local.waiting): the choice by free cores (a
case table), the environment it gives, and the machine's own counters (what the managed server
is started with: tests/providers/test_local_provider.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from assay.local.waiting import SPIN_COUNT, idle_cores, openmp_environment, spins, with_openmp

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "waiting.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['threads']}-{c['choice']}-{c['idle']}")
def test_spins_only_with_a_free_core_per_thread(case: dict) -> None:
    assert spins(case["threads"], case["choice"], idle=case["idle"]) is case["spins"]


def test_an_unknown_choice_is_refused() -> None:
    with pytest.raises(ValueError, match="ASSAY_LOCAL_SPIN must be auto, on or off"):
        spins(2, "sometimes", idle=2.0)


def test_the_environment_names_the_threads_and_spins_only_when_chosen() -> None:
    assert openmp_environment(2, "off") == {"OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": "2"}
    assert openmp_environment(3, "on") == {
        "OMP_WAIT_POLICY": "PASSIVE",
        "OMP_NUM_THREADS": "3",
        "GOMP_SPINCOUNT": SPIN_COUNT,
    }


def test_the_callers_busy_wait_is_never_passed_on() -> None:
    caller = {"PATH": "/usr/bin", "GOMP_SPINCOUNT": "300000", "OMP_NUM_THREADS": "8"}
    assert with_openmp(openmp_environment(2, "off"), caller) == {
        "PATH": "/usr/bin",
        "OMP_WAIT_POLICY": "PASSIVE",
        "OMP_NUM_THREADS": "2",
    }


@pytest.mark.process  # a second process keeps one core busy
def test_idle_cores_sees_another_process_busy_but_not_this_one() -> None:
    cores = len(os.sched_getaffinity(0))  # the cores this process may run on
    quiet = idle_cores(0.3)
    assert 0.0 <= quiet <= cores
    stop = time.monotonic() + 1.0

    def burn() -> None:
        while time.monotonic() < stop:
            pass

    # this process's own work (the send stage's other runs) is not other work
    own = threading.Thread(target=burn)
    own.start()
    try:
        beside_own = idle_cores(0.3)
    finally:
        own.join()
    assert beside_own >= quiet - 0.5, (quiet, beside_own)
    # another process spinning takes most of a core from what stands idle
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.1)
        beside_other = idle_cores(0.3)
    finally:
        hog.kill()
        hog.wait()
    assert beside_other <= cores - 0.5, (quiet, beside_other)


def test_unreadable_counters_mean_no_free_core(tmp_path: Path) -> None:
    assert idle_cores(0.0, stat=tmp_path / "missing") == 0.0
    bad = tmp_path / "stat"
    bad.write_text("intr 1 2 3\n")
    assert idle_cores(0.0, stat=bad) == 0.0
