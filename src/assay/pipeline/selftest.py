"""``selftest`` stage: before any plan exists, prove that every evaluator a run relies on judges
known answers as declared; a failing self-test fails the stage, so no plan — and no provider
request — follows it.

- the sandbox passes every subject's reference implementations (both) on every vector and fails
  a known-wrong implementation, on every arm that runs correctness
  (:mod:`assay.sandbox.selftest`); an arm that skips correctness needs no such proof. The
  references evaluated before on the same arm, engine, image and policy (a scenario sharing the
  arm) are recalled (:mod:`assay.core.memo`). The known-wrong check is one of the task, not of the
  arm (the supervisor's comparison with the task's vectors decides it, and no arm's files
  change that): a task whose check ran before with the same vectors, target, profile, engine,
  image and policy (dose, placement and context share layered's tasks; the three codebase sets
  share theirs) is recalled too, and the first check of every self-test runs fresh, so each
  self-test shows the sandbox works now;
- the structural evaluator scores the references as declared, and a chained scenario renders
  every later step from them (:mod:`assay.pipeline.known_answers`).

A scenario none of whose arms runs correctness (chain) starts no container here. Otherwise the
report records the Docker engine and client and the sandbox runtime policy the checks ran
under: the plan binds them, and a run evaluated on another engine or policy is missing evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay import evidence
from assay.compute.engine import EngineIdentity, local_identity
from assay.compute.sandbox import REMEMBERED, SANDBOX_CODE, evaluate_placed
from assay.config.params import Compute
from assay.core.errors import SelfTestFailed
from assay.core.memo import Memo, code_digest, key_of
from assay.evidence import ScenarioSelfTest
from assay.fixtures.scenarios import image_kind
from assay.pipeline.image import load_pinned
from assay.pipeline.known_answers import check_known_answers
from assay.pipeline.sandbox_runtime import live_runtime
from assay.pipeline.stage_params import Declaration, StageParams
from assay.sandbox.policy import policy_version
from assay.sandbox.results import CorrectnessResult, SandboxRequest
from assay.sandbox.selftest import KNOWN_WRONG, run_selftest

__all__ = ["SelfTestFailed", "evaluate_selftest", "run"]

KNOWN_WRONG_MEMO = "known-wrong"
"""The memo kind of known-wrong checks, keyed by the task's part of the request (no files)."""


def known_wrong_key(request: SandboxRequest, engine: EngineIdentity) -> str:
    """What decides a known-wrong check: the sandbox request less the arm's files (the
    candidate, the target path, the vectors and expected values, the profile, the image), the
    policy, the engine and the sandbox code."""
    return key_of(
        {
            "request": request.model_dump(mode="json", exclude={"files"}),
            "policy": policy_version(),
            "engine": engine.model_dump(mode="json"),
            "code": code_digest(SANDBOX_CODE),
        }
    )


def evaluate_selftest(
    requests: Sequence[SandboxRequest],
    compute: Compute,
    image: str,
    kind: str,
    description: str,
) -> list[CorrectnessResult]:
    """The self-test's requests evaluated, in order: references recalled where the same request
    was evaluated before; known-wrong checks recalled where the same task's check ran before,
    but the first one always fresh."""
    wrong = [i for i, r in enumerate(requests) if r.candidate == KNOWN_WRONG]
    memo = Memo(KNOWN_WRONG_MEMO)
    keys: dict[int, str] = {}
    results: dict[int, CorrectnessResult] = {}
    if memo.enabled and wrong:
        engine = local_identity()
        keys = {i: known_wrong_key(requests[i], engine) for i in wrong}
        for i in wrong[1:]:  # the first check runs fresh: the sandbox works now
            found = memo.get(keys[i])
            if found is not None:
                results[i] = CorrectnessResult.model_validate(found)
    fresh = [i for i in wrong if i not in results]
    references = [i for i in range(len(requests)) if i not in set(wrong)]
    for indexes, recall in ((fresh, False), (references, True)):
        placed = evaluate_placed(
            [requests[i] for i in indexes],
            compute,
            image,
            archive=evidence.image_archive(kind),
            description=description,
            recall=recall,
        )
        results |= {i: p.value for i, p in zip(indexes, placed, strict=True)}
    for i in fresh:
        if i in keys and results[i].status in REMEMBERED:
            memo.put(keys[i], results[i].model_dump(mode="json"))
    return [results[i] for i in range(len(requests))]


PARAMS = Declaration(keys=("analysis.structure_evaluator",), placement=True)


def read_params(params: StageParams) -> tuple[int, Compute]:
    """The preregistered structural evaluator version, and where to run (``compute``)."""
    return params.typed("analysis.structure_evaluator", int), params.placement()


def run(scenario_name: str, params: StageParams) -> ScenarioSelfTest:
    structure_evaluator, compute = read_params(params)
    scenario = evidence.read_scenario(scenario_name)
    kind = image_kind(scenario_name)
    image = evidence.read_image(kind).image_id
    runs_sandbox = any(
        arm.sandbox != "skip" for subject in scenario.subjects for arm in subject.arms
    )
    if runs_sandbox and not compute.distributed:
        load_pinned(image, kind)

    def evaluate(requests: Sequence[SandboxRequest]) -> list[CorrectnessResult]:
        return evaluate_selftest(requests, compute, image, kind, f"selftest {scenario_name}")

    sandbox = run_selftest(scenario.subjects, image, evaluate=evaluate)
    if sandbox.needed:
        sandbox = sandbox.model_copy(update=live_runtime())
    report = ScenarioSelfTest(
        scenario=scenario_name,
        sandbox=sandbox,
        known_answers=check_known_answers(scenario, structure_evaluator),
    )
    evidence.write_selftest(scenario_name, report)
    if not report.passed:
        lines = report.failure_lines() or ["  the sandbox checks did not all run"]
        raise SelfTestFailed(
            f"self-test of scenario {scenario_name} failed ({len(lines)} problems); nothing will "
            "be planned:\n" + "\n".join(lines)
        )
    return report
