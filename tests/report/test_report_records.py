"""The report JSON files are declared records: each reads back into its record and writes the
same bytes again, and validates against the generated ``paa-report`` schema."""

from __future__ import annotations

import json
from pathlib import Path

from assay.export import schemas
from assay.pipeline.report import write_all
from assay.report.codebase_sets import CodebaseSets
from assay.report.costs import Costs
from assay.report.primary import report_json
from assay.report.provenance import Provenance
from assay.report.rescore import RescoreReport
from assay.report.run_records import RunReport
from assay.report.scenarios import ScenarioReport
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
    report = data / "report"
    files = {
        RunReport: sorted((report / "runs").glob("*/*.json")),
        RescoreReport: sorted((report / "rescore").glob("*.json")),
        ScenarioReport: sorted((report / "scenarios").glob("*.json")),
        CodebaseSets: [report / "codebase_sets.json"],
        Costs: [report / "duplication_cost.json"],
    }
    assert len(files[RunReport]) == 6 and len(files[RescoreReport]) == 1
    assert len(files[ScenarioReport]) == 2
    for record, paths in files.items():
        for path in paths:
            text = path.read_text()
            assert report_json(record.model_validate_json(text)) == text, path
            error = schemas.first_error("paa-report", record.__name__, json.loads(text))
            assert error is None, (path, error)
    rescoring = json.loads((report / "runs" / "rescored" / "abstraction.json").read_text())
    assert rescoring["rescoring"] and "adjudication" not in rescoring
    for headline in json.loads((tmp_path / "reports" / "metrics.json").read_text()).values():
        assert schemas.first_error("paa-report", "Headline", headline) is None
