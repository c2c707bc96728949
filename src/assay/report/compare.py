"""Cross-model comparison (exploratory): two runs of the same scenario, arm by arm.

Per subject, the cells that reused the helper in each run (the seed's "Sol reused in more cells
than Haiku on 6 of 11 subjects and in fewer on none, sign test p = 0.03"), and the exact sign
test over the subjects where the counts differ. Cells without a scored verdict do not count as
reuse; their number is shown beside each count. The study did not plan this comparison, so it
is labelled exploratory and never called significant.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import duckdb

from assay.errors import InputError
from assay.report.primary import rows_of
from assay.stats import sign_test_p

EXPLORATORY = "exploratory: a comparison the study did not preregister; not a confirmatory test"


class CompareError(InputError):
    """The two runs cannot be compared (unknown, the same run, different scenarios or
    different numbers of repeats)."""


def _counts(con: duckdb.DuckDBPyConnection, run: str) -> dict[tuple[int, str, str], dict[str, int]]:
    rows = con.execute(
        "SELECT step, arm, subject, count(*) FILTER (WHERE outcome = 'reused') AS reused, "
        "count(ord) AS scored, count(*) AS cells FROM outcomes WHERE run = ? GROUP BY ALL",
        [run],
    ).fetchall()
    return {(s, a, subj): {"reused": r, "scored": sc, "cells": c} for s, a, subj, r, sc, c in rows}


def compare_runs(con: duckdb.DuckDBPyConnection, first: str, second: str) -> dict[str, Any]:
    """Every arm and step of two runs of one scenario, subject by subject."""
    runs = {r["run"]: r for r in rows_of(con, "SELECT * FROM runs")}
    for name in (first, second):
        if name not in runs:
            raise CompareError(f"no run {name!r} (planned runs: {', '.join(sorted(runs))})")
    if first == second:
        raise CompareError("compare two different runs")
    if runs[first]["scenario"] != runs[second]["scenario"]:
        raise CompareError(
            f"{first} is scenario {runs[first]['scenario']!r} and {second} is "
            f"{runs[second]['scenario']!r}: only runs of the same scenario compare"
        )
    if runs[first]["repeats"] != runs[second]["repeats"]:
        raise CompareError(
            f"{first} has {runs[first]['repeats']} repeats and {second} "
            f"{runs[second]['repeats']}: reuse counts compare only over equal repeats"
        )
    a, b = _counts(con, first), _counts(con, second)
    tests = []
    for step, arm in sorted({(s, arm) for s, arm, _ in a} | {(s, arm) for s, arm, _ in b}):
        subjects = sorted({subj for s, x, subj in (*a, *b) if (s, x) == (step, arm)})
        detail: list[dict[str, Any]] = []
        for subject in subjects:
            ca = a.get((step, arm, subject), {"reused": 0, "scored": 0, "cells": 0})
            cb = b.get((step, arm, subject), {"reused": 0, "scored": 0, "cells": 0})
            diff = ca["reused"] - cb["reused"]
            detail.append({"subject": subject, "first_reused": ca["reused"],
                           "first_scored": ca["scored"], "second_reused": cb["reused"],
                           "second_scored": cb["scored"],
                           "direction": "first" if diff > 0 else "second" if diff < 0 else "equal"})  # fmt: skip
        more = [d["direction"] for d in detail].count("first")
        fewer = [d["direction"] for d in detail].count("second")
        tests.append(
            {
                "step": step,
                "arm": arm,
                "subjects": len(detail),
                "first_more": more,
                "second_more": fewer,
                "equal": len(detail) - more - fewer,
                "first_reused_cells": sum(d["first_reused"] for d in detail),
                "second_reused_cells": sum(d["second_reused"] for d in detail),
                "p_value": round(sign_test_p(more, fewer), 10),
                "subjects_detail": detail,
            }
        )
    return {
        "report": "model-comparison",
        "exploratory": True,
        "note": EXPLORATORY,
        "scenario": runs[first]["scenario"],
        "first": {k: runs[first][k] for k in ("run", "model", "simulated")},
        "second": {k: runs[second][k] for k in ("run", "model", "simulated")},
        "tests": tests,
    }


def scenario_comparisons(
    con: duckdb.DuckDBPyConnection, runs: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every pair of one scenario's runs with equal repeats; simulated runs pair only with
    simulated ones."""
    return [
        compare_runs(con, x["run"], y["run"])
        for x, y in combinations(sorted(runs, key=lambda r: r["run"]), 2)
        if x["simulated"] == y["simulated"] and x["repeats"] == y["repeats"]
    ]


def sentence(comparison: dict[str, Any], test: dict[str, Any]) -> str:
    """``sol reused in more cells than haiku on 6 of 11 subjects and in fewer on 0 (p = 0.03125)``."""
    first, second = comparison["first"]["run"], comparison["second"]["run"]
    step = "" if test["step"] == 1 else f", step {test['step']}"
    return (
        f"{test['arm']}{step}: `{first}` reused in more cells than `{second}` on "
        f"{test['first_more']} of {test['subjects']} subjects and in fewer on "
        f"{test['second_more']} (sign test p = {test['p_value']:.4g}; "
        f"{test['first_reused_cells']} against {test['second_reused_cells']} reused cells)"
    )


def render_comparison_markdown(comparison: dict[str, Any]) -> str:
    first, second = comparison["first"], comparison["second"]
    parts = [
        f"# Cross-model comparison (exploratory): {first['run']} against {second['run']}\n",
        f"_{comparison['note'].capitalize()}._\n",
        (
            f"Scenario `{comparison['scenario']}`: `{first['run']}` ({first['model']}) and "
            f"`{second['run']}` ({second['model']}). Per subject, the cells that reused the "
            "helper (scored cells in brackets).\n"
        ),
    ]
    for test in comparison["tests"]:
        parts.append(f"## {test['arm']}" + ("" if test["step"] == 1 else f", step {test['step']}"))
        parts.append("\n" + sentence(comparison, test) + ".\n")
        lines = [f"| subject | {first['run']} | {second['run']} |", "|---|---|---|"]
        lines += [
            f"| {d['subject']} | {d['first_reused']} ({d['first_scored']}) | "
            f"{d['second_reused']} ({d['second_scored']}) |"
            for d in test["subjects_detail"]
        ]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
