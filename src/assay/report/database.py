"""A DuckDB connection with views over every table of every run, for reports and for people.

Views: ``subjects``, ``prompts``, ``cells``, ``responses``, ``candidates``, ``verdicts`` (one
Parquet file per scenario or run each), ``runs`` (one row per planned run: model, scenario,
analysis plan, plan hash and authorization state), and the derived ``outcomes``,
``arm_medians`` and ``pairs``. ``sign_test_p(for, against)`` is the exact two-sided sign test.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import duckdb
import pyarrow as pa

from assay.stats import sign_test

BASE_VIEWS = ("views.sql",)
DERIVED_VIEWS = ("outcomes.sql", "arm_medians.sql", "pairs.sql")
TABLE_GLOBS = {
    "subjects": "subjects/*/subjects.parquet",
    "prompts": "render/*/prompts.parquet",
    "cells": "execute/*/cells.parquet",
    "candidates": "extract/*/candidates.parquet",
    "verdicts": "structure/*/verdicts.parquet",
}


def query_text(name: str) -> str:
    return resources.files("assay.report").joinpath("queries", name).read_text(encoding="utf-8")


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
    for name in BASE_VIEWS + DERIVED_VIEWS:
        con.execute(query_text(name).replace("{data}", data.as_posix()))
    return con
