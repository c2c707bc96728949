"""The SQL boundary of the reports: every query's rows leave DuckDB here, validated into a
frozen row record, so a renamed or missing column fails at the query that lost it (with the
query and the columns named), never later in whichever renderer reads it.

This is the only place in ``assay.report`` where a row is a plain mapping (column name to
value), between DuckDB's cursor and the record's validation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import duckdb
from pydantic import ValidationError

from assay.core.errors import EvidenceError
from assay.core.records import Frozen

R = TypeVar("R", bound=Frozen)


class ReportQueryError(EvidenceError):
    """A report query's columns do not match the row record it is read into: a renamed, missing
    or extra column. Raised at the query (a defect of ``queries/*.sql`` or of the record)."""


def _columns(cursor: duckdb.DuckDBPyConnection) -> list[str]:
    return [column[0] for column in cursor.description or ()]


def _mismatch(query: str, row: type[Frozen], columns: Sequence[str], error: ValidationError) -> str:
    required = {name for name, field in row.model_fields.items() if field.is_required()}
    missing = sorted(required - set(columns))
    unexpected = sorted(set(columns) - set(row.model_fields))
    said = []
    if missing:
        said.append("missing column " + ", ".join(f"`{name}`" for name in missing))
    if unexpected:
        said.append("unexpected column " + ", ".join(f"`{name}`" for name in unexpected))
    if not said:
        said.append(str(error))
    return f"report query {query} does not give {row.__name__} rows: {'; '.join(said)}"


def _validated(
    cursor: duckdb.DuckDBPyConnection, row: type[R], query: str, key: str | None
) -> Iterator[tuple[Any, R]]:
    columns = _columns(cursor)
    if key is not None and key not in columns:
        raise ReportQueryError(f"report query {query} has no `{key}` column to group by")
    fields = [name for name in columns if name != key]
    for values in cursor.fetchall():
        mapping: dict[str, Any] = dict(zip(columns, values, strict=True))
        grouped_by = mapping.pop(key) if key is not None else None
        try:
            yield grouped_by, row.model_validate(mapping)
        except ValidationError as error:
            raise ReportQueryError(_mismatch(query, row, fields, error)) from None


def rows(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    row: type[R],
    *,
    query: str = "inline SQL",
    parameters: Sequence[object] = (),
) -> list[R]:
    """The query's rows as ``row`` records, in the query's order; ``query`` names it in the
    error a mismatch raises (:class:`ReportQueryError`)."""
    cursor = con.execute(sql, list(parameters))
    return [record for _, record in _validated(cursor, row, query, None)]


def rows_by_run(
    con: duckdb.DuckDBPyConnection, sql: str, row: type[R], *, query: str = "inline SQL"
) -> dict[str, list[R]]:
    """The query's rows grouped by their ``run`` column (which the records leave out: a run's
    report holds its own rows only), each group in the query's order."""
    grouped: dict[str, list[R]] = {}
    for run, record in _validated(con.execute(sql), row, query, "run"):
        grouped.setdefault(run, []).append(record)
    return grouped
