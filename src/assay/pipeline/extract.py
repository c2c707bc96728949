"""``extract`` stage: raw responses → candidate sources."""

from __future__ import annotations

from assay import evidence
from assay.evidence import CallRecord, CandidateRow
from assay.extract import extract_candidate


def candidate_rows(calls: list[CallRecord]) -> list[CandidateRow]:
    rows = []
    for call in calls:
        extraction = extract_candidate(call.text if call.status == "completed" else None)
        rows.append(
            CandidateRow(
                **call.key(),
                execution_status=call.status,
                extract_status=extraction.status,
                source=extraction.source,
            )
        )
    return rows


def run(run_id: str) -> None:
    evidence.write_table(evidence.CANDIDATES, run_id, candidate_rows(evidence.read_calls(run_id)))
