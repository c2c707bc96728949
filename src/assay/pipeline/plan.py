"""``plan`` stage: the run's plan and its hash. Makes no provider call."""

from __future__ import annotations

import json
from collections.abc import Callable

from assay.fixtures.scenarios import image_kind
from assay.metrics import tool_versions as metric_tool_versions
from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.render import read_prompts
from assay.pipeline.selftest import SelfTestFailed, read_image, read_selftest
from assay.pipeline.subjects import read_scenario, read_sources_digest
from assay.plan import Plan, build_plan, load_plan, request_sizes, tool_versions
from assay.providers.base import ModelProfile


def request_size_measure(profile: ModelProfile) -> Callable[[str], int]:
    """The size in bytes of the request body the profile's adapter would send for a prompt."""
    try:
        from assay.providers.factory import request_bytes
    except ImportError:  # adapters not installed: measure the chat message alone
        return lambda prompt: len(
            json.dumps({"messages": [{"role": "user", "content": prompt}]}).encode()
        )
    return lambda prompt: request_bytes(profile, prompt)


def sandbox_pin(scenario: str) -> dict[str, object]:
    """The sandbox image the plan pins, and the self-test that image passed for the scenario."""
    image = read_image(image_kind(scenario))
    selftest = read_selftest(scenario)
    if not selftest.passed or selftest.image != image.image_id:
        raise SelfTestFailed(
            f"no passing sandbox self-test of {scenario} on image {image.image_id}"
        )
    return {
        "image_id": image.image_id,
        "python_version": image.python_version,
        "recipe_digest": image.recipe_digest,
        "selftest_checks": selftest.checks,
    }


def make_plan(run_id: str, params: Params) -> Plan:
    run = params.run(run_id)
    profile = params.profile_for(run_id)
    scenario = read_scenario(run.scenario)
    prompts = request_sizes(read_prompts(run.scenario), request_size_measure(profile))
    return build_plan(
        run_id=run_id,
        run=run,
        profile=profile,
        scenario=scenario,
        fixture_sources=read_sources_digest(run.scenario),
        prompts=prompts,
        analysis=params.analysis,
        tools={**tool_versions(), **{f"metrics/{k}": v for k, v in metric_tool_versions().items()}},
        sandbox=sandbox_pin(run.scenario),
    )


def write_plan(plan: Plan) -> None:
    path = paths.plan_file(plan.run)
    path.parent.mkdir(parents=True, exist_ok=True)
    document = json.loads(plan.canonical())
    path.write_text(
        json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (path.parent / "plan.sha256").write_text(plan.hash + "\n", encoding="ascii")


def read_plan(run_id: str) -> Plan:
    return load_plan(paths.plan_file(run_id).read_bytes())


def run(run_id: str, params: Params) -> Plan:
    plan = make_plan(run_id, params)
    write_plan(plan)
    return plan
