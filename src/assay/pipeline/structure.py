"""``structure`` stage: every candidate → one structural verdict, evaluator version in each row,
and its explanation (deciding rule, helper and primitive calls with their lines).

A pure function of candidates, subjects and the evaluator version: rescoring with another
version is ``dvc repro`` after changing ``evaluators.structure``.
"""

from __future__ import annotations

from typing import Any

from assay.fixtures.model import Scenario
from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.extract import CandidateRow, read_candidates
from assay.pipeline.subjects import read_scenario
from assay.records import CellKey, Verdict
from assay.structure import score
from assay.structure.explain import explain
from assay.tables import write_records


class VerdictRow(CellKey):
    verdict: Verdict | None
    """``None`` when there was no candidate to score (see ``reason``)."""
    reason: str
    evaluator_version: int
    rule: str | None = None
    """The rule that decided (``assay.structure.explain.RULE_TEXT``); ``None`` when unscored."""
    helper_call_lines: tuple[int, ...] = ()
    helper_call_positions: tuple[str, ...] = ()
    primitive_calls: tuple[str, ...] = ()
    primitive_call_lines: tuple[int, ...] = ()
    same_name_call_lines: tuple[int, ...] = ()


def verdict_rows(
    candidates: list[CandidateRow], scenario: Scenario, version: int
) -> list[VerdictRow]:
    tasks = {s.id: s.task for s in scenario.subjects}
    rows = []
    for c in candidates:
        explanation: dict[str, Any] = {}
        if c.source is None:
            verdict, reason = (
                None,
                c.extract_status if c.execution_status == "completed" else c.execution_status,
            )
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
    scenario = read_scenario(params.run(run_id).scenario)
    rows = verdict_rows(read_candidates(run_id), scenario, params.evaluators.structure)
    write_records(paths.verdicts_table(run_id), VerdictRow, rows)
