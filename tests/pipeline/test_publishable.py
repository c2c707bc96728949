"""What the default study publishes holds no hidden field, through real ``dvc repro`` (the
shared study, tests/study.py): the report's files (``data/report/``: the page with its cell
browser, the run, scenario and rescoring reports) and every export bundle (``data/export/``)
carry no hidden test vector (input or expected value), no reference solution beyond what a
candidate returned, and per case only its index, outcome and exception type name
(``evidence.PUBLISHED_CASE_COLUMNS``); ``assay show`` still prints the local details."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from assay import evidence
from assay.report.cell_payload import embedded
from tests.publishable import hidden_fields, leaked_vectors, scan
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]


def test_the_scan_finds_the_hidden_vectors_where_they_are(study: Study) -> None:
    """The scanner is not blind: the local correctness evidence holds the vectors it looks for."""
    data = study.repo.path / "data"
    vectors = {(h.scenario, h.subject, h.field.split()[1]) for h in hidden_fields(data)
               if not h.reference}  # fmt: skip
    assert len(vectors) >= 60, len(vectors)
    local = leaked_vectors(scan(data / "correctness", data, "*/correctness.parquet"))
    assert len(local) >= 0.5 * len(vectors), (len(local), len(vectors))


def test_the_report_publishes_no_hidden_field(study: Study) -> None:
    data = study.repo.path / "data"
    leaks = scan(data / "report", data)
    assert not leaks, f"{len(leaked_vectors(leaks))} vectors, e.g.\n" + "\n".join(
        leak.line() for leak in leaks[:10]
    )
    cells = embedded(study.read("data/report/index.html"))
    case_fields = {key for cell in cells for case in cell["cases"] for key in case}
    assert case_fields == {"index", "outcome", "exception_type"}, case_fields
    assert any(cell["cases"] for cell in cells)


def test_every_bundle_publishes_no_hidden_field(study: Study) -> None:
    data = study.repo.path / "data"
    bundles = sorted((data / "export").iterdir())
    assert {b.name for b in bundles} == set(study.params["runs"])
    leaks = scan(data / "export", data)
    assert not leaks, "\n".join(leak.line() for leak in leaks[:10])
    for bundle in bundles:
        table = bundle / "correctness" / evidence.CORRECTNESS.path(bundle.name)
        columns = set(pq.read_schema(table).names)
        assert {c for c in columns if c.startswith(("case_", "unpublished_"))} == set(
            evidence.PUBLISHED_CASE_COLUMNS
        ), bundle.name


def test_assay_show_still_prints_the_local_details(study: Study) -> None:
    """Local evidence stays readable on the machine that ran the study."""
    data: Path = study.repo.path / "data"
    rows = pq.read_table(evidence.CORRECTNESS.path("sim-follower-v1", data)).to_pylist()
    row = next(r for r in rows if r["case_inputs"])
    shown = study.repo.run(
        "python", "-m", "assay.cli", "show", "sim-follower-v1", row["cell_id"], "--no-prompt"
    ).stdout
    assert f"case {row['case_indexes'][0]}: {row['case_outcomes'][0]}  input " in shown
    assert row["case_inputs"][0] in shown and row["case_expected"][0] in shown
