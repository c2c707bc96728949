"""``structure`` stage: every candidate → one structural verdict, evaluator version in each row.

A pure function of candidates, subjects and the evaluator version: rescoring with another
version is ``dvc repro`` after changing ``evaluators.structure``.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay import evidence
from assay.evidence import CandidateRow, VerdictRow
from assay.fixtures.model import Scenario
from assay.params import Params
from assay.records import Verdict
from assay.structure import score


def verdict_for(
    c: CandidateRow, helper: str, helper_module: str | None, primitives: Sequence[str], version: int
) -> tuple[Verdict | None, str]:
    """One candidate's verdict and reason (``None`` and why, when there was no candidate)."""
    if c.source is None:
        return None, c.missing_reason
    result = score(
        c.source, helper=helper, helper_module=helper_module, primitives=primitives, version=version
    )
    return result.verdict, result.reason


def verdict_rows(
    candidates: list[CandidateRow], scenario: Scenario, version: int
) -> list[VerdictRow]:
    tasks = {s.id: s.task for s in scenario.subjects}
    rows = []
    for c in candidates:
        task = tasks[c.subject]
        verdict, reason = verdict_for(c, task.helper, task.helper_module, task.primitives, version)
        rows.append(
            VerdictRow(
                **c.key(),
                verdict=verdict,
                reason=reason,
                evaluator_version=version,
            )
        )
    return rows


def run(run_id: str, params: Params) -> None:
    scenario = evidence.read_scenario(params.run(run_id).scenario)
    rows = verdict_rows(evidence.read_candidates(run_id), scenario, params.evaluators.structure)
    evidence.write_table(evidence.VERDICTS, run_id, rows)
