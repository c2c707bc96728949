"""``plan`` stage: the run's plan and its hash. Makes no provider call.

A paid run that already sent under another plan keeps that plan, and the subjects and prompts it
was sent from (``assay.paid.seal``); the plan the current inputs give goes beside it, waiting for a
run id of its own."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection
from pathlib import Path

from assay import evidence
from assay.config.params import Params, RunSpec
from assay.core.errors import SelfTestFailed
from assay.core.records import Frozen
from assay.evidence.plan import AnalysisPlan, Replanned
from assay.fixtures.scenarios import image_kind
from assay.paid.authorize import replanned_refusal
from assay.paid.plan import Plan, build_plan, request_sizes, tool_versions
from assay.paid.preregistration import keep_preregistration, replanned_free_run
from assay.paid.seal import Sealed, sealed_run
from assay.pipeline.stage_params import Declaration, StageParams
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


def answers_runtime(profile: ModelProfile) -> dict[str, object]:
    """What makes the run's answers, as the plan binds it: a local model's runtime and weights
    identity (hashing the weights), the Inspect log an inspect-log run reads (hashing and
    reading it); nothing otherwise."""
    if profile.local is not None:
        from assay.local.runtime import identity  # reads the GGUF with llama.cpp

        return identity(profile.local, model=profile.model, context_tokens=profile.context_tokens)
    if profile.log is not None:
        from assay.providers.inspect_log import log_source  # reads the log with inspect_ai

        return log_source(profile).model_dump(mode="json")
    return {}


PARAMS = Declaration(keys=("runs.${key}", "models.${item.model}", "analysis", "ledger_root"))


class PlanParams(Frozen):
    """What of params.yaml a run's plan is made from."""

    run: RunSpec
    profile: ModelProfile
    analysis: AnalysisPlan
    ledger_root: Path
    """Where ledgers are: a paid run that sent keeps the plan it sent under (assay.paid.seal)."""

    @classmethod
    def of(cls, run_id: str, params: Params) -> PlanParams:
        """From the whole params.yaml (the commands and the send stage read it whole)."""
        return cls(
            run=params.run(run_id),
            profile=params.profile_for(run_id),
            analysis=params.analysis,
            ledger_root=Path(params.ledger_root),
        )


def read_params(params: StageParams) -> PlanParams:
    run = params.typed(f"runs.{params.key}", RunSpec)
    return PlanParams(
        run=run,
        profile=params.typed(f"models.{run.model}", ModelProfile),
        analysis=params.typed("analysis", AnalysisPlan),
        ledger_root=Path(params.typed("ledger_root", str)),
    )


def make_plan(run_id: str, params: Params) -> Plan:
    return plan_of(run_id, PlanParams.of(run_id, params))


def plan_of(run_id: str, params: PlanParams) -> Plan:
    # loaded here, not at module level: every later stage reads plans, none needs the tools
    from assay.metrics import tool_versions as metric_tool_versions

    run, profile = params.run, params.profile
    scenario = evidence.read_scenario(run.scenario)
    prompts = request_sizes(evidence.read_prompts(run.scenario), request_size_measure(profile))
    built = build_plan(
        run_id=run_id,
        run=run,
        profile=profile,
        scenario=scenario,
        fixture_sources=evidence.read_sources_digest(run.scenario),
        prompts=prompts,
        analysis=params.analysis,
        tools={**tool_versions(), **{f"metrics/{k}": v for k, v in metric_tool_versions().items()}},
        sandbox=sandbox_pin(run.scenario),
        runtime=answers_runtime(profile),
    )
    # a run that began keeps the analysis it preregistered (assay.paid.preregistration)
    return keep_preregistration(built, params.ledger_root)


class Planned(Frozen):
    """What the plan stage decided for a run."""

    plan: Plan
    """The run's plan: the current one, or the one a paid run was sent under."""
    replanned: str | None = None
    """A paid run sent under an older plan: what it is, the current inputs' plan and the
    commands on (``assay.paid.authorize.replanned_after_spending``)."""


def kept_or_current(
    run_id: str, root: Path, current: Plan, taken: Collection[str] = ()
) -> tuple[Sealed | None, str]:
    """The seal a paid run sent under when the current plan differs from it (else ``None``),
    and what to say of it (``taken``: the declared run ids, not to suggest as a new one)."""
    if not current.budget.paid:
        return None, ""
    sealed = sealed_run(root, run_id)
    if sealed is None or sealed.plan_hash == current.hash:
        return None, ""
    message = replanned_refusal(current, root, taken, kept=True)
    return sealed, message or ""


def run(run_id: str, params: StageParams) -> Planned:
    declared = read_params(params)
    current = plan_of(run_id, declared)
    sealed, message = kept_or_current(run_id, declared.ledger_root, current)
    # the output persists (pipeline/plan/dvc.yaml): nothing of an earlier plan may stay beside it
    shutil.rmtree(evidence.plan_file(run_id).parent, ignore_errors=True)
    if sealed is None:
        evidence.write_plan(current)
        earlier, changes = replanned_free_run(current, declared.ledger_root)
        if earlier:
            evidence.write_replanned(run_id, Replanned(earlier_plan=earlier, changes=changes))
        return Planned(plan=current)
    inputs = {stage: sealed.inputs(stage) for stage in evidence.SCENARIO_STAGES}
    kept = evidence.keep_sealed_plan(run_id, sealed.plan_dir, inputs, current)
    return Planned(plan=kept, replanned=message)
