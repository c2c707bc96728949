"""``selftest`` stage: before any plan exists, prove that every evaluator a run relies on judges
known answers as declared; a failing self-test fails the stage, so no plan — and no provider
request — follows it.

- the sandbox passes every subject's reference implementations (both) on every vector and fails
  a known-wrong implementation, on every arm that runs correctness
  (:mod:`assay.sandbox.selftest`); an arm that skips correctness needs no such proof. The
  known-wrong one runs fresh in every subject, so the sandbox is shown to work now; a
  reference evaluated before on the same arm, engine, image and policy (a scenario sharing the
  arm) is recalled (:mod:`assay.memo`);
- the structural evaluator scores the references as declared, and a chained scenario renders
  every later step from them (:mod:`assay.pipeline.known_answers`).

A scenario none of whose arms runs correctness (chain) starts no container here. Otherwise the
report records the Docker engine and client and the sandbox runtime policy the checks ran
under: the plan binds them, and a run evaluated on another engine or policy is missing evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay import evidence
from assay.compute.sandbox import evaluate_placed
from assay.errors import SelfTestFailed
from assay.evidence import ScenarioSelfTest
from assay.fixtures.scenarios import image_kind
from assay.params import Params
from assay.pipeline.image import load_pinned
from assay.pipeline.known_answers import check_known_answers
from assay.pipeline.sandbox_runtime import live_runtime
from assay.sandbox.results import CorrectnessResult, SandboxRequest
from assay.sandbox.selftest import KNOWN_WRONG, run_selftest

__all__ = ["SelfTestFailed", "run"]


def run(scenario_name: str, params: Params) -> ScenarioSelfTest:
    scenario = evidence.read_scenario(scenario_name)
    kind = image_kind(scenario_name)
    image = evidence.read_image(kind).image_id
    runs_sandbox = any(
        arm.sandbox != "skip" for subject in scenario.subjects for arm in subject.arms
    )
    if runs_sandbox and not params.compute.distributed:
        load_pinned(image, kind)

    def evaluate(requests: Sequence[SandboxRequest]) -> list[CorrectnessResult]:
        # the known-wrong implementation runs fresh in every subject: the sandbox works now; a
        # reference already evaluated on the same arm (a scenario sharing it) is recalled
        fresh = [i for i, r in enumerate(requests) if r.candidate == KNOWN_WRONG]
        rest = [i for i in range(len(requests)) if i not in set(fresh)]
        results: dict[int, CorrectnessResult] = {}
        for indexes, recall in ((fresh, False), (rest, True)):
            placed = evaluate_placed(
                [requests[i] for i in indexes],
                params.compute,
                image,
                archive=evidence.image_archive(kind),
                description=f"selftest {scenario_name}",
                recall=recall,
            )
            results |= {i: p.value for i, p in zip(indexes, placed, strict=True)}
        return [results[i] for i in range(len(requests))]

    sandbox = run_selftest(scenario.subjects, image, evaluate=evaluate)
    if sandbox.needed:
        sandbox = sandbox.model_copy(update=live_runtime())
    report = ScenarioSelfTest(
        scenario=scenario_name,
        sandbox=sandbox,
        known_answers=check_known_answers(scenario, params.analysis.structure_evaluator),
    )
    evidence.write_selftest(scenario_name, report)
    if not report.passed:
        lines = report.failure_lines() or ["  the sandbox checks did not all run"]
        raise SelfTestFailed(
            f"self-test of scenario {scenario_name} failed ({len(lines)} problems); nothing will "
            "be planned:\n" + "\n".join(lines)
        )
    return report
