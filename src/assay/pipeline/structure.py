"""``structure`` stage: every candidate → one structural verdict, evaluator version in each row,
and its explanation (deciding rule, helper and primitive calls with their lines).

A pure function of candidates, subjects and the evaluator versions. ``verdicts.parquet`` holds
the verdicts of the version the reports score with (``evaluators.structure``, or a run's entry
in ``evaluators.structure_runs``, see ``assay rescore``); ``versions.parquet`` holds every
registered version's verdicts side by side, so a rescoring never overwrites one and the report
can show which cells another version changes; ``extractions.parquet`` the verdicts (under the
reported evaluator version) of every extraction version's candidates (the extract stage's
``versions.parquet``), so the report can show what re-extracting changes. Nothing here re-runs
``execute``.

A cell's steps are scored in order and each gets the verdicts of the cell's earlier steps under
the same version (v8 decides a call of the model's own earlier chain step by them).
"""

from __future__ import annotations

from collections.abc import Mapping

from assay import evidence
from assay.config.params import Evaluators
from assay.core.records import Verdict
from assay.evidence import CandidateRow, ExtractionVerdictRow, VerdictRow
from assay.fixtures.model import Scenario
from assay.pipeline.stage_params import Declaration, StageParams
from assay.structure import gated_candidate, judge, verdicts_in_step_order
from assay.structure.explain import explain
from assay.structure.versions import EVALUATOR_VERSIONS


def verdict_rows(
    candidates: list[CandidateRow], scenario: Scenario, version: int
) -> list[VerdictRow]:
    tasks = {s.id: s.task for s in scenario.subjects}

    def row(c: CandidateRow, earlier: Mapping[int, Verdict | None]) -> VerdictRow:
        if c.source is None:  # no candidate: no verdict, and why
            return VerdictRow(**c.key(), verdict=None, reason=c.missing_reason,
                              evaluator_version=version)  # fmt: skip
        task = tasks[c.subject]
        candidate = gated_candidate(c.source, helper=task.helper, helper_module=task.helper_module,
                                    primitives=task.primitives, version=version,
                                    earlier=earlier)  # fmt: skip
        result = judge(candidate, version)  # parsed once for the verdict and its explanation
        return VerdictRow(
            **c.key(),
            verdict=result.verdict,
            reason=result.reason,
            evaluator_version=version,
            **explain(candidate).model_dump(),
        )

    return verdicts_in_step_order(candidates, row, lambda r: r.verdict)


PARAMS = Declaration(keys=("evaluators",))


def read_params(params: StageParams) -> int:
    """The structural evaluator version the reports score the run with."""
    return params.typed("evaluators", Evaluators).structure_version(params.key)


def run(run_id: str, params: StageParams) -> None:
    version = read_params(params)
    scenario = evidence.read_run_scenario(run_id, evidence.read_plan(run_id).scenario)
    candidates = evidence.read_candidates(run_id)
    scored = {
        version: verdict_rows(candidates, scenario, version)
        for version in sorted(EVALUATOR_VERSIONS)
    }
    reported = scored[version]
    evidence.write_table(evidence.VERDICTS, run_id, reported)
    every = [row for version in sorted(scored) for row in scored[version]]
    evidence.write_table(evidence.VERDICT_VERSIONS, run_id, every)
    evidence.write_table(
        evidence.EXTRACTION_VERDICTS,
        run_id,
        extraction_verdicts(run_id, scenario, version, candidates, reported),
    )


def extraction_verdicts(
    run_id: str,
    scenario: Scenario,
    version: int,
    candidates: list[CandidateRow],
    reported: list[VerdictRow],
) -> list[ExtractionVerdictRow]:
    """The verdicts of every extraction version's candidates under evaluator ``version``
    (``reported``: those of ``candidates``, the ones the reports use, not scored twice)."""
    every: list[CandidateRow] = evidence.read_table(evidence.CANDIDATE_VERSIONS, run_id)
    used = {c.extraction_version for c in candidates}
    rows = []
    for extraction in sorted({c.extraction_version for c in every}):
        chosen = [c for c in every if c.extraction_version == extraction]
        scored = reported if {extraction} == used else verdict_rows(chosen, scenario, version)
        rows += [
            ExtractionVerdictRow(**row.model_dump(), extraction_version=extraction)
            for row in scored
        ]
    return rows
