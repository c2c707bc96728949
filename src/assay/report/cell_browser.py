"""Every cell with what explains it, for the HTML cell browser and ``assay show RUN CELL``.

One record per provider call from the ``cell_details`` view (prompt, raw response, extracted
candidate, verdict with the deciding rule and the helper and primitive calls with their lines,
correctness per case, cost) plus the cell's metric deltas from ``metrics``.

What the page carries is publishable: per case only the columns of
``evidence.PUBLISHED_CASE_COLUMNS`` (index, outcome, exception type name). ``local=True`` (``assay
show``, on the machine that holds ``data/``) adds ``evidence.LOCAL_CASE_COLUMNS``: the hidden
vector's input and expected value, the value returned and the exception message.
"""

from __future__ import annotations

from typing import Any

import duckdb

from assay.evidence.rows import LOCAL_CASE_COLUMNS, PUBLISHED_CASE_COLUMNS
from assay.structure.explain import RULE_TEXT

SUMMARY_COLUMNS = (
    "run", "cell_id", "subject", "arm", "repeat", "step", "status", "outcome", "verdict_reason",
    "correctness_outcome", "cost_usd",
)  # fmt: skip
"""The browser table's columns, in order."""


def _list(value: Any) -> list[Any]:
    return list(value) if value is not None else []


CASE_FIELDS = {
    "case_indexes": "index", "case_outcomes": "outcome", "case_exception_types": "exception_type",
    "case_inputs": "input", "case_expected": "expected",
    "unpublished_case_actuals": "actual", "unpublished_case_messages": "exception_message",
}  # fmt: skip
"""Each case column's name in a cell record's ``cases``."""


