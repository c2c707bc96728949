"""``structure`` stage: every candidate → one structural verdict, evaluator version in each row,
and its explanation (deciding rule, helper and primitive calls with their lines).

A pure function of candidates, subjects and the evaluator version: rescoring with another
version is ``dvc repro`` after changing ``evaluators.structure``.
"""

from __future__ import annotations

from typing import Any

from assay import evidence
from assay.evidence import CandidateRow, VerdictRow
from assay.fixtures.model import Scenario
from assay.params import Params
from assay.structure import score
from assay.structure.explain import explain


def verdict_rows(
    candidates: list[CandidateRow], scenario: Scenario, version: int
) -> list[VerdictRow]:
    tasks = {s.id: s.task for s in scenario.subjects}
    rows = []
    for c in candidates:
        explanation: dict[str, Any] = {}
        if c.source is None:
            verdict, reason = None, c.missing_reason
        else:
            task = tasks[c.subject]
            result = score(
                c.source,
                helper=task.helper,
                helper_module=task.helper_module,
                primitives=task.primitives,
                version=version,
            )
            verdict, reason = result.verdict, result.reason
            explanation = explain(
                c.source,
                helper=task.helper,
                helper_module=task.helper_module,
                primitives=task.primitives,
                version=version,
            ).model_dump()
        rows.append(
            VerdictRow(
                **c.key(),
                verdict=verdict,
                reason=reason,
                evaluator_version=version,
                **explanation,
            )
        )
    return rows


def run(run_id: str, params: Params) -> None:
    scenario = evidence.read_scenario(params.run(run_id).scenario)
    rows = verdict_rows(evidence.read_candidates(run_id), scenario, params.evaluators.structure)
    evidence.write_table(evidence.VERDICTS, run_id, rows)
