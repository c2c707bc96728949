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
  ``evaluator-failure``) with its per-case outcomes. Cells with the same source in the same
  arm share one evaluation (the request, and so the result, is the same).

Rows keep only case indexes, outcome codes and exception type names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from assay.fixtures.model import Scenario, Subject
from assay.gate import check_source
from assay.records import CellKey, CorrectnessStatus
from assay.sandbox.parallel import evaluate_many
from assay.sandbox.results import CorrectnessResult, SandboxRequest


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
    image: str


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
) -> CorrectnessRow:
    cases = result.cases if result is not None else ()
    return CorrectnessRow(
        **{name: getattr(candidate, name) for name in CellKey.model_fields},
        status=status,
        reason=reason,
        case_indexes=tuple(case.index for case in cases),
        case_outcomes=tuple(case.outcome for case in cases),
        case_exception_types=tuple(case.exception_type for case in cases),
        image=image,
    )


def correctness_rows(
    candidates: Sequence[Candidate], scenario: Scenario, image: str, *, workers: int
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
    # The same source in the same arm (a model repeating itself across repeats) is the same
    # request: evaluated once, its result given to each of those cells.
    unique: dict[tuple[str, str, str], SandboxRequest] = {}
    for _, candidate, request in pending:
        unique.setdefault((candidate.subject, candidate.arm, request.candidate), request)
    results = dict(zip(unique, evaluate_many(list(unique.values()), workers=workers), strict=True))
    for position, candidate, request in pending:
        result = results[(candidate.subject, candidate.arm, request.candidate)]
        rows[position] = _row(candidate, image, result.status, result.reason, result)
    return [row for row in rows if row is not None]
