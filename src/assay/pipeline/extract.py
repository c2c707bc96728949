"""``extract`` stage: raw responses → candidate sources, by the extraction version in
``evaluators.extraction`` (recorded in every row)."""

from __future__ import annotations

from assay import evidence
from assay.evidence import CallRecord, CandidateRow
from assay.extract import extract_candidate
from assay.params import Params


def candidate_rows(calls: list[CallRecord], version: int) -> list[CandidateRow]:
    rows = []
    for call in calls:
        extraction = extract_candidate(
            call.text if call.status == "completed" else None, version=version
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


def run(run_id: str, params: Params) -> None:
    rows = candidate_rows(evidence.read_calls(run_id), params.evaluators.extraction)
    evidence.write_table(evidence.CANDIDATES, run_id, rows)
