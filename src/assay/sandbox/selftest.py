"""Self-test before paid work: the references must pass, a known-wrong implementation must fail.

Every arm whose sandbox profile is not ``skip`` runs both reference implementations (reused
and duplicated) against all of its task's vectors, and :data:`KNOWN_WRONG` against the same
vectors. The pipeline stops before any provider request unless :attr:`SelfTestReport.passed`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assay.evidence import Implementation, SelfTestFailure, SelfTestReport
from assay.fixtures.model import Arm, Subject
from assay.sandbox.cells import request_for
from assay.sandbox.parallel import default_workers, evaluate_many
from assay.sandbox.results import CorrectnessResult, SandboxRequest

KNOWN_WRONG = "def implement(value):\n    return None\n"
"""No vector of a real task expects ``None`` (TOML has no null), so this must be incorrect."""

EXPECTED_STATUS: dict[Implementation, str] = {
    "reference-reused": "correct",
    "reference-duplicated": "correct",
    "known-wrong": "incorrect",
}


def run_selftest(
    subjects: Sequence[Subject],
    image: str,
    *,
    workers: int | None = None,
    evaluate: Callable[[Sequence[SandboxRequest]], list[CorrectnessResult]] | None = None,
) -> SelfTestReport:
    """``evaluate``: how the requests run (default: :func:`evaluate_many` on ``workers``
    threads; the self-test stage passes the Dask fan-out when ``compute`` names a cluster)."""
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
    if evaluate is None:
        results = evaluate_many(requests, workers=workers or default_workers())
    else:
        results = evaluate(requests)
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
    return SelfTestReport(image=image, checks=len(plan), failures=failures)
