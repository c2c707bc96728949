"""How long a no-op `dvc repro` takes with five declared runs.

Copies the working tree into a temporary git repository, declares five simulated runs (v1,
dose and placement), runs `dvc repro` once to build everything, then times `dvc repro` again
when nothing changed (every stage skipped but the send stage, which runs on every `dvc repro`
and changes nothing when no run has calls left; the image stage runs only when its recipe
changes).

    uv run python benchmarks/noop_repro.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, check=True).stdout.decode()  # fmt: skip
        for name in filter(None, listed.split("\0")):
            if (ROOT / name).is_file() and not name.endswith("dvc.lock"):
                (repo / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, repo / name)
        params = yaml.safe_load((repo / "params.yaml").read_text())
        params["runs"] = {
            f"sim-{model}-{scenario}": {"model": f"sim-{model}", "scenario": scenario, "repeats": 2}
            for model, scenario in [("follower", "v1"), ("reuser", "v1"), ("duplicator", "v1"),
                                    ("follower", "dose"), ("follower", "placement")]
        }  # fmt: skip
        (repo / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(repo / "src"),
        }
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        started = time.perf_counter()
        subprocess.run(
            [str(BIN / "dvc"), "repro", "-q"], cwd=repo, env=env, check=True, capture_output=True
        )
        first = time.perf_counter() - started
        timings = []
        for _ in range(3):
            started = time.perf_counter()
            out = subprocess.run([str(BIN / "dvc"), "repro"], cwd=repo, env=env, check=True,
                                 capture_output=True, text=True).stdout  # fmt: skip
            timings.append(time.perf_counter() - started)
            ran = [line for line in out.splitlines() if line.startswith("Running stage")]
            # the send stage runs on every `dvc repro` (dvc.yaml: always_changed); nothing after
            # it does, its receipts being the same bytes
            assert ran == ["Running stage 'send':"], ran
    print("runs declared             5")
    print(f"first dvc repro           {first:.1f} s")
    print(
        f"no-op dvc repro           {min(timings):.2f} s (best of 3; all: {', '.join(f'{t:.2f}' for t in timings)})"
    )


if __name__ == "__main__":
    main()
