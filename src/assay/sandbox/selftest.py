"""Self-test before paid work: the references must pass, a known-wrong implementation must fail.

Every arm whose sandbox profile is not ``skip`` runs both reference implementations (reused
and duplicated) against all of its task's vectors, and :data:`KNOWN_WRONG` against the same
vectors. The pipeline stops before any provider request unless :attr:`SelfTestReport.passed`.

An arm declared ``skip`` never meets the sandbox, so it needs no proof that the sandbox works:
a scenario whose every arm skips correctness (chain) passes with no sandbox check at all, and
starts no container. A scenario with some sandboxed arm passes only if checks really ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from assay.fixtures.model import Arm, Subject
from assay.records import Frozen

if TYPE_CHECKING:
    from assay.sandbox.results import CorrectnessResult, SandboxRequest

KNOWN_WRONG = "def implement(value):\n    return None\n"
"""No vector of a real task expects ``None`` (TOML has no null), so this must be incorrect."""

Implementation = Literal["reference-reused", "reference-duplicated", "known-wrong"]
EXPECTED_STATUS: dict[Implementation, str] = {
    "reference-reused": "correct",
    "reference-duplicated": "correct",
    "known-wrong": "incorrect",
}


class SelfTestFailure(Frozen):
    subject: str
    arm: str
    implementation: Implementation
    expected_status: str
    status: str
    reason: str


class SelfTestReport(Frozen):
    image: str
    sandboxed_arms: int
    """(subject, arm) pairs whose correctness runs in the sandbox; 0 when every arm skips it."""
    checks: int
    failures: tuple[SelfTestFailure, ...]

    @property
    def needed(self) -> bool:
        """Some arm runs correctness, so the sandbox must have been proven on it."""
        return self.sandboxed_arms > 0

    @property
    def passed(self) -> bool:
        """Every check of every sandboxed arm ran, and none failed."""
        return not self.failures and self.checks == len(EXPECTED_STATUS) * self.sandboxed_arms


def run_selftest(
    subjects: Sequence[Subject], image: str, *, workers: int | None = None
) -> SelfTestReport:
    # the container machinery loads only here: reading a report (the plan stage) needs none
    from assay.sandbox.cells import request_for
    from assay.sandbox.parallel import default_workers, evaluate_many

    plan: list[tuple[Subject, Arm, Implementation]] = []
    requests: list[SandboxRequest] = []
    for subject in subjects:
        sources: dict[Implementation, str] = {
            "reference-reused": subject.task.references.reused,
            "reference-duplicated": subject.task.references.duplicated,
            "known-wrong": KNOWN_WRONG,
        }
        for arm in subject.arms:
            if arm.sandbox == "skip":
                continue
            for implementation, source in sources.items():
                plan.append((subject, arm, implementation))
                requests.append(request_for(subject, arm.name, source, image))
    sandboxed = sum(arm.sandbox != "skip" for subject in subjects for arm in subject.arms)
    if not requests:
        return SelfTestReport(image=image, sandboxed_arms=sandboxed, checks=0, failures=())
    results: list[CorrectnessResult] = evaluate_many(requests, workers=workers or default_workers())
    failures = tuple(
        SelfTestFailure(
            subject=subject.id,
            arm=arm.name,
            implementation=implementation,
            expected_status=EXPECTED_STATUS[implementation],
            status=result.status,
            reason=result.reason,
        )
        for (subject, arm, implementation), result in zip(plan, results, strict=True)
        if result.status != EXPECTED_STATUS[implementation]
    )
    return SelfTestReport(
        image=image, sandboxed_arms=sandboxed, checks=len(plan), failures=failures
    )
