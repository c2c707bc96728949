"""``extract`` stage: raw responses → candidate sources, by the extraction version in
``evaluators.extraction`` (recorded in every row)."""

from __future__ import annotations

from assay.execute import CallRecord
from assay.extract import ExtractStatus, extract_candidate
from assay.params import Params
from assay.pipeline import paths
from assay.records import CellKey
from assay.tables import read_records, write_records


class CandidateRow(CellKey):
    execution_status: str
    extract_status: ExtractStatus
    source: str | None
    extraction_version: int


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


def read_candidates(run_id: str) -> list[CandidateRow]:
    return read_records(paths.candidates_table(run_id), CandidateRow)


def run(run_id: str, params: Params) -> None:
    calls = read_records(paths.cells_table(run_id), CallRecord)
    rows = candidate_rows(calls, params.evaluators.extraction)
    write_records(paths.candidates_table(run_id), CandidateRow, rows)
