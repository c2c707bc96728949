"""The report JSON files are declared records: each reads back into its record and writes the
same bytes again, and validates against the generated ``paa-report`` schema."""

from __future__ import annotations

import json
from pathlib import Path

from assay import schemas
from assay.pipeline.report import write_all
from assay.report.primary import report_json
from assay.report.provenance import Provenance
from assay.report.rescore import RescoreReport
from assay.report.run_records import RunReport
from tests.report.evidence import write_dose_evidence
from tests.report.evidence_kit import write_run

SUBJECTS = [f"t{i:02d}" for i in range(12)]


def test_every_report_file_is_its_record_dumped(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_dose_evidence(data)
    regressed = {s: {"clean": ["reused"] * 2, "inconsistent": ["duplicated"] * 2} for s in SUBJECTS}
    tied = {s: {"clean": ["reused"] * 2, "inconsistent": ["reused"] * 2} for s in SUBJECTS}
    write_run(data, "rescored", {7: {1: regressed}, 6: {1: tied}})
    built = Provenance(assay_version="0.1.0", commit=None, commit_date=None)
    write_all(data, data / "report", tmp_path / "reports", None, provenance=built)
    files = {
        RunReport: sorted((data / "report" / "runs").glob("*/*.json")),
        RescoreReport: sorted((data / "report" / "rescore").glob("*.json")),
    }
    assert len(files[RunReport]) == 6 and len(files[RescoreReport]) == 1
    for record, paths in files.items():
        for path in paths:
            text = path.read_text()
            assert report_json(record.model_validate_json(text)) == text, path
            error = schemas.first_error("paa-report", record.__name__, json.loads(text))
            assert error is None, (path, error)
    rescoring = json.loads((data / "report" / "runs" / "rescored" / "abstraction.json").read_text())
    assert rescoring["rescoring"] and "adjudication" not in rescoring
