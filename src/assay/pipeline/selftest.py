"""``selftest`` stage: before any plan can be executed, the sandbox must pass every subject's
reference implementations (both) on every vector and fail a known-wrong implementation.

A failing self-test fails the stage, so no plan — and no provider request — follows it.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay import evidence
from assay.compute.sandbox import evaluate_placed
from assay.errors import SelfTestFailed
from assay.evidence import SelfTestReport
from assay.fixtures.scenarios import image_kind
from assay.params import Compute
from assay.sandbox.results import CorrectnessResult, SandboxRequest
from assay.sandbox.selftest import run_selftest

__all__ = ["SelfTestFailed", "run"]


def run(scenario_name: str, compute: Compute | None = None) -> SelfTestReport:
    scenario = evidence.read_scenario(scenario_name)
    image = evidence.read_image(image_kind(scenario_name)).image_id
    where = compute or Compute()

    def evaluate(requests: Sequence[SandboxRequest]) -> list[CorrectnessResult]:
        return [placed.value for placed in evaluate_placed(requests, where, image)]

    report = run_selftest(scenario.subjects, image, evaluate=evaluate)
    evidence.write_selftest(scenario_name, report)
    if not report.passed:
        lines = [f"  {f.subject}/{f.arm} {f.implementation}: {f.status} ({f.reason}), expected {f.expected_status}"
                 for f in report.failures]  # fmt: skip
        raise SelfTestFailed(
            f"sandbox self-test of scenario {scenario_name} failed ({len(report.failures)} of "
            f"{report.checks} checks); nothing will be planned:\n" + "\n".join(lines)
        )
    return report
