"""How long the effect size takes (assay.science.effect.sign_flip_effect) at the sizes that
decide its method: full enumeration at 12 and at 20 subjects (the limit: 2^20 sign patterns and
2^20 subset means), and the seeded Monte Carlo path (100,000 patterns) at 21 and 40 subjects.

Reports the fastest and the median of REPEATS runs, and the process CPU time of the fastest: on
a loaded machine the median measures the load.

    uv run python benchmarks/effect.py
"""

from __future__ import annotations

import statistics
import time
from fractions import Fraction

from assay.science.effect import sign_flip_effect

REPEATS = 7


def differences(n: int) -> list[Fraction]:
    """``n`` rate differences over two repeats, none zero (every subject flips)."""
    cycle = [Fraction(1), Fraction(1, 2), Fraction(-1, 2), Fraction(1), Fraction(-1)]
    return [cycle[i % len(cycle)] for i in range(n)]


def main() -> None:
    print("| subjects | method | fastest (s) | median (s) | CPU of fastest (s) |")
    print("|---|---|---|---|---|")
    for n in (12, 20, 21, 40):
        values = differences(n)
        walls, cpus = [], []
        for _ in range(REPEATS):
            wall, cpu = time.perf_counter(), time.process_time()
            result = sign_flip_effect(values)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        method = "Monte Carlo" if result.draws else "enumeration"
        fastest = min(range(REPEATS), key=walls.__getitem__)
        print(
            f"| {n} | {method} | {walls[fastest]:.3f} | {statistics.median(walls):.3f} | "
            f"{cpus[fastest]:.3f} |"
        )


if __name__ == "__main__":
    main()
