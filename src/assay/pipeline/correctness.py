"""``correctness`` stage: every candidate → one correctness row, run in the hardened sandbox.

A pure function of candidates, subjects and the pinned image; the structural verdict is never
read here (and the correctness verdict never reaches the structure stage). Every image/policy
version's rows are also kept in ``data/correctness-versions/RUN/versions.parquet`` (a persisted
output): a new image or sandbox policy adds rows beside the earlier ones instead of overwriting
them. Where each sandboxed cell ran (this machine or a Dask worker, ``params.yaml: compute``) goes
to ``placements.parquet`` beside the rows, never into them. Per cell, in order:

- the arm's sandbox profile is ``skip`` → ``skipped`` (the scenario declares no correctness
  run; not missing);
- no candidate source (no completion, no code) → ``status=None`` with the execution or
  extraction status as reason: missing evidence, as in the structure stage;
- the source gate refuses the module → ``status=None``, reason ``gate:<refusal>``: the
  evaluator never accepts it, so it is missing, never ``incorrect``;
- the live Docker engine/client or sandbox policy differs from the one the plan binds →
  ``evaluator-failure`` (``plan-engine-mismatch`` / ``plan-policy-mismatch``): missing
  evidence, never a verdict (:mod:`assay.pipeline.sandbox_runtime`);
- otherwise the candidate runs in the sandbox against every vector of its task, and the row
  carries the :class:`~assay.sandbox.results.CorrectnessResult` (``correct``, ``incorrect`` or
  ``evaluator-failure``) with its per-case outcomes. Cells with the same source in the same
  arm share one evaluation (the request, and so the result, is the same), and a request
  evaluated before (the self-test's references, another run's identical answer) is not
  evaluated again (:mod:`assay.core.memo`; its placement says ``memo``).

Rows keep case indexes, outcome codes, exception type names, each case's input and expected
value, and, in the ``unpublished_…`` columns (``evidence.UNPUBLISHED_COLUMNS``), the wrong value
and the exception message cut short: local evidence for explaining a verdict, never exported.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence

from assay import evidence
from assay.compute import LOCAL, Placed
from assay.compute.sandbox import evaluate_placed
from assay.config.params import Compute
from assay.core.records import CellKey, CorrectnessStatus
from assay.evidence import CandidateRow, CorrectnessRow, CorrectnessVersionRow, PlacementRow
from assay.evidence.rows import missing_reason
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import image_kind
from assay.pipeline.image import load_pinned
from assay.pipeline.sandbox_runtime import runtime_mismatch
from assay.pipeline.stage_params import Declaration, StageParams
from assay.sandbox.cells import request_for
from assay.sandbox.parallel import evaluate_many
from assay.sandbox.policy import policy_version
from assay.sandbox.results import (
    CorrectnessResult,
    SandboxRequest,
    evaluator_failure,
    truncated,
)
from assay.science.gate import check_source


def _row(
    candidate: CandidateRow,
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


def _json_cells(values: Sequence[object]) -> tuple[str, ...]:
    return tuple(
        truncated(json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)) for v in values
    )


Evaluator = Callable[[Sequence[SandboxRequest]], list[Placed[CorrectnessResult]]]
"""Evaluates requests and returns their results in request order, each with where it ran."""


def correctness_rows(
    candidates: Sequence[CandidateRow],
    scenario: Scenario,
    image: str,
    *,
    workers: int,
    description: str | None = None,
) -> list[CorrectnessRow]:
    """One row per candidate, in candidate order; sandbox runs in parallel on ``workers``.

    Reads only the candidate's fields, so any object with them will do (tests pass their own).
    """

    def local(requests: Sequence[SandboxRequest]) -> list[Placed[CorrectnessResult]]:
        results = evaluate_many(requests, workers=workers, description=description)
        return [Placed(result, "local") for result in results]

    return placed_correctness_rows(candidates, scenario, image, local)[0]


def placed_correctness_rows(
    candidates: Sequence[CandidateRow], scenario: Scenario, image: str, evaluate: Evaluator
) -> tuple[list[CorrectnessRow], list[PlacementRow]]:
    """The rows in candidate order, and where each sandboxed one ran (``evaluate`` decides:
    threads here, or a Dask cluster; the rows are the same either way)."""
    rows: list[CorrectnessRow | None] = []
    pending: list[tuple[int, CandidateRow, SandboxRequest]] = []
    for candidate in candidates:
        subject = scenario.subject(candidate.subject)
        if subject.arm(candidate.arm).sandbox == "skip":
            rows.append(_row(candidate, image, "skipped", "no-correctness-run"))
            continue
        if candidate.source is None:
            missing = missing_reason(candidate.execution_status, candidate.extract_status)
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
    results = dict(zip(unique, evaluate(list(unique.values())), strict=True))
    placements: list[PlacementRow] = []
    for position, candidate, request in pending:
        placed = results[(candidate.subject, candidate.arm, request.candidate)]
        result = placed.value
        rows[position] = _row(candidate, image, result.status, result.reason, result, request)
        placements.append(
            PlacementRow(
                **{name: getattr(candidate, name) for name in CellKey.model_fields},
                stage="correctness",
                worker=placed.worker,
                engine=placed.engine,
            )
        )
    return [row for row in rows if row is not None], placements


PARAMS = Declaration(placement=True)


def read_params(params: StageParams) -> Compute:
    """Where to evaluate (``compute``)."""
    return params.placement()


def run(run_id: str, params: StageParams) -> list[CorrectnessRow]:
    compute = read_params(params)
    plan = evidence.read_plan(run_id)
    pinned, scenario_name = plan.sandbox, plan.scenario
    # none pinned when every arm skips correctness (chain)
    image = pinned.get("image_id") or ""
    kind = image_kind(scenario_name)
    scenario = evidence.read_run_scenario(run_id, scenario_name)
    if not compute.distributed:
        load_pinned(image, kind)
    description = f"correctness {run_id}"

    def evaluate(requests: Sequence[SandboxRequest]) -> list[Placed[CorrectnessResult]]:
        mismatch = runtime_mismatch(pinned) if requests else None
        if mismatch is not None:
            reason, detail = mismatch
            print(
                f"warning: {run_id}: no cell evaluated ({reason}): {detail}. The plan binds the "
                "runtime its self-test ran on; to evaluate on this one, re-run the self-test "
                f"(dvc repro --force pipeline/selftest/dvc.yaml:selftest@{scenario_name}) and "
                "plan and authorize again",
                file=sys.stderr,
            )
            return [Placed(evaluator_failure(reason), LOCAL) for _ in requests]
        return evaluate_placed(
            requests,
            compute,
            image,
            archive=evidence.image_archive(kind),
            description=description,
            recall=True,
        )

    rows, placements = placed_correctness_rows(
        evidence.read_candidates(run_id), scenario, image, evaluate
    )
    evidence.write_table(evidence.CORRECTNESS, run_id, rows)
    evidence.write_table(evidence.CORRECTNESS_PLACEMENTS, run_id, placements)
    keep_version(run_id, rows, image, policy_version())
    return rows


def keep_version(run_id: str, rows: Sequence[CorrectnessRow], image: str, policy: str) -> None:
    """Add this image/policy version's rows to the run's kept versions, replacing only rows of
    the same version (a re-run of it)."""
    path = evidence.CORRECTNESS_VERSIONS.path(run_id)
    kept = evidence.read_table(evidence.CORRECTNESS_VERSIONS, run_id) if path.exists() else []
    others = [row for row in kept if (row.image, row.policy) != (image, policy)]
    current = [CorrectnessVersionRow(**row.model_dump(), policy=policy) for row in rows]
    evidence.write_table(evidence.CORRECTNESS_VERSIONS, run_id, others + current)
