"""The chain scenario run for tests of its later steps: its first subjects with their prompt rows
and prompts, a chain plan of them, and a simulated provider that keeps every prompt it is sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.config.params import AnalysisPlan, RunSpec
from assay.evidence import PromptRow
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import load_scenario
from assay.paid.plan import Plan, build_plan, request_sizes
from assay.pipeline.render import prompt_rows
from assay.providers.base import ModelProfile, ProviderRequest, ProviderResult
from assay.providers.simulated import SimulatedProvider

ROOT = Path(__file__).resolve().parents[1]


class Recording(SimulatedProvider):
    """The simulated model, keeping the prompt of every call by its call key."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.prompts: dict[str, str] = {}

    def complete(self, request: ProviderRequest) -> ProviderResult:
        self.prompts[str(request.key)] = request.prompt
        return super().complete(request)


def chain_scenario(
    subjects: int,
) -> tuple[Scenario, dict[tuple[str, str], PromptRow], dict[tuple[str, str], str]]:
    """The chain scenario's first ``subjects`` subjects, their prompt rows and their first
    steps' prompts, each by (subject, arm)."""
    scenario = load_scenario("chain", ROOT / "fixtures")
    scenario = scenario.model_copy(update={"subjects": scenario.subjects[:subjects]})
    rows = {(r.subject, r.arm): r for r in prompt_rows(scenario)}
    return scenario, rows, {key: row.prompt for key, row in rows.items()}


def chain_plan(
    scenario: Scenario,
    prompts: dict[tuple[str, str], str],
    profile: ModelProfile,
    repeats: int = 1,
    analysis: AnalysisPlan | None = None,
) -> Plan:
    """The plan of a run of ``scenario`` by ``profile`` (declared as model ``profile.model``)."""
    return build_plan(
        run_id="chain",
        run=RunSpec(model=profile.model, scenario="chain", repeats=repeats),
        profile=profile,
        scenario=scenario,
        fixture_sources="0" * 64,
        prompts=request_sizes(prompts, lambda p: len(p.encode())),
        analysis=analysis or AnalysisPlan(),
        tools={},
    )
