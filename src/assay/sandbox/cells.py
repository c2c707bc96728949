"""A candidate as a sandbox request: the arm's repository, the candidate, the task's vectors.

The correctness stage's logic (gate, missing evidence, rows) is ``assay.pipeline.correctness``.
"""

from __future__ import annotations

from assay.fixtures.model import Subject
from assay.sandbox.results import SandboxRequest


def request_for(subject: Subject, arm_name: str, source: str, image: str) -> SandboxRequest:
    arm = subject.arm(arm_name)
    if arm.sandbox == "skip":
        raise ValueError(f"arm {arm_name} of {subject.id} declares no correctness run")
    return SandboxRequest(
        files=arm.files,
        target=subject.target,
        candidate=source,
        cases=tuple(vector.input for vector in subject.task.vectors),
        expected=tuple(vector.expected for vector in subject.task.vectors),
        profile=arm.sandbox,
        image=image,
    )
