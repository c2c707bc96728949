"""``plan`` stage: the run's plan and its hash. Makes no provider call."""

from __future__ import annotations

from collections.abc import Callable

from assay import evidence
from assay.errors import SelfTestFailed
from assay.fixtures.scenarios import image_kind
from assay.params import Params
from assay.plan import Plan, build_plan, request_sizes, tool_versions
from assay.providers.base import ModelProfile
from assay.providers.factory import request_bytes


def request_size_measure(profile: ModelProfile) -> Callable[[str], int]:
    """The size in bytes of the request body the profile's adapter would send for a prompt."""
    return lambda prompt: request_bytes(profile, prompt)


def sandbox_pin(scenario: str) -> dict[str, object]:
    """The sandbox image the plan pins and the self-test the scenario passed on it, with the
    Docker engine and client and the runtime policy (limits, profiles, deadlines) it passed
    under: the correctness stage evaluates nothing on another engine or policy.

    A scenario none of whose arms runs correctness pins no image: rebuilding the sandbox must
    not change (and so de-authorize) a plan that never uses it.
    """
    selftest = evidence.read_selftest(scenario)
    known = {
        "structure_checks": selftest.known_answers.structure_checks,
        "chain_step_checks": selftest.known_answers.step_checks,
    }
    if not selftest.passed:
        raise SelfTestFailed(f"the self-test of {scenario} did not pass")
    if not selftest.sandbox.needed:
        return {"image_id": None, "selftest_checks": 0, **known}
    image = evidence.read_image(image_kind(scenario))
    if selftest.sandbox.image != image.image_id:
        raise SelfTestFailed(
            f"no passing sandbox self-test of {scenario} on image {image.image_id}"
        )
    return {
        "image_id": image.image_id,
        "python_version": image.python_version,
        "recipe_digest": image.recipe_digest,
        "selftest_checks": selftest.sandbox.checks,
        "engine": selftest.sandbox.engine,
        "policy": selftest.sandbox.policy,
        **known,
    }


def local_runtime(profile: ModelProfile) -> dict[str, object]:
    """A local model's runtime and weights identity (hashing the weights); nothing otherwise."""
    if profile.local is None:
        return {}
    from assay.local.runtime import identity  # reads the GGUF with llama.cpp

    return identity(profile.local, model=profile.model, context_tokens=profile.context_tokens)


def make_plan(run_id: str, params: Params) -> Plan:
    # loaded here, not at module level: every later stage reads plans, none needs the tools
    from assay.metrics import tool_versions as metric_tool_versions

    run = params.run(run_id)
    profile = params.profile_for(run_id)
    scenario = evidence.read_scenario(run.scenario)
    prompts = request_sizes(evidence.read_prompts(run.scenario), request_size_measure(profile))
    return build_plan(
        run_id=run_id,
        run=run,
        profile=profile,
        scenario=scenario,
        fixture_sources=evidence.read_sources_digest(run.scenario),
        prompts=prompts,
        analysis=params.analysis,
        tools={**tool_versions(), **{f"metrics/{k}": v for k, v in metric_tool_versions().items()}},
        sandbox=sandbox_pin(run.scenario),
        runtime=local_runtime(profile),
    )


def run(run_id: str, params: Params) -> Plan:
    plan = make_plan(run_id, params)
    evidence.write_plan(plan)
    return plan
