"""Two revisions of the stage code side by side, stage by stage, in a prepared repository.

    uv run python benchmarks/stage_cpu.py REPO BEFORE AFTER KIND[,KIND...]

REPO is a clone with its own ``.venv`` (``uv sync``) where ``dvc repro`` ran once (every
stage's inputs present); BEFORE and AFTER
are revisions of *this* repository (for example ``main`` and ``HEAD``). For every stage of each
KIND (``selftest`` once per scenario, the other kinds once per run), the stage script runs
directly (``python stages/KIND.py ARG``, as DVC runs it) with REPO's ``src/`` and ``stages/``
taken from BEFORE, then from AFTER, one right after the other, so both meet the same load. The
table gives each kind's CPU seconds (user and system, the stage's child processes included:
what a stage costs a loaded machine) and wall seconds, summed over its stages. Containers run by
the Docker daemon are not the stage's CPU: the self-test's sandbox checks show in wall time only.

At the end ``src/`` and ``stages/`` are restored to REPO's own and ``dvc status`` must find every
output as its lock records it: AFTER wrote each stage's outputs last, so a stage whose outputs
changed is named there. The memo (``assay.core.memo``) is whatever ``ASSAY_MEMO_DIR`` holds; the
figures compare like with like only when both revisions meet the same memo.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CODE = ("src", "stages")


def use(repo: Path, revision: str) -> None:
    """REPO's code folders as they are at ``revision`` of this repository."""
    for folder in CODE:
        shutil.rmtree(repo / folder)
        archive = subprocess.run(["git", "archive", revision, folder], cwd=ROOT, check=True,
                                 capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(repo)], input=archive, check=True)


def restore(repo: Path) -> None:
    subprocess.run(["git", "checkout", "-q", "HEAD", "--", *CODE], cwd=repo, check=True)
    subprocess.run(["git", "clean", "-qfd", "--", *CODE], cwd=repo, check=True)


def run_stage(repo: Path, env: dict[str, str], kind: str, argument: str) -> tuple[float, float]:
    """CPU and wall seconds of one stage script, its outputs written afresh as DVC would."""
    if kind == "export":  # DVC deletes the destination first; export refuses an existing one
        shutil.rmtree(repo / "data" / "export" / argument, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    python = str(repo / ".venv" / "bin" / "python")  # REPO's environment: its src/, not ours
    done = subprocess.run([python, f"stages/{kind}.py", argument], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{kind} {argument} failed:\n{done.stderr[-3000:]}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("kinds")
    args = parser.parse_args()
    repo = args.repo.resolve()
    params = yaml.safe_load((repo / "params.yaml").read_text(encoding="utf-8"))
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    totals: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    counts: dict[str, int] = defaultdict(int)
    print(f"load before {os.getloadavg()[0]:.2f}")
    try:
        for kind in args.kinds.split(","):
            for argument in params["scenarios"] if kind == "selftest" else list(params["runs"]):
                for revision in (args.before, args.after):
                    use(repo, revision)
                    cpu, wall = run_stage(repo, env, kind, argument)
                    totals[(kind, revision)][0] += cpu
                    totals[(kind, revision)][1] += wall
                counts[kind] += 1
    finally:
        restore(repo)
    print(f"load after {os.getloadavg()[0]:.2f}")
    print(f"  {'stage kind':<14}{'stages':>7}  {'CPU s ' + args.before:>16}{args.after:>10}"
          f"  {'wall s ' + args.before:>16}{args.after:>10}")  # fmt: skip
    for kind, count in counts.items():
        before, after = totals[(kind, args.before)], totals[(kind, args.after)]
        print(f"  {kind:<14}{count:>7}  {before[0]:>16.1f}{after[0]:>10.1f}"
              f"  {before[1]:>16.1f}{after[1]:>10.1f}")  # fmt: skip
    status = subprocess.run([str(repo / ".venv" / "bin" / "dvc"), "status", "-q"],
                            cwd=repo, env=env, check=False)  # fmt: skip
    print("outputs as the locks record them" if status.returncode == 0 else
          "OUTPUTS DIFFER from the locks: see `dvc status` in the repository")  # fmt: skip


if __name__ == "__main__":
    main()