def cases(row: dict[str, Any], local: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Correctness per case: index, outcome and exception type name; with ``local`` (the
    row's ``LOCAL_CASE_COLUMNS``) also input, expected, actual and exception message."""
    outcomes = _list(row["case_outcomes"])
    values = {name: row[name] for name in PUBLISHED_CASE_COLUMNS}
    if local is not None:
        values.update({name: local.get(name) for name in LOCAL_CASE_COLUMNS})
    columns = {
        name: _list(value) + [None] * (len(outcomes) - len(_list(value)))
        for name, value in values.items()
    }
    return [
        {CASE_FIELDS[name]: column[i] for name, column in columns.items()}
        for i in range(len(outcomes))
    ]


def _local_cases(
    con: duckdb.DuckDBPyConnection, clause: str, params: list[Any]
) -> dict[tuple[str, str, int], dict[str, Any]]:
    """The local-only case columns of every correctness row (``assay show``)."""
    names = ("run", "cell_id", "step", *LOCAL_CASE_COLUMNS)
    result = con.execute(f"SELECT {', '.join(names)} FROM correctness {clause}", params)
    return {
        (values[0], values[1], values[2]): dict(zip(names[3:], values[3:], strict=True))
        for values in result.fetchall()
    }


def explanation(row: dict[str, Any]) -> dict[str, Any]:
    rule = row["rule"]
    return {
        "rule": rule,
        "rule_text": RULE_TEXT.get(rule, "") if rule else "not scored: no candidate source",
        "helper": row["helper"]
        if not row["helper_module"]
        else f"{row['helper_module']}.{row['helper']}",
        "helper_calls": [
            {"line": line, "position": position}
            for line, position in zip(
                _list(row["helper_call_lines"]), _list(row["helper_call_positions"]), strict=False
            )
        ],
        "primitive_calls": [
            {"line": line, "primitive": name}
            for line, name in zip(
                _list(row["primitive_call_lines"]), _list(row["primitive_calls"]), strict=False
            )
        ],
        "same_name_call_lines": _list(row["same_name_call_lines"]),
        "declared_primitives": _list(row["primitives"]),
    }


def cell_records(
    con: duckdb.DuckDBPyConnection,
    run: str | None = None,
    cell_id: str | None = None,
    *,
    local: bool = False,
) -> list[dict[str, Any]]:
    """Every cell (optionally one run or one cell), ordered by run, cell and step: what may be
    published, or with ``local`` also each case's hidden vector and generated output."""
    where, params = [], []
    for column, value in (("run", run), ("cell_id", cell_id)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    details = con.execute(
        f"SELECT * FROM cell_details {clause} ORDER BY run, cell_id, step", params
    )
    names = [d[0] for d in details.description]
    rows = [dict(zip(names, values, strict=True)) for values in details.fetchall()]
    metrics: dict[tuple[str, str], list[dict[str, Any]]] = {}
    metric_sql = (
        "SELECT run, cell_id, tool, metric, before, after, delta, missing_reason FROM metrics "
        f"{clause} ORDER BY run, cell_id, tool, metric"
    )
    for m in con.execute(metric_sql, params).fetchall():
        metrics.setdefault((m[0], m[1]), []).append(
            dict(
                zip(
                    ("tool", "metric", "before", "after", "delta", "missing_reason"),
                    m[2:],
                    strict=True,
                )
            )
        )
    local_cases = _local_cases(con, clause, params) if local else {}
    records = []
    for row in rows:
        records.append(
            {
                **{name: row[name] for name in SUMMARY_COLUMNS},
                "scenario": row["scenario"],
                "model": row["model"],
                "simulated": row["simulated"],
                "verdict": row["verdict"],
                "missing": row["missing"],
                "correctness": row["correctness"],
                "status_reason": row["status_reason"],
                "detail": row["detail"],
                "reservation_usd": row["reservation_usd"],
                "tokens": [row["prompt_tokens"], row["completion_tokens"]],
                "extract_status": row["extract_status"],
                "evaluator_version": row["evaluator_version"],
                "correctness_reason": row["correctness_reason"],
                "prompt": row["prompt"],
                "prompt_digest": row["prompt_digest"],
                "response": row["response"],
                "candidate": row["candidate"],
                "explanation": explanation(row),
                "cases": cases(
                    row,
                    local_cases.get((row["run"], row["cell_id"], row["step"]), {})
                    if local
                    else None,
                ),
                "metrics": metrics.get((row["run"], row["cell_id"]), [])
                if row["step"] == 1
                else [],
            }
        )
    return records


def _block(title: str, text: str | None, numbered: bool = False) -> list[str]:
    if text is None:
        return [f"## {title}", "  (none)", ""]
    lines = text.rstrip("\n").splitlines() or [""]
    if numbered:
        width = len(str(len(lines)))
        lines = [f"{n:>{width}} | {line}" for n, line in enumerate(lines, start=1)]
    return [f"## {title}", *("  " + line for line in lines), ""]


def _verdict_line(r: dict[str, Any]) -> str:
    if r["verdict"] is not None:
        return f"## Verdict: {r['verdict']} ({r['verdict_reason']}), evaluator v{r['evaluator_version']}"
    why = r["status_reason"] or r["verdict_reason"]
    return f"## Verdict: none, {r['missing']} ({why})"


def render_text(record: dict[str, Any], *, prompt: bool = True) -> str:
    """One cell for the terminal: the same content as the cell page of the HTML report."""
    r = record
    e = r["explanation"]
    head = [
        f"# {r['run']}  {r['cell_id']}  step {r['step']}"
        + ("  [SIMULATED MODEL: not evidence]" if r["simulated"] else ""),
        (
            f"model {r['model']}, scenario {r['scenario']}, subject {r['subject']}, arm {r['arm']}, "
            f"repeat {r['repeat']}"
        ),
        f"call: {r['status']}"
        + (f" ({r['status_reason']})" if r["status_reason"] else "")
        + (f", cost ${r['cost_usd']:.6f}" if r["cost_usd"] is not None else "")
        + f", reserved ${r['reservation_usd']:.4f}",
        "",
        _verdict_line(r),
        f"  decided by: {e['rule'] or '-'}: {e['rule_text']}",
        f"  helper {e['helper']}: "
        + (
            ", ".join(f"line {c['line']} ({c['position']})" for c in e["helper_calls"]) or "no call"
        ),
        "  primitives called: "
        + (", ".join(f"{c['primitive']} line {c['line']}" for c in e["primitive_calls"]) or "none")
        + f" (declared: {', '.join(e['declared_primitives'])})",
    ]
    if e["same_name_call_lines"]:
        head.append(
            "  same-named calls elsewhere: lines " + ", ".join(map(str, e["same_name_call_lines"]))
        )
    head.append("")
    correctness = [
        f"## Correctness (secondary): {r['correctness_outcome']} ({r['correctness_reason']})"
    ]
    for case in r["cases"]:
        line = f"  case {case['index']}: {case['outcome']}"
        if "input" in case:
            line += f"  input {case['input']}  expected {case['expected']}"
        if case.get("actual") is not None:
            line += f"  actual {case['actual']}"
        if case["exception_type"]:
            line += f"  raised {case['exception_type']}"
            if case.get("exception_message"):
                line += f": {case['exception_message']}"
        correctness.append(line)
    correctness.append("")
    metrics = ["## Metric deltas (after - before)"]
    metrics += [
        f"  {m['tool']:<11} {m['metric']:<32} "
        + (f"{m['before']} -> {m['after']} ({m['delta']:+g})" if m["delta"] is not None
           else f"missing: {m['missing_reason']}")
        for m in r["metrics"]
    ] or ["  (not measured)"]  # fmt: skip
    metrics.append("")
    parts = head + correctness + metrics
    parts += _block("Candidate (extracted)", r["candidate"], numbered=True)
    parts += _block("Raw response", r["response"])
    if prompt:
        sent = f" sent (sha256 {r['prompt_digest']})" if r["prompt_digest"] else ""
        parts += _block("Prompt" + sent, r["prompt"])
    return "\n".join(parts)
