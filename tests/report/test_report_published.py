"""The page from hand-made evidence publishes per case only its index, outcome and exception
type name (``evidence.PUBLISHED_CASE_COLUMNS``): no hidden vector, no value returned, no
exception message; ``assay show`` still prints them from the local evidence."""

from __future__ import annotations

from pathlib import Path

from assay.pipeline.report import write_all
from assay.report.cell_browser import cell_records
from assay.report.database import connect
from assay.report.provenance import Provenance
from tests.publishable import published_text
from tests.report.evidence import write_dose_evidence

HIDDEN = ('"1234567812345678"', '"************5678"', "1234567812345678", "************5678")


def test_the_page_holds_no_hidden_vector_or_generated_value(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_dose_evidence(data)
    built = Provenance(assay_version="0.1.0", commit=None, commit_date=None, changed=())
    write_all(data, data / "report", tmp_path / "reports", None, provenance=built)
    for path in (data / "report").rglob("*"):
        if path.is_file():
            text = published_text(path)  # the page with its compressed cells decoded
            assert not [h for h in HIDDEN if h in text], path
            assert '"actual"' not in text and '"exception_message"' not in text, path


def test_published_cell_records_name_only_published_case_fields(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_dose_evidence(data)
    con = connect(data)
    published = [case for r in cell_records(con) for case in r.model_dump(mode="json")["cases"]]
    local = [
        case for r in cell_records(con, local=True) for case in r.model_dump(mode="json")["cases"]
    ]
    assert published and {k for case in published for k in case} == {
        "index", "outcome", "exception_type"
    }  # fmt: skip
    assert {"input", "expected", "actual", "exception_message"} <= set(local[0])
    assert '"1234567812345678"' in {case["input"] for case in local}
