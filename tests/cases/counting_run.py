"""A real process running the execute loop with a counting provider, for crash tests.

usage: counting_run.py LEDGER_ROOT COUNTER_FILE PAID(0|1) HANG_AT(call number, 0 = never)

Every request the provider receives is appended (and fsync'd) to COUNTER_FILE before it
answers; at call HANG_AT it sleeps forever, so the test can kill the process mid-request.
"""

import os
import sys
import time
from pathlib import Path

from assay.config.params import AnalysisPlan, RunSpec
from assay.fixtures.scenarios import load_scenario
from assay.paid.execute import Executor
from assay.paid.ledger import Ledger
from assay.paid.plan import build_plan, request_sizes
from assay.providers.base import ModelProfile, PriceCaps, ProviderResult
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[2]


def make_plan(paid: bool):
    scenario = load_scenario("v1", ROOT / "fixtures")
    prompts = {
        (s.id, a.name): render_input(s, a, "v1").text for s in scenario.subjects for a in s.arms
    }
    if paid:
        profile = ModelProfile(
            provider="openai-compatible",
            model="counting",
            base_url="http://127.0.0.1:9",
            price_caps=PriceCaps(prompt=0.25, completion=1.25),
            reservation_usd=0.06,
            ceiling_usd=2.88,
        )
    else:
        profile = ModelProfile(
            provider="openai-compatible", model="counting", base_url="http://127.0.0.1:9"
        )
    plan = build_plan(
        run_id="crash",
        run=RunSpec(model="counting", scenario="v1"),
        profile=profile,
        scenario=scenario,
        fixture_sources="0" * 64,
        prompts=request_sizes(prompts, lambda p: len(p.encode())),
        analysis=AnalysisPlan(),
        tools={},
    )
    return plan, prompts


class CountingProvider:
    def __init__(self, counter: Path, hang_at: int) -> None:
        self.counter = counter
        self.hang_at = hang_at
        self.calls = 0

    def complete(self, request):
        self.calls += 1
        with self.counter.open("a") as handle:
            handle.write(str(request.key) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        if self.calls == self.hang_at:
            time.sleep(3600)
        text = "```python\ndef implement(value):\n    return value\n```"
        return ProviderResult(status="completed", text=text, raw=text.encode(), cost_usd=0.001)


if __name__ == "__main__":
    ledger_root, counter, paid, hang_at = (
        Path(sys.argv[1]),
        Path(sys.argv[2]),
        sys.argv[3] == "1",
        int(sys.argv[4]),
    )
    plan, prompts = make_plan(paid)
    ledger = Ledger.open(ledger_root, plan.run, plan.hash, paid=paid)
    records = Executor(plan, ledger, prompts, lambda: CountingProvider(counter, hang_at)).run()
    for record in records:
        print(record.cell_id, record.status)
