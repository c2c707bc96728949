"""What goes into one sandbox evaluation and what comes out of it.

A result keeps case indexes, outcome codes and exception type names, and, for explaining a
verdict on this machine only, a wrong value and an exception message cut to
:data:`UNPUBLISHED_CHARS` characters (the seed publishes neither; evidence columns holding them
are named ``unpublished_…``). Never the candidate's stdout or stderr.

Outcome of one case (``CaseOutcome.outcome``)::

    pass               the returned value equals the expected one, types included
    wrong-value        a value of exact JSON builtin types that differs from the expected one
    wrong-type         a value that is not built of exact JSON builtin types (subclasses, tuples,
                       NaN, objects): it cannot equal a JSON expected value
    exception          ``implement`` (or the import) raised; ``exception_type`` names it
    timeout            the case passed the candidate deadline
    abnormal-exit      the child died, exited non-zero or without answering
    tampering          the answer channel held anything but exactly one well-formed frame
    output-flood       the case's stdout+stderr passed the output cap
    oversized-answer   the answer passed the per-case answer budget
    no-result          the supervisor gave no valid record for the case (silent, dead, truncated)
    not-run            an earlier case of the candidate timed out, so this one was not run (the
                       candidate is ``incorrect`` already; see :mod:`assay.sandbox.runner`)
    starved            the host gave the case too little CPU to use its deadline within the
                       wall-clock ceiling: not the candidate's doing (see ``host-overloaded``)
    residue            the case left something (a file in /tmp, an IPC object, a message queue)
                       that the cleanup after it could not remove, whatever it answered

Reason of the whole result: ``correct`` → ``all-cases-passed``; ``incorrect`` → the first
failing case's outcome, or a stream-level reason (``tampering``, ``output-flood``,
``supervisor-silent``, ``stream-truncated``); ``evaluator-failure`` → what failed before the
authenticated ready record (see :data:`EvaluatorFailureReason`), or ``host-overloaded`` when a
case was starved and no case failed on the candidate's own account.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, field_validator

from assay.core.records import CorrectnessStatus, Frozen, JsonValue
from assay.fixtures.model import RepoPath, SourceFile
from assay.sandbox.policy import RunProfile

CaseOutcomeKind = Literal[
    "pass",
    "wrong-value",
    "wrong-type",
    "exception",
    "timeout",
    "abnormal-exit",
    "tampering",
    "output-flood",
    "oversized-answer",
    "no-result",
    "not-run",
    "starved",
    "residue",
]

EvaluatorFailureReason = Literal[
    "image-missing",  # the pinned image id is not in the daemon (never pulled)
    "image-not-pinned",  # the request names a tag or a short id, not a full image id
    "daemon-unreachable",
    "container-create-failed",
    "container-start-failed",
    "startup-deadline",  # no authenticated ready record within the startup deadline
    "startup-failed",  # the stream ended or held an unauthenticated line before ready
    "policy-not-in-force",  # ready record shows a missing seccomp/no-new-privs/uid/dumpable state
    "expected-too-large",  # an expected value cannot fit the per-case answer budget
    "invalid-request",  # no cases, unequal lengths, or a value that is not JSON
    "worker-engine-mismatch",  # a Dask worker's Docker engine differs from the self-test's
    "worker-seccomp-mismatch",  # a Dask worker's engine has another default seccomp profile
    "worker-image-mismatch",  # a Dask worker lacks the pinned image id (load failed or differs)
    "host-overloaded",  # a case was starved of CPU by the host (after ready; nothing else failed)
    "plan-engine-mismatch",  # the Docker engine (or client) differs from the one the plan binds
    "plan-policy-mismatch",  # the sandbox runtime policy differs from the one the plan binds
]

StreamFailureReason = Literal["tampering", "output-flood", "supervisor-silent", "stream-truncated"]


class SandboxRequest(Frozen):
    """One candidate against one arm's repository and a task's hidden cases."""

    files: tuple[SourceFile, ...] = Field(min_length=1)
    target: RepoPath
    """Repository path of the file the candidate is appended to; imported as a module."""
    candidate: str
    cases: tuple[JsonValue, ...]
    """Each is the single argument of ``implement``."""
    expected: tuple[JsonValue, ...]
    """Compared on the host only; never sent into the container."""
    profile: RunProfile = "standard"
    image: str

    @field_validator("files", mode="before")
    @classmethod
    def _files_from_pairs(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return tuple(SourceFile(path=path, text=text) for path, text in value.items())
        if isinstance(value, (list, tuple)):
            return tuple(
                SourceFile(path=item[0], text=item[1]) if isinstance(item, (list, tuple)) else item
                for item in value
            )
        return value


UNPUBLISHED_CHARS = 200
"""Generated values and exception messages are cut to this many characters."""


def truncated(text: str, limit: int = UNPUBLISHED_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CaseOutcome(Frozen):
    index: int = Field(ge=0)
    outcome: CaseOutcomeKind
    exception_type: str | None = None
    actual: str | None = None
    """``wrong-value``: the returned value as the host compared it (JSON, truncated). Generated
    output: local evidence only, never published."""
    exception_message: str | None = None
    """``exception``: the exception's message (truncated). Local evidence only, never published."""


class CorrectnessResult(Frozen):
    status: CorrectnessStatus
    reason: str
    cases: tuple[CaseOutcome, ...] = ()

    @property
    def is_missing(self) -> bool:
        """Evaluator failures are missing evidence, never ``incorrect``."""
        return self.status == "evaluator-failure"


def evaluator_failure(reason: EvaluatorFailureReason) -> CorrectnessResult:
    return CorrectnessResult(status="evaluator-failure", reason=reason)
