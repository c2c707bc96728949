"""``assay sql QUERY``: one read-only query over every table of every run (DuckDB)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay.commands import UsageError, add_data_argument, add_described, print_table

DESCRIPTION = """\
Run one read-only query over the views of every run's evidence under --data: subjects,
prompts, cells, responses, candidates, verdicts, correctness, metrics, runs, and the derived
outcomes, arm_medians, pairs (their correctness_ twins) and metric_changes. SHOW TABLES lists
them; DESCRIBE verdicts lists a view's columns. Only queries run (SELECT, WITH, FROM, SHOW,
DESCRIBE, SUMMARIZE, EXPLAIN): COPY, ATTACH, INSTALL, CREATE, DROP and the like are refused,
and DuckDB cannot touch any file outside --data.

example: assay sql "SELECT run, arm, verdict, count(*) FROM verdicts GROUP BY ALL ORDER BY ALL"
"""


def _sql(args: argparse.Namespace) -> int:
    import duckdb

    from assay.report.sql import SqlRefused, read_only_query

    try:
        names, rows = read_only_query(Path(args.data), args.query)
    except (FileNotFoundError, SqlRefused, duckdb.Error) as exc:
        raise UsageError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    if not names:
        return 0
    shown = [["NULL" if v is None else str(v) for v in row] for row in rows]
    if args.format == "csv":
        import csv

        writer = csv.writer(sys.stdout)
        writer.writerow(names)
        writer.writerows([["" if v is None else v for v in row] for row in rows])
    else:
        print_table(names, shown)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sql = add_described(
        subparsers,
        "sql",
        "one read-only SQL query over every table of every run (DuckDB)",
        DESCRIPTION,
    )
    sql.add_argument("query", help="one SQL query")
    add_data_argument(sql)
    sql.add_argument(
        "--format", choices=("table", "csv"), default="table", help="output format (default: table)"
    )
    sql.set_defaults(handler=_sql)
