"""The read-only locks of `assay sql`, on a bare DuckDB connection over a scratch data folder."""

from __future__ import annotations

import duckdb
import pytest

from assay.report.sql import SqlRefused, check_query, lock_down

REFUSED = {
    "COPY (SELECT 1) TO 'data/x.parquet'": "COPY is not allowed",
    "ATTACH 'other.duckdb'": "ATTACH is not allowed",
    "INSTALL httpfs": "is not allowed",
    "CREATE TABLE t AS SELECT 1": "CREATE is not allowed",
    "CREATE VIEW v AS SELECT 1": "CREATE is not allowed",
    "DROP VIEW verdicts": "DROP is not allowed",
    "INSERT INTO t VALUES (1)": "INSERT is not allowed",
    "SET lock_configuration = false": "SET is not allowed",
    "EXPORT DATABASE 'out'": "EXPORT is not allowed",
    "CALL pragma_version()": "CALL is not allowed",
    "": "empty query",
    "/* only a comment */": "empty query",
    "SELEC 1": "syntax error",
    "SELECT 1; SELECT 2": "2 statements",
}
ALLOWED = [
    "SELECT 1",
    "WITH a AS (SELECT 1 AS x) SELECT x FROM a",
    "FROM t",
    "SHOW TABLES",
    "DESCRIBE t",
    "SUMMARIZE t",
    "EXPLAIN SELECT 1",
]


@pytest.fixture
def con(tmp_path):
    (tmp_path / "data").mkdir()
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t AS SELECT 1 AS x")
    connection.execute(f"COPY t TO '{tmp_path / 'data' / 't.parquet'}' (FORMAT parquet)")
    lock_down(connection, tmp_path / "data")
    yield connection
    connection.close()


@pytest.mark.parametrize("query,message", REFUSED.items(), ids=list(REFUSED))
def test_refused_statements_are_one_line(con, query, message):
    with pytest.raises(SqlRefused) as refused:
        check_query(con, query)
    assert message in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("query", ALLOWED)
def test_queries_pass(con, query):
    check_query(con, query)
    con.execute(query).fetchall()


def test_the_file_system_is_limited_to_data_and_locked(con, tmp_path):
    assert con.execute(f"SELECT x FROM '{tmp_path / 'data' / 't.parquet'}'").fetchall() == [(1,)]
    (tmp_path / "secret.csv").write_text("a\n1\n")
    for statement in (
        f"SELECT * FROM read_csv('{tmp_path / 'secret.csv'}')",
        f"COPY t TO '{tmp_path / 'leak.csv'}'",
        f"ATTACH '{tmp_path / 'other.duckdb'}'",
        "INSTALL httpfs",
    ):
        with pytest.raises(duckdb.Error):
            con.execute(statement)
    with pytest.raises(duckdb.Error, match="locked"):
        con.execute("SET enable_external_access = true")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "secret.csv"]
