"""The SQL boundary (assay.report.query): a query whose column is renamed fails at the query,
naming the query and the columns, not later in a renderer."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.report import database
from assay.report.database import connect
from assay.report.primary import build_reports
from assay.report.query import ReportQueryError
from tests.report.evidence import write_dose_evidence


def test_a_renamed_column_fails_at_its_query(tmp_path: Path, monkeypatch) -> None:
    write_dose_evidence(tmp_path / "data")
    con = connect(tmp_path / "data")
    assert build_reports(con)["run-a"].sign_tests  # the real query gives records

    real = database.query_text

    def renamed(name: str, *args):
        text = real(name, *args)
        return (
            text.replace("AS favouring_arm", "AS favoring_arm")
            if name == "comparisons.sql"
            else text
        )

    monkeypatch.setattr("assay.report.primary.query_text", renamed)
    with pytest.raises(ReportQueryError) as failure:
        build_reports(con)
    message = str(failure.value)
    assert "queries/comparisons.sql" in message
    assert "missing column `favouring_arm`" in message
    assert "unexpected column `favoring_arm`" in message
