"""``extract`` stage: raw responses → candidate sources, by the extraction version in
``evaluators.extraction`` (recorded in every row).

Extraction version 3 compares each answer with the repository its prompt showed, so the stage
reads the run's rendered prompts (``data/render/<scenario>``, or the sealed copy a paid run was
sent from) and its plan: at chain steps 2-5 the target held the earlier steps, appended as the
run rendered them with the plan's preregistered extraction version (``assay.science.chain_prompts``).

``candidates.parquet`` holds the candidates of the version the reports use;
``versions.parquet`` every registered version's side by side, so the structure stage can score
them and the report show what another version changes (``assay.report.rescore``). Nothing here
re-runs ``execute``.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay import evidence
from assay.evidence import CallRecord, CandidateRow
from assay.pipeline.stage_params import Declaration, StageParams
from assay.science.chain_prompts import ChainRenderer, shown_repositories
from assay.science.extract import VERSIONS, extract_candidate
from assay.science.reprint import Repository


def candidate_rows(
    calls: list[CallRecord], version: int, repositories: Mapping[tuple[str, int], Repository]
) -> list[CandidateRow]:
    rows = []
    for call in calls:
        extraction = extract_candidate(
            call.text if call.status == "completed" else None,
            version=version,
            repository=repositories[(call.cell_id, call.step)],
        )
        rows.append(
            CandidateRow(
                **call.key(),
                execution_status=call.status,
                extract_status=extraction.status,
                source=extraction.source,
                extraction_version=version,
            )
        )
    return rows


PARAMS = Declaration(keys=("evaluators.extraction",))


def read_params(params: StageParams) -> int:
    """The extraction version the reports use."""
    return params.typed("evaluators.extraction", int)


def run(run_id: str, params: StageParams) -> None:
    plan = evidence.read_plan(run_id)  # first: a run never planned says so before anything
    version = read_params(params)
    prompts = evidence.read_run_prompt_rows(run_id, plan.scenario)
    calls = evidence.read_calls(run_id)
    repositories = shown_repositories(calls, ChainRenderer(prompts, plan.analysis.extraction))
    every = {version: candidate_rows(calls, version, repositories) for version in sorted(VERSIONS)}
    evidence.write_table(evidence.CANDIDATES, run_id, every[version])
    side_by_side = [row for version in sorted(every) for row in every[version]]
    evidence.write_table(evidence.CANDIDATE_VERSIONS, run_id, side_by_side)
