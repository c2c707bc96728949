"""A DuckDB connection with views over every table of every run, for reports and for people.

The Parquet views are registered from :data:`assay.evidence.TABLES` (one per declared table:
``subjects``, ``prompts``, ``cells``, ``responses``, ``candidates``, ``verdicts``,
``correctness``, ``metrics``); ``runs`` is one row per planned run (:class:`~assay.evidence.RunRow`,
from each plan and its authorization) with its prompting ``mode`` and ``kind`` in words
(:mod:`assay.report.modes`). ``connect(data, runs)`` reads only the runs named: those
params.yaml declares, so a removed run's folders left on disk never reach a report. The derived views follow: ``outcomes``, ``arm_medians``
and ``pairs`` (abstraction), ``correctness_outcomes``, ``correctness_arm_medians`` and
``correctness_pairs`` (correctness), ``metric_changes`` (metrics with verdict and family), and
``sent_prompts`` (the prompt each call was sent, chain steps included),
``cell_details`` (one row per call: prompt, response, candidate, verdict with its explanation,
correctness cases; what the cell browser and ``assay show`` print).
``sign_test_p(for, against)`` is the exact two-sided sign test; ``missing_state(reason)`` the
missing state (:data:`assay.core.records.MissingState`) of a cell's missing-evidence reason.
"""

from __future__ import annotations

from collections.abc import Collection
from importlib import resources
from pathlib import Path

import duckdb
import pyarrow as pa

from assay import evidence
from assay.core.errors import MissingEvidence
from assay.core.tables import schema_for
from assay.evidence import RunRow, Table
from assay.evidence.rows import MISSING_STATE_OF
from assay.report.kinds import ABSTRACTION, KINDS, ReportKind
from assay.report.modes import plan_kind, plan_mode
from assay.science.stats import sign_test_p

BASE_VIEWS = ("outcomes.sql", "metric_changes.sql", "sent_prompts.sql", "cell_details.sql")
PER_KIND_VIEWS = ("arm_medians.sql", "pairs.sql")


def query_text(name: str, kind: ReportKind = ABSTRACTION) -> str:
    text = resources.files("assay.report").joinpath("queries", name).read_text(encoding="utf-8")
    return text.replace("{prefix}", kind.prefix).replace("{scale}", kind.scale_sql)


def _sign_test_p(favouring: int, against: int) -> float:
    return sign_test_p(int(favouring), int(against))


def missing_state_macro() -> str:
    """``missing_state(reason)`` as a DuckDB macro, from the one mapping in Python."""
    cases = " ".join(
        f"WHEN '{reason}' THEN '{state}'" for reason, state in MISSING_STATE_OF.items()
    )
    return f"CREATE OR REPLACE MACRO missing_state(reason) AS CASE reason {cases} END"


RUN_LABELS = (pa.field("mode", pa.string()), pa.field("kind", pa.string()))
"""The ``runs`` columns beyond :class:`~assay.evidence.RunRow`: how the run was prompted and
what answered it (:func:`assay.report.modes.plan_mode`, :func:`~assay.report.modes.plan_kind`)."""


def runs_table(data: Path, runs: Collection[str] | None = None) -> pa.Table:
    rows = []
    for row in evidence.read_runs(data, runs):
        plan = evidence.read_plan(row.run, data)
        rows.append(
            {
                **row.model_dump(),
                "mode": plan_mode(plan),
                "kind": plan_kind(plan, row.simulated),
            }
        )
    schema = schema_for(RunRow)
    for field in RUN_LABELS:
        schema = schema.append(field)
    return pa.Table.from_pylist(rows, schema=schema)


def _register_arrow(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
    con.register(f"{name}_arrow", table)
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM {name}_arrow")
    con.unregister(f"{name}_arrow")


def register_table(
    con: duckdb.DuckDBPyConnection, data: Path, table: Table, runs: Collection[str] | None = None
) -> None:
    """One view over every scenario's or run's file of ``table`` (of the runs named in
    ``runs`` only, when given); a missing optional table becomes an empty one typed from its
    row."""
    files = sorted(
        path
        for path in data.glob(table.pattern())
        if runs is None or table.per != "run" or path.parent.name in runs
    )
    if not files:
        if table.required:
            raise MissingEvidence(
                f"no {table.view} table under {data} ({table.pattern()}); run `uv run dvc "
                "repro` first"
            )
        _register_arrow(con, table.view, pa.Table.from_pylist([], schema=schema_for(table.row)))
        return
    # Columns a file lacks (an export bundle leaves the unpublished ones out) read as NULL:
    # the files are unioned by name with an empty table typed from the row.
    declared = f"_{table.view}_declared"
    _register_arrow(con, declared, pa.Table.from_pylist([], schema=schema_for(table.row)))
    listed = ", ".join("'" + path.as_posix().replace("'", "''") + "'" for path in files)
    parquet = f"read_parquet([{listed}], union_by_name = true)"
    source = f"(SELECT * FROM {parquet} UNION ALL BY NAME SELECT * FROM {declared})"
    where = f" WHERE {table.where}" if table.where else ""
    con.execute(
        f"CREATE OR REPLACE VIEW {table.view} AS SELECT {table.select} FROM {source}{where}"
    )


def connect(data: Path, runs: Collection[str] | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with every view assay defines over ``data``: over the runs named in
    ``runs`` only, when given (the runs params.yaml declares), else over every run found."""
    con = duckdb.connect()
    con.create_function("sign_test_p", _sign_test_p, ["BIGINT", "BIGINT"], "DOUBLE")
    con.execute(missing_state_macro())
    _register_arrow(con, "runs", runs_table(data, runs))
    for table in evidence.TABLES:
        register_table(con, data, table, runs)
    for name in BASE_VIEWS:
        con.execute(query_text(name))
    for kind in KINDS:
        for name in PER_KIND_VIEWS:
            con.execute(query_text(name, kind))
    return con
