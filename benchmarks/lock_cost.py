"""What DVC's lock files cost a `dvc repro`: after every stage it runs, DVC reads that stage's
whole dvc.lock for update (ruamel.yaml's round-trip parser, which keeps comments and layout) and
writes it back, so each stage pays for every line of the lock file it shares with its file's
other stages.

    uv run python benchmarks/lock_cost.py [REPOSITORY]     (default: this checkout)

For each dvc.lock of the repository (the root and pipeline/*/dvc.lock), with DVC's own functions
(``parse_yaml_for_update`` and ``dumps_yaml``, the pair its lock-file dump runs): its lines, its
stages, the best of three read-and-write times, and that time multiplied by its stages: what a
`dvc repro` that runs every stage (a fresh clone) spends on that file's rewrites. The lock files
are only read; nothing is written. Run it on a study's clone (``benchmarks/study.py --keep DIR``)
to see the lock files as a whole study leaves them.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from dvc.utils.serialize._yaml import dumps_yaml, parse_yaml_for_update

ROOT = Path(__file__).resolve().parents[1]


def rewrite_seconds(path: Path, tries: int = 3) -> tuple[int, int, float]:
    """(lines, stages, best seconds of one read-for-update and write) of one lock file."""
    text = path.read_text(encoding="utf-8")
    best, stages = float("inf"), 0
    for _ in range(tries):
        started = time.perf_counter()
        data = parse_yaml_for_update(text, str(path))
        dumps_yaml(data)
        best = min(best, time.perf_counter() - started)
        stages = len(data.get("stages") or {})
    return len(text.splitlines()), stages, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", nargs="?", type=Path, default=ROOT)
    repository = parser.parse_args().repository.resolve()
    locks = [repository / "dvc.lock", *sorted(repository.glob("pipeline/*/dvc.lock"))]
    total_stages, total_seconds = 0, 0.0
    print(f"{'lock file':32} {'lines':>6} {'stages':>6} {'s/write':>8} {'s/repro':>8}")
    for lock in (path for path in locks if path.is_file()):
        lines, stages, seconds = rewrite_seconds(lock)
        total_stages += stages
        total_seconds += seconds * stages
        name = lock.relative_to(repository).as_posix()
        print(f"{name:32} {lines:6d} {stages:6d} {seconds:8.3f} {seconds * stages:8.1f}")
    print(f"{'every stage once':32} {'':6} {total_stages:6d} {'':8} {total_seconds:8.1f}")


if __name__ == "__main__":
    main()
