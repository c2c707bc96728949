"""The ``correctness`` stage's logic: candidates → one correctness row per cell.

Per cell, in this order:

- the arm's sandbox profile is ``skip`` → ``skipped`` (the scenario declares no correctness
  run; not missing);
- no candidate source (no completion, no code) → ``status=None`` with the execution or
  extraction status as reason: missing evidence, as in the structure stage;
- the source gate refuses the module → ``status=None``, reason ``gate:<refusal>``: the
  evaluator never accepts it, so it is missing, never ``incorrect``;
- otherwise the candidate runs in the sandbox against every vector of its task, and the row
  carries the :class:`~assay.sandbox.results.CorrectnessResult` (``correct``, ``incorrect`` or
  ``evaluator-failure``) with its per-case outcomes.

Rows keep case indexes, outcome codes, exception type names, each case's input and expected
value, and, in the ``unpublished_…`` columns (:data:`UNPUBLISHED_COLUMNS`), the wrong value and
the exception message cut short: local evidence for explaining a verdict, never exported.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Protocol

from assay.fixtures.model import Scenario, Subject
from assay.gate import check_source
from assay.records import CellKey, CorrectnessStatus
from assay.sandbox.parallel import evaluate_many
from assay.sandbox.results import CorrectnessResult, SandboxRequest, truncated


class Candidate(Protocol):
    """What a row of the extract stage provides (``assay.pipeline.extract.CandidateRow``)."""

    @property
    def run(self) -> str: ...
    @property
    def cell_id(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def arm(self) -> str: ...
    @property
    def repeat(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def execution_status(self) -> str: ...
    @property
    def extract_status(self) -> str: ...
    @property
    def source(self) -> str | None: ...


class CorrectnessRow(CellKey):
    status: CorrectnessStatus | None
    """``None`` when there was nothing the evaluator could accept (see ``reason``)."""
    reason: str
    case_indexes: tuple[int, ...] = ()
    case_outcomes: tuple[str, ...] = ()
    case_exception_types: tuple[str | None, ...] = ()
    case_inputs: tuple[str, ...] = ()
    """Each case's input (the task's hidden vector) as JSON, truncated."""
    case_expected: tuple[str, ...] = ()
    """Each case's expected value as the host compared it, JSON, truncated."""
    unpublished_case_actuals: tuple[str | None, ...] = ()
    """Generated output, local evidence only (never exported): a ``wrong-value`` case's
    returned value as JSON, truncated; ``None`` for any other outcome."""
    unpublished_case_messages: tuple[str | None, ...] = ()
    """Generated output, local evidence only (never exported): an ``exception`` case's
    message, truncated; ``None`` for any other outcome."""
    image: str


UNPUBLISHED_COLUMNS = ("unpublished_case_actuals", "unpublished_case_messages")
"""Correctness columns holding generated values and messages: the seed publishes neither, so
exports leave them out; they exist to explain a verdict on the machine that ran it."""


def _json_cells(values: Sequence[object]) -> tuple[str, ...]:
    return tuple(
        truncated(json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)) for v in values
    )


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


def _row(
    candidate: Candidate,
    image: str,
    status: CorrectnessStatus | None,
    reason: str,
    result: CorrectnessResult | None = None,
    request: SandboxRequest | None = None,
) -> CorrectnessRow:
    cases = result.cases if result is not None else ()
    return CorrectnessRow(
        **{name: getattr(candidate, name) for name in CellKey.model_fields},
        status=status,
        reason=reason,
        case_indexes=tuple(case.index for case in cases),
        case_outcomes=tuple(case.outcome for case in cases),
        case_exception_types=tuple(case.exception_type for case in cases),
        case_inputs=_json_cells(request.cases) if request is not None else (),
        case_expected=_json_cells(request.expected) if request is not None else (),
        unpublished_case_actuals=tuple(case.actual for case in cases),
        unpublished_case_messages=tuple(case.exception_message for case in cases),
        image=image,
    )


def correctness_rows(
    candidates: Sequence[Candidate],
    scenario: Scenario,
    image: str,
    *,
    workers: int,
    description: str | None = None,
) -> list[CorrectnessRow]:
    """One row per candidate, in candidate order; sandbox runs in parallel on ``workers``."""
    rows: list[CorrectnessRow | None] = []
    pending: list[tuple[int, Candidate, SandboxRequest]] = []
    for candidate in candidates:
        subject = scenario.subject(candidate.subject)
        if subject.arm(candidate.arm).sandbox == "skip":
            rows.append(_row(candidate, image, "skipped", "no-correctness-run"))
            continue
        if candidate.source is None:
            missing = (
                candidate.extract_status
                if candidate.execution_status == "completed"
                else candidate.execution_status
            )
            rows.append(_row(candidate, image, None, missing))
            continue
        gate = check_source(
            candidate.source, helper=subject.task.helper, helper_module=subject.task.helper_module
        )
        if not gate.accepted:
            rows.append(_row(candidate, image, None, f"gate:{gate.reason}"))
            continue
        pending.append(
            (len(rows), candidate, request_for(subject, candidate.arm, candidate.source, image))
        )
        rows.append(None)
    results = evaluate_many(
        [request for _, _, request in pending], workers=workers, description=description
    )
    for (position, candidate, request), result in zip(pending, results, strict=True):
        rows[position] = _row(candidate, image, result.status, result.reason, result, request)
    return [row for row in rows if row is not None]
