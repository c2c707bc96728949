"""Self-test before paid work: the references must pass, a known-wrong implementation must fail.

Every arm whose sandbox profile is not ``skip`` runs both reference implementations (reused
and duplicated) against all of its task's vectors: each arm's repository must work. Each
subject runs :data:`KNOWN_WRONG` against the same vectors once, in its first sandboxed arm:
whether a wrong answer fails is decided by the supervisor's comparison, which no arm's files
change (so the self-test stage recalls the check of a task checked before in another scenario,
:mod:`assay.pipeline.selftest`). The pipeline stops before any provider request unless :attr:`SelfTestReport.passed`.

An arm declared ``skip`` never meets the sandbox, so it needs no proof that the sandbox works:
a scenario whose every arm skips correctness (chain) passes with no sandbox check at all, and
starts no container. A scenario with some sandboxed arm passes only if checks really ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from assay.evidence import Implementation, SelfTestFailure, SelfTestReport
from assay.fixtures.model import Arm, Subject

if TYPE_CHECKING:
    from assay.sandbox.results import CorrectnessResult, SandboxRequest

KNOWN_WRONG = "def implement(value):\n    return None\n"
"""No vector of a real task expects ``None`` (TOML has no null), so this must be incorrect."""

EXPECTED_STATUS: dict[Implementation, str] = {
    "reference-reused": "correct",
    "reference-duplicated": "correct",
    "known-wrong": "incorrect",
}


def _first_failing_case(subject: Subject, result: CorrectnessResult) -> dict[str, Any]:
    """Which vector of task.toml failed first, and its input: what to look at in the fixture."""
    import json

    failing = next((case for case in result.cases if case.outcome != "pass"), None)
    if failing is None or failing.index >= len(subject.task.vectors):
        return {}
    value = subject.task.vectors[failing.index].input
    return {"case": failing.index, "case_input": json.dumps(value, ensure_ascii=False)[:120]}


def run_selftest(
    subjects: Sequence[Subject],
    image: str,
    *,
    workers: int | None = None,
    description: str | None = None,
    evaluate: Callable[[Sequence[SandboxRequest]], list[CorrectnessResult]] | None = None,
) -> SelfTestReport:
    """``evaluate``: how the requests run (default: :func:`evaluate_many` on ``workers``
    threads, progress under ``description``; the self-test stage passes the Dask fan-out when
    ``compute`` names a cluster)."""
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
        sandboxed = [arm for arm in subject.arms if arm.sandbox != "skip"]
        for index, arm in enumerate(sandboxed):
            for implementation, source in sources.items():
                if implementation == "known-wrong" and index > 0:
                    continue
                plan.append((subject, arm, implementation))
                requests.append(request_for(subject, arm.name, source, image))
    sandboxed_arms = sum(a.sandbox != "skip" for s in subjects for a in s.arms)
    sandboxed_subjects = sum(any(a.sandbox != "skip" for a in s.arms) for s in subjects)
    if not requests:
        return SelfTestReport(
            image=image,
            sandboxed_arms=sandboxed_arms,
            sandboxed_subjects=sandboxed_subjects,
            checks=0,
            failures=(),
        )
    if evaluate is None:
        results = evaluate_many(
            requests, workers=workers or default_workers(), description=description
        )
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
            **_first_failing_case(subject, result),
        )
        for (subject, arm, implementation), result in zip(plan, results, strict=True)
        if result.status != EXPECTED_STATUS[implementation]
    )
    return SelfTestReport(
        image=image,
        sandboxed_arms=sandboxed_arms,
        sandboxed_subjects=sandboxed_subjects,
        checks=len(plan),
        failures=failures,
    )
