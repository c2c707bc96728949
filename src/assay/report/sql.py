"""Read-only SQL over the evidence: what ``assay sql`` runs.

Three locks, each enough against a different mistake:

1. only one statement per query, and only a query (``SELECT``, ``WITH``, ``FROM``, ``SHOW``,
   ``DESCRIBE``, ``SUMMARIZE``, ``EXPLAIN``): ``COPY``, ``ATTACH``, ``INSTALL``/``LOAD``,
   ``CREATE``, ``DROP``, ``INSERT``, ``SET``, ``EXPORT`` … are refused before anything runs;
2. DuckDB's file system is limited to the evidence folder (``enable_external_access = false``
   with ``allowed_directories``), so no statement reads or writes anything else, and no
   extension is installed or loaded;
3. the configuration is locked (``lock_configuration``), so a query cannot undo 2.

The connection is in memory: the views are DuckDB's only state, and they vanish with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

ALLOWED = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})
ALLOWED_WORDS = "SELECT, WITH, FROM, SHOW, DESCRIBE, SUMMARIZE, EXPLAIN"


class SqlRefused(ValueError):
    """The query is empty, not one statement, not valid SQL, or not a read-only query."""


def _one_line(error: Exception) -> str:
    """DuckDB's message without the quoted query and caret lines."""
    lines = []
    for line in str(error).splitlines():
        if not line.strip() or line.startswith("LINE "):
            break
        lines.append(line.strip())
    return " ".join(lines) or type(error).__name__


def _statement_name(statement: Any) -> str:
    return str(statement.type.name).replace("_", " ")


def lock_down(con: duckdb.DuckDBPyConnection, data: Path) -> None:
    """Limit the connection's file access to ``data`` and lock its configuration."""
    allowed = data.resolve().as_posix().rstrip("/") + "/"
    for statement in (
        f"SET allowed_directories = ['{allowed}']",
        "SET enable_external_access = false",
        "SET autoinstall_known_extensions = false",
        "SET autoload_known_extensions = false",
        "SET lock_configuration = true",
    ):
        con.execute(statement)


def check_query(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse anything but exactly one read-only query, with one line saying why."""
    try:
        statements = con.extract_statements(query)
    except duckdb.Error as exc:
        raise SqlRefused(_one_line(exc)) from None
    if not statements:
        raise SqlRefused(
            "empty query: give one SQL query, e.g. "
            '"SELECT run, arm, verdict, count(*) FROM verdicts GROUP BY ALL"'
        )
    if len(statements) > 1:
        raise SqlRefused(f"{len(statements)} statements: give one query per call")
    (statement,) = statements
    if statement.type not in ALLOWED:
        raise SqlRefused(
            f"{_statement_name(statement)} is not allowed: assay sql is read-only "
            f"(allowed: {ALLOWED_WORDS})"
        )


def read_only_query(data: Path, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of one read-only query over every view of ``data``."""
    from assay.report.database import connect

    con = connect(data)
    try:
        lock_down(con, data)
        check_query(con, query)
        try:
            cursor = con.execute(query)
        except duckdb.Error as exc:
            raise SqlRefused(_one_line(exc)) from None
        names = [column[0] for column in cursor.description or ()]
        return names, cursor.fetchall() if names else []
    finally:
        con.close()
