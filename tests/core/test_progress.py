"""Progress under a log (stderr not a TTY, as under ``dvc repro`` in CI): plain lines with
done/total, rate and ETA, throttled, never carriage returns."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.process  # the log is read from a child process

SCRIPT = """
import time
from assay.core.progress import progress
with progress(40, "correctness demo") as bar:
    for _ in range(40):
        time.sleep(0.05)
        bar.update()
"""


def _run(interval: str) -> str:
    env = {**os.environ, "ASSAY_PROGRESS_INTERVAL": interval}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True,
        timeout=60,
    )  # fmt: skip
    assert done.stdout == ""
    return done.stderr


def test_log_lines_carry_count_rate_and_eta_without_carriage_returns() -> None:
    log = _run("0.5")
    assert "\r" not in log
    lines = log.splitlines()
    assert lines[0].startswith("correctness demo:") and "0/40" in lines[0]
    assert "40/40" in lines[-1]
    middle = [line for line in lines if re.search(r"\b([1-9]|[1-3]\d)/40\b", line)]
    assert middle, log
    assert all(
        re.search(r"\[\d\d:\d\d<\d\d:\d\d, +[\d.]+(cell/s|s/cell)\]", line) for line in middle
    )


def test_log_is_throttled() -> None:
    # 40 updates over ~2 s at one line per 10 s: the first and the last line only
    lines = _run("10").splitlines()
    assert 2 <= len(lines) <= 3, lines
