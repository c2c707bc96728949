"""A bundle's report, recomputed from the bundle alone by the pipeline's own report code.

The bundle mirrors ``data/``, so :func:`assay.report.database.connect` builds the same DuckDB
views over it and :func:`assay.report.primary.build_reports` runs the same SQL: there is one
report implementation, whether the report comes from ``dvc repro``, ``export`` or ``verify``.
"""

from __future__ import annotations

from pathlib import Path

from assay.evidence.paths import DATA
from assay.report.database import connect
from assay.report.kinds import ABSTRACTION, CORRECTNESS
from assay.report.primary import build_reports, render_markdown, report_json
from assay.report.run_records import RunReport

_KINDS = {ABSTRACTION.name: ABSTRACTION, CORRECTNESS.name: CORRECTNESS}


def bundle_report(bundle: Path, kind: str, run: str) -> RunReport:
    con = connect(bundle / DATA)
    try:
        return build_reports(con, _KINDS[kind])[run]
    finally:
        con.close()


def report_files(kind: str, report: RunReport) -> dict[str, bytes]:
    """The bundle's report files (same bytes as ``data/report/runs/<run>/<kind>.*``)."""
    return {
        f"report/{kind}.json": report_json(report).encode(),
        f"report/{kind}.md": render_markdown(report).encode(),
    }
