"""A DuckDB connection with views over every table of every run, for reports and for people.

Views: ``subjects``, ``prompts``, ``cells``, ``responses``, ``candidates``, ``verdicts``,
``correctness`` (one Parquet file per scenario or run each), ``runs`` (one row per planned run:
model, scenario, analysis plan, plan hash and authorization state), and the derived
``outcomes``, ``arm_medians`` and ``pairs`` (abstraction) and ``correctness_outcomes``,
``correctness_arm_medians`` and ``correctness_pairs`` (correctness), ``metrics`` (the measure
stage's long-form rows), ``metric_changes`` (those rows with verdict and family) and
``cell_details`` (one row per call: prompt, response, candidate, verdict with its explanation,
correctness cases; what the cell browser and ``assay show`` print). ``sign_test_p(for, against)`` is the exact two-sided sign test.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import duckdb
import pyarrow as pa

from assay.metrics import MetricRow
from assay.report.kinds import ABSTRACTION, KINDS, ReportKind
from assay.sandbox.cells import CorrectnessRow
from assay.stats import sign_test
from assay.tables import schema_for

BASE_VIEWS = ("views.sql", "outcomes.sql", "metric_changes.sql", "cell_details.sql")
PER_KIND_VIEWS = ("arm_medians.sql", "pairs.sql")
TABLE_GLOBS = {
    "subjects": "subjects/*/subjects.parquet",
    "prompts": "render/*/prompts.parquet",
    "cells": "execute/*/cells.parquet",
    "candidates": "extract/*/candidates.parquet",
    "verdicts": "structure/*/verdicts.parquet",
}


OPTIONAL_TABLES = {"correctness": ("correctness/*/correctness.parquet", CorrectnessRow)}
"""Tables a pipeline without that stage lacks: an empty, typed table stands in."""


def query_text(name: str, kind: ReportKind = ABSTRACTION) -> str:
    text = resources.files("assay.report").joinpath("queries", name).read_text(encoding="utf-8")
    return text.replace("{prefix}", kind.prefix).replace("{scale}", kind.scale_sql)


def _sign_test_p(favouring: int, against: int) -> float:
    return sign_test(int(favouring), int(against)).p_value


def runs_table(data: Path) -> pa.Table:
    rows = []
    for plan_path in sorted(data.glob("plan/*/plan.json")):
        plan = json.loads(plan_path.read_text(encoding="utf-8"))
        auth_path = data / "authorize" / plan["run"] / "authorization.json"
        auth = json.loads(auth_path.read_text(encoding="utf-8")) if auth_path.exists() else {}
        plan_hash = (plan_path.parent / "plan.sha256").read_text().strip()
        model = plan["model"]
        rows.append(
            {
                "run": plan["run"],
                "scenario": plan["scenario"],
                "model": model["model"],
                "provider": model["provider"],
                "simulated": model["provider"] == "simulated",
                "repeats": plan["repeats"],
                "arms": plan["arms"],
                "reference_arm": plan["reference_arm"],
                "alpha": plan["analysis"]["alpha"],
                "minimum_subjects": plan["analysis"]["minimum_subjects"],
                "plan_hash": plan_hash,
                "authorization": auth.get("state"),
                "cells": len(plan["cells"]),
                "requests": plan["budget"]["requests"],
                "worst_case_usd": plan["budget"]["worst_case_usd"],
                "preregistered_structure_evaluator": plan["analysis"]["structure_evaluator"],
            }
        )
    schema = pa.schema(
        [
            ("run", pa.string()),
            ("scenario", pa.string()),
            ("model", pa.string()),
            ("provider", pa.string()),
            ("simulated", pa.bool_()),
            ("repeats", pa.int64()),
            ("arms", pa.list_(pa.string())),
            ("reference_arm", pa.string()),
            ("alpha", pa.float64()),
            ("minimum_subjects", pa.int64()),
            ("plan_hash", pa.string()),
            ("authorization", pa.string()),
            ("cells", pa.int64()),
            ("requests", pa.int64()),
            ("worst_case_usd", pa.float64()),
            ("preregistered_structure_evaluator", pa.int64()),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema)


def _metrics_view(con: duckdb.DuckDBPyConnection, data: Path) -> None:
    """``metrics``: the measure stage's long-form rows of every run, with the run id."""
    pattern = "measure/*/metrics.parquet"
    if any(data.glob(pattern)):
        source = (
            f"read_parquet('{(data / pattern).as_posix()}', filename = true, union_by_name = true)"
        )
        con.execute(
            "CREATE OR REPLACE VIEW metrics AS SELECT regexp_extract(filename, 'measure/([^/]+)/', 1) AS run, "
            f"* EXCLUDE (filename) FROM {source}"
        )
    else:
        schema = pa.schema([("run", pa.string())] + list(schema_for(MetricRow)))
        con.register("metrics_empty", pa.Table.from_pylist([], schema=schema))
        con.execute("CREATE TABLE metrics AS SELECT * FROM metrics_empty")


def connect(data: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with every view assay defines over ``data``."""
    con = duckdb.connect()
    con.create_function("sign_test_p", _sign_test_p, ["BIGINT", "BIGINT"], "DOUBLE")
    runs = runs_table(data)
    con.register("runs_arrow", runs)
    con.execute("CREATE TABLE runs AS SELECT * FROM runs_arrow")
    con.unregister("runs_arrow")
    for view, pattern in TABLE_GLOBS.items():
        if not any(data.glob(pattern)):
            raise FileNotFoundError(
                f"no {view} table under {data} ({pattern}); run `dvc repro` first"
            )
    for view, (pattern, record) in OPTIONAL_TABLES.items():
        if any(data.glob(pattern)):
            source = f"read_parquet('{(data / pattern).as_posix()}', union_by_name = true)"
            con.execute(f"CREATE OR REPLACE VIEW {view} AS SELECT * FROM {source}")
        else:
            con.register(f"{view}_empty", pa.Table.from_pylist([], schema=schema_for(record)))
            con.execute(f"CREATE TABLE {view} AS SELECT * FROM {view}_empty")
    _metrics_view(con, data)
    for name in BASE_VIEWS:
        con.execute(query_text(name).replace("{data}", data.as_posix()))
    for kind in KINDS:
        for name in PER_KIND_VIEWS:
            con.execute(query_text(name, kind))
    return con
