"""What the execute loop adds per cell over the provider's own latency.

Runs the 144-cell dose plan with the simulated model twice in one process: the provider alone
(the naive lower bound: no ledger, no admission) and the full execute loop (admission,
write-ahead intent and outcome with fsync, content-addressed bodies). Prints the per-cell
difference. The issue's goal: under 10 ms per cell.

    uv run python benchmarks/execute_overhead.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from assay.config.params import AnalysisPlan, RunSpec
from assay.fixtures.scenarios import load_scenario
from assay.paid.execute import Executor
from assay.paid.ledger import Ledger
from assay.paid.plan import build_plan, request_sizes
from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.simulated import SimulatedProvider, answer_book
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    scenario = load_scenario("dose", ROOT / "fixtures")
    prompts = {
        (s.id, a.name): render_input(s, a, scenario.prompt_profile).text
        for s in scenario.subjects
        for a in s.arms
    }
    profile = ModelProfile(provider="simulated", model="sim-follower")
    plan = build_plan(
        run_id="bench", run=RunSpec(model="sim", scenario="dose", schedule="subject-rotated-v1"),
        profile=profile, scenario=scenario, fixture_sources="0" * 64, prompts=request_sizes(prompts, lambda p: len(p.encode())),
        analysis=AnalysisPlan(), tools={},
    )  # fmt: skip
    book = answer_book(scenario.subjects)
    cells = plan.cells

    provider = SimulatedProvider(profile, book)
    started = time.perf_counter()
    for cell in cells:
        provider.complete(
            ProviderRequest(key=f"{cell.cell_id}#1", prompt=prompts[(cell.subject, cell.arm)])
        )
    provider_only = (time.perf_counter() - started) / len(cells)

    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger.open(Path(tmp), plan.run, plan.hash, paid=False)
        started = time.perf_counter()
        records = Executor(plan, ledger, prompts, lambda: SimulatedProvider(profile, book)).run()
        full = (time.perf_counter() - started) / len(cells)
    assert len(records) == len(cells) and all(r.status == "completed" for r in records)

    print(f"cells                     {len(cells)}")
    print(f"provider alone            {provider_only * 1000:.2f} ms/cell")
    print(f"execute loop (full)       {full * 1000:.2f} ms/cell")
    print(f"overhead of execute       {(full - provider_only) * 1000:.2f} ms/cell (goal < 10 ms)")


if __name__ == "__main__":
    main()
