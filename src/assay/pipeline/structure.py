"""``structure`` stage: every candidate → one structural verdict, evaluator version in each row.

A pure function of candidates, subjects and the evaluator versions. ``verdicts.parquet`` holds
the verdicts of the version the reports score with (``evaluators.structure``, or a run's entry
in ``evaluators.structure_runs``, see ``assay rescore``); ``versions.parquet`` holds every
registered version's verdicts side by side, so a rescoring never overwrites one and the report
can show which cells another version changes. Nothing here re-runs ``execute``.
"""

from __future__ import annotations

from assay.fixtures.model import Scenario
from assay.params import Params
from assay.pipeline import paths
from assay.pipeline.extract import CandidateRow, read_candidates
from assay.pipeline.subjects import read_scenario
from assay.records import CellKey, Verdict
from assay.structure import score
from assay.structure.versions import EVALUATOR_VERSIONS
from assay.tables import read_records, write_records


class VerdictRow(CellKey):
    verdict: Verdict | None
    """``None`` when there was no candidate to score (see ``reason``)."""
    reason: str
    evaluator_version: int


def verdict_rows(
    candidates: list[CandidateRow], scenario: Scenario, version: int
) -> list[VerdictRow]:
    tasks = {s.id: s.task for s in scenario.subjects}
    rows = []
    for c in candidates:
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
        rows.append(
            VerdictRow(
                **c.key(),
                verdict=verdict,
                reason=reason,
                evaluator_version=version,
            )
        )
    return rows


def read_verdict_versions(run_id: str) -> list[VerdictRow]:
    return read_records(paths.verdict_versions_table(run_id), VerdictRow)


def run(run_id: str, params: Params) -> None:
    scenario = read_scenario(params.run(run_id).scenario)
    candidates = read_candidates(run_id)
    scored = {
        version: verdict_rows(candidates, scenario, version)
        for version in sorted(EVALUATOR_VERSIONS)
    }
    chosen = params.structure_version(run_id)
    write_records(paths.verdicts_table(run_id), VerdictRow, scored[chosen])
    every = [row for version in sorted(scored) for row in scored[version]]
    write_records(paths.verdict_versions_table(run_id), VerdictRow, every)
