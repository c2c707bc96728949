"""What the paid-run guard costs before the first request: re-deciding the authorization,
checking the ledger token and location, and rebuilding the plan to compare hashes.

Uses the dose scenario (144 cells) with the seed's Haiku profile and a ceiling that admits all
of them. The rebuild here starts from fixtures already rendered in memory; the execute stage's
rebuild (``make_plan``) also reads the scenario's Parquet tables.

    uv run python benchmarks/paid_guard.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from assay.config.params import AnalysisPlan, RunSpec
from assay.fixtures.scenarios import load_scenario
from assay.paid.authorize import check_spendable, decide, issue_token
from assay.paid.ledger import Ledger
from assay.paid.plan import build_plan, request_sizes
from assay.providers.base import ModelProfile, PriceCaps
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 20


def main() -> None:
    scenario = load_scenario("dose", ROOT / "fixtures")
    prompts = {
        (s.id, a.name): render_input(s, a, scenario.prompt_profile).text
        for s in scenario.subjects
        for a in s.arms
    }
    profile = ModelProfile(
        provider="openrouter", model="anthropic/claude-3-haiku", provider_pin="amazon-bedrock",
        price_caps=PriceCaps(prompt=0.25, completion=1.25), reservation_usd=0.06,
        ceiling_usd=8.64, api_key_env="OPENROUTER_API_KEY",
    )  # fmt: skip
    spec = RunSpec(model="haiku", scenario="dose", schedule="subject-rotated-v1")

    def plan_now():
        return build_plan(
            run_id="bench", run=spec, profile=profile, scenario=scenario,
            fixture_sources="0" * 64, prompts=request_sizes(prompts, lambda p: len(p.encode())),
            analysis=AnalysisPlan(), tools={},
        )  # fmt: skip

    plan = plan_now()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        token = issue_token(plan, spec, root=root, ledger_root="ledger")
        authorized = spec.model_copy(
            update={
                "allow_paid": True,
                "authorization": plan.hash,
                "plan_ref": plan.hash,
                "authorization_token": token,
            }
        )
        started = time.perf_counter()
        for _ in range(REPEATS):
            decide(plan, authorized)
            ledger = Ledger.at(root, plan.run, plan.hash)
            check_spendable(plan, authorized, ledger, ledger.state(), ledger_root="ledger")
        checks = (time.perf_counter() - started) / REPEATS
        started = time.perf_counter()
        for _ in range(REPEATS):
            assert plan_now().hash == plan.hash
        rebuild = (time.perf_counter() - started) / REPEATS

    print(f"cells                         {len(plan.cells)}")
    print(f"authorization + ledger token  {checks * 1000:.2f} ms")
    print(f"plan rebuild + hash compare   {rebuild * 1000:.2f} ms")


if __name__ == "__main__":
    main()
