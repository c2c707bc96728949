"""Per-run reports from the SQL in ``queries/``: the primary abstraction report and, beside it
(never inside it), the secondary correctness report.

Each has: the simulated banner, the authorization state, what happened to every call, outcome
counts per arm, per-subject cells with lower medians, and the paired sign test of the reference
arm against every other arm (descriptive-only below the minimum inference set).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from assay.core.records import SEND_REFUSED
from assay.report.database import query_text
from assay.report.denominators import (
    arm_rates,
    descriptive_text,
    differential_missingness,
    missingness_line,
)
from assay.report.kinds import ABSTRACTION, CORRECTNESS, KINDS, ReportKind
from assay.report.verdict_sets import NOTHING_TO_TEST
from assay.science.stats import decide, holm

SIMULATED_BANNER = (
    "> **SIMULATED MODEL.** These answers come from assay's seeded stand-in, not from a language "
    "model. They test the pipeline and are not evidence about any model."
)
LOCAL_BANNER = (
    "> **REAL LOCAL MODEL.** These answers come from {label}: a real open-weight language "
    "model, run on this machine by assay's local provider, free and offline. It is tiny next to "
    "the models the seed studies, so the results are evidence about this model only."
)
TEST_COLUMNS = [
    "step", "reference_arm", "arm", "complete_subjects", "incomplete_subjects",
    "favouring_reference", "favouring_arm", "ties", "p_value", "p_holm", "significant",
    "descriptive_only", "note",
]  # fmt: skip
SECONDARY_NOTE = (
    "Correctness is a secondary diagnostic, not a second confirmatory hypothesis: these sign "
    "tests describe the arms and are never called significant. Passing finite cases is not "
    "evidence of reuse, and reuse is not evidence of correctness."
)


def rows_of(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _by_run(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row.pop("run"), []).append(row)
    return grouped


def sign_test_rows(
    comparisons: list[dict[str, Any]], kind: ReportKind = ABSTRACTION
) -> list[dict[str, Any]]:
    """Each comparison row with ``significant``, ``descriptive_only`` and ``note`` from
    :func:`assay.science.stats.decide` (the one place they are decided); a secondary report's rows
    are never significant."""
    tests = []
    for c in comparisons:
        if not c["complete_subjects"]:
            tests.append({**c, "p_value": None, **NOTHING_TO_TEST})
            continue
        p = round(c["p_value"], 10)
        inference = decide(
            p,
            c["alpha"],
            non_tied=c["favouring_reference"] + c["favouring_arm"],
            ties=c["ties"],
            complete_subjects=c["complete_subjects"],
            minimum_subjects=c["minimum_subjects"],
        )
        row = {**c, "p_value": p, **inference.model_dump()}
        if not kind.confirmatory:
            row["significant"] = None
            row["note"] = "secondary diagnostic (descriptive): " + inference.note
        tests.append(row)
    return with_holm(tests)


def with_holm(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each test with ``p_holm``: its p adjusted by Holm's method over the arms compared with
    the reference at the same step (the preregistered ``p_value`` stays the decision); a
    significant result that does not survive the adjustment says so in its note."""
    steps: dict[int, list[int]] = {}
    for index, test in enumerate(tests):
        steps.setdefault(test.get("step", 1), []).append(index)
    adjusted: dict[int, float | None] = {}
    for indexes in steps.values():
        family = holm([tests[i]["p_value"] for i in indexes])
        adjusted |= {
            i: None if p is None else round(p, 10) for i, p in zip(indexes, family, strict=True)
        }
    rows = []
    for index, test in enumerate(tests):
        row = {**test, "p_holm": adjusted[index]}
        arms = len(steps[test.get("step", 1)])
        if test["significant"] and row["p_holm"] is not None and row["p_holm"] >= test["alpha"]:
            row["note"] += f"; not significant after Holm adjustment over the {arms} arms"
        rows.append(row)
    return rows


def build_reports(
    con: duckdb.DuckDBPyConnection, kind: ReportKind = ABSTRACTION
) -> dict[str, dict[str, Any]]:
    """One report of ``kind`` per planned run."""
    runs = rows_of(con, "SELECT * FROM runs ORDER BY run")
    comparisons = _by_run(rows_of(con, query_text("comparisons.sql", kind)))
    counts = _by_run(rows_of(con, query_text("verdict_counts.sql", kind)))
    subjects = _by_run(rows_of(con, query_text("subject_table.sql", kind)))
    execution = _by_run(rows_of(con, query_text("execution.sql", kind)))
    excluded = _by_run(rows_of(con, query_text("scenario_excluded.sql")))
    stops = _by_run(rows_of(con, query_text("stops.sql", kind)))
    halts = {row.pop("run"): row for row in rows_of(con, query_text("halts.sql", kind))}
    retries = _by_run(rows_of(con, query_text("retries.sql", kind)))
    agreement = _by_run(
        [
            {k: v for k, v in row.items() if k != "arm_order"}
            for row in rows_of(con, query_text("repeat_agreement.sql", kind))
        ]
    )
    # only the abstraction report reads verdicts (the correctness bundle holds none)
    scored_with = {
        row["run"]: row["versions"]
        for row in rows_of(
            con,
            "SELECT run, list(DISTINCT evaluator_version ORDER BY evaluator_version) AS versions "
            "FROM verdicts GROUP BY run",
        )
        if kind == ABSTRACTION
    }
    extracted_with = {
        row["run"]: row["versions"]
        for row in rows_of(
            con,
            "SELECT run, list(DISTINCT extraction_version ORDER BY extraction_version) AS versions "
            "FROM candidates GROUP BY run",
        )
    }
    built: dict[str, dict[str, Any]] = {
        run["run"]: {
            "report": kind.name,
            "scale": list(kind.scale),
            "run": {
                **run,
                "structure_evaluator": scored_with.get(run["run"], []),
                "extraction": extracted_with.get(run["run"], []),
            },
            "execution": execution.get(run["run"], []),
            "excluded": excluded.get(run["run"], []),
            "stopped": stopped(
                execution.get(run["run"], []),
                stops.get(run["run"], []),
                halts.get(run["run"]),
                retries.get(run["run"], []),
                free=run["authorization"] == "free",
            ),
            "outcome_counts": counts.get(run["run"], []),
            "subjects": subjects.get(run["run"], []),
            "sign_tests": sign_test_rows(comparisons.get(run["run"], []), kind),
            "repeat_agreement": agreement.get(run["run"], []),
        }
        for run in runs
    }
    for report in built.values():
        rates = arm_rates(report, kind)
        report["rates"] = [
            {**rate.model_dump(), "unscored": rate.unscored, "rate": rate.rate, "text": rate.text()}
            for rate in rates
        ]
        run = report["run"]
        report["missingness"] = differential_missingness(rates, run["reference_arm"], run["alpha"])
    return built


def stopped(
    execution: list[dict[str, Any]],
    causes: list[dict[str, Any]],
    first: dict[str, Any] | None,
    retried: list[dict[str, Any]],
    *,
    free: bool = False,
) -> dict[str, Any]:
    """Why a run stopped, in words: the halt, the first failing call and its cause, what comes
    next (a free run's next ``dvc repro`` sends what was not answered; a paid run is never
    resumed), the calls counted by cause, the retried calls, and reported spend above what was
    reserved."""
    calls = sum(row["calls"] for row in execution)
    completed = sum(row["calls"] for row in execution if row["status"] == "completed")
    reserved = sum(row["reserved_usd"] or 0 for row in execution)
    reported = sum(row["reported_usd"] or 0 for row in execution)
    ceiling = next((c for c in causes if c["cause"] == "ceiling-reached"), None)
    if first is not None and first["halted"]:
        summary = (
            f"Halted after call `{first['cell_id']}` step {first['step']} "
            f"(`{first['reason']}`): {first['detail'] or first['status']}. Every later call was "
            "not sent."
        )
        if free:  # no budget was involved
            summary += (
                " A free run costs nothing to retry: the next `uv run dvc repro` sends the "
                "calls not answered again (a call that failed three times is final)."
            )
        else:
            summary += (
                " A paid run is never resumed: find the cause, then plan and authorize a fresh "
                "run (a new run id) with its own budget."
            )
    elif any(c["cause"] == SEND_REFUSED for c in causes):
        summary = (
            "Nothing was sent this time: a check before sending refused the run (each call's "
            "reason says why; the send stage printed it). Fix the cause; the next `dvc repro` "
            "tries again."
        )
    elif ceiling is not None:
        summary = (
            f"Stopped at the ceiling: {ceiling['calls']} calls were not sent because "
            "reserving one more request would pass the ceiling."
        )
    elif any(c["cause"] == "awaiting-authorization" for c in causes):
        summary = "Awaiting authorization: nothing was sent."
    elif any(c["status"] == "interrupted" for c in causes):
        summary = (
            "The process ended mid-request; a paid run is never resumed, so the calls after it "
            "were not sent."
        )
    elif completed == calls:
        summary = "Every call completed."
    else:
        summary = f"{completed} of {calls} calls completed."
    overspend = None
    if reported > reserved + 1e-9 and reserved > 0:
        overspend = (
            f"The provider reported ${reported:.6f}, more than the ${reserved:.6f} reserved: a "
            "billing anomaly. Check the charges in the provider's console."
        )
    return {
        "summary": summary,
        "first_failure": first,
        "causes": causes,
        "retried": retried,
        "overspend": overspend,
    }


def _stopped_markdown(stop: dict[str, Any]) -> list[str]:
    parts = ["## Why the run stopped\n", stop["summary"] + "\n"]
    if stop["overspend"]:
        parts.append(f"**{stop['overspend']}**\n")
    first = stop["first_failure"]
    if first is not None and not first["halted"]:
        parts.append(
            f"First failing call: `{first['cell_id']}` step {first['step']} "
            f"(`{first['reason']}`): {first['detail'] or first['status']}.\n"
        )
    if stop["causes"]:
        parts.append("Calls not completed (or halting), by cause:\n")
        parts.append(_table(stop["causes"], ["status", "cause", "calls", "example"]))
    if stop["retried"]:
        parts.append("Calls that took more than one attempt (every other call took one):\n")
        parts.append(_table(stop["retried"], ["cell_id", "step", "status", "attempts"]))
    return parts


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    if not rows:
        return "_none_\n"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += [
        "| " + " | ".join("—" if r[c] is None else str(r[c]) for c in columns) + " |" for r in rows
    ]
    return "\n".join(lines) + "\n"


def _header(report: dict[str, Any]) -> list[str]:
    run = report["run"]
    parts = []
    if run["simulated"]:
        parts.append(SIMULATED_BANNER + "\n")
    if run["local_model"]:
        parts.append(LOCAL_BANNER.format(label=run["local_model"]) + "\n")
    scored = ", ".join(f"v{v}" for v in run["structure_evaluator"]) or "none"
    parts.append(mode_line(run) + "\n")
    parts.append(
        f"Model `{run['model']}` ({run['provider']}), scenario `{run['scenario']}`, {run['repeats']} "
        f"repeats, plan `{run['plan_hash']}`"
        + (f", structural evaluator {scored}.\n" if report["report"] == ABSTRACTION.name else ".\n")
    )
    for row in report.get("excluded", []):
        cells = "1 cell" if row["cells"] == 1 else f"{row['cells']} cells"
        parts.append(
            f"**Excluded by the plan:** {cells} at {row['arm']}, never sent ({row['reason']}); "
            "they are missing evidence.\n"
        )
    preregistered = run["preregistered_structure_evaluator"]
    if report["report"] == ABSTRACTION.name and run["structure_evaluator"] not in (
        [],
        [preregistered],
    ):
        parts.append(
            f"**Deviation from the plan:** scored with evaluator {scored}; the plan preregistered "
            f"v{preregistered}. This is a rescoring, not the preregistered analysis.\n"
        )
    if run["extraction"] not in ([], [run["preregistered_extraction"]]):
        used = ", ".join(f"v{v}" for v in run["extraction"])
        parts.append(
            f"**Deviation from the plan:** candidates extracted with rules {used}; the plan "
            f"preregistered v{run['preregistered_extraction']}.\n"
        )
    if run["authorization"] == "awaiting-authorization":
        partial = ""
        if run["admitted_requests"] < run["requests"]:
            partial = (
                f" Warning: **the ceiling admits {run['admitted_requests']} of {run['requests']} "
                "requests**, so the run would halt part-way (raise ceiling_usd, or authorize "
                "with --accept-partial)."
            )
        parts.append(
            f"**Awaiting authorization.** Nothing was spent. Plan hash `{run['plan_hash']}`, "
            f"{run['cells']} cells, {run['requests']} requests, worst-case cost "
            f"${run['worst_case_usd']:.2f} reserved (expected about "
            f"${run.get('expected_usd', 0.0):.4f} from the prompts' sizes).{partial} Inspect "
            f"with `assay plan show "
            f"{run['run']}`, then `assay authorize {run['run']} --plan-hash HASH`.\n"
        )
    return parts


def mode_line(run: dict[str, Any]) -> str:
    """``**Prompting mode:** chat, answer prefilled with … (real local model).``: how the run's
    answers were asked for, which shapes them, so it stands next to every result."""
    kind = "" if run["kind"] == run["mode"] else f" ({run['kind']})"
    return f"**Prompting mode:** {run['mode']}{kind}."


def render_markdown(report: dict[str, Any]) -> str:
    kind = ABSTRACTION if report["report"] == ABSTRACTION.name else CORRECTNESS
    scale = " < ".join(kind.scale)
    parts = [f"# {kind.title}: {report['run']['run']}\n", *_header(report)]
    parts.append("## Provider calls\n")
    parts.append(_table(report["execution"], ["status", "calls", "reserved_usd", "reported_usd"]))
    parts += _stopped_markdown(report["stopped"])
    parts += rates_section(report, kind)
    parts.append("## Paired sign test (reference arm against each arm)\n")
    if not kind.confirmatory:
        parts.append(SECONDARY_NOTE + "\n")
    parts.append(
        f"Lower ordinal median over repeats ({scale}); a subject with any missing cell is incomplete "
        "and leaves the comparison. `favouring_reference` = subjects where the reference arm scored "
        "higher (the other arm regressed).\n\n"
    )
    parts.append(_table([shown_test(t) for t in report["sign_tests"]], TEST_COLUMNS))
    note = multiple_arms_note(report)
    if note:
        parts.append("\n" + note + "\n")
    parts += _rescoring_section(report) + _adjudication_section(report)
    parts += repeat_agreement_section(report, kind)
    parts += reproduction_section(report)
    parts.append("## Outcomes per arm\n")
    parts.append(_table(report["outcome_counts"], ["step", "arm", "outcome", "cells"]))
    parts.append("## Subjects\n")
    parts.append(
        _table(report["subjects"], ["step", "subject", "arm", "cells", "complete", "lower_median"])
    )
    return "\n".join(parts)


def shown_test(test: dict[str, Any]) -> dict[str, Any]:
    """A sign-test row as the tables show it: below the minimum inference set, what the test is
    (descriptive only, n of the minimum) stands where its p-values and significance would."""
    if not test.get("descriptive_only") or test.get("p_value") is None:
        return test
    text = descriptive_text(test["complete_subjects"], test["minimum_subjects"])
    return {**test, "p_value": text, "p_holm": "—", "significant": "—"}


def rates_section(report: dict[str, Any], kind: ReportKind) -> list[str]:
    """Each arm's rate with its numerator and denominator, what is not scored, and arms whose
    missing evidence differs from the reference arm's."""
    top = kind.scale[-1]
    parts = [f"## {top.capitalize()} per arm (step 1): numerator, denominator, not scored\n"]
    rows = [
        {
            "arm": r["arm"],
            top: r["hits"],
            "scored": r["scored"],
            "not scored": r["unscored"],
            "cells": r["cells"],
            "rate": "—" if r["rate"] is None else f"{r['rate']:.2f}",
        }
        for r in report.get("rates", [])
    ]
    parts.append(_table(rows, ["arm", top, "scored", "not scored", "cells", "rate"]))
    parts += [missingness_line(flag) + "\n" for flag in report.get("missingness", [])]
    return parts


AGREEMENT_COLUMNS = {
    "step": "step",
    "arm": "arm",
    "subjects": "subjects",
    "scored_subjects": "every repeat scored",
    "same_outcome": "same {value}",
    "answered_subjects": "every repeat answered",
    "identical_text": "byte-identical answers",
}


def agreement_columns(kind: ReportKind) -> dict[str, str]:
    """The repeat-agreement table's columns and their headings for ``kind``."""
    value = "verdict" if kind == ABSTRACTION else "outcome"
    return {key: label.format(value=value) for key, label in AGREEMENT_COLUMNS.items()}


def repeat_agreement_section(report: dict[str, Any], kind: ReportKind) -> list[str]:
    """Per arm, how often a cell's repeats agree: of the subjects with every repeat scored, how
    many have one verdict (outcome), and of those with every repeat answered, how many gave
    byte-identical texts (nothing for a run of one repeat)."""
    rows = report.get("repeat_agreement") or []
    if not rows:
        return []
    columns = agreement_columns(kind)
    value = columns["same_outcome"].removeprefix("same ")
    text = (
        f"Of the subjects whose {report['run']['repeats']} repeats are all scored, those whose "
        f"repeats have the same {value}; of those whose repeats were all answered, those whose "
        "answer texts are byte-identical. Greedy decoding gives identical texts (a repeat adds "
        "no information); a model sampled at a temperature should not.\n"
    )
    parts = ["## Repeat agreement\n", text]
    lines = ["| " + " | ".join(columns.values()) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[key]) for key in columns) + " |" for row in rows]
    parts.append("\n".join(lines) + "\n")
    return parts


def reproductions(con: duckdb.DuckDBPyConnection) -> dict[str, list[dict[str, Any]]]:
    """Per run, how its answers compare with each other fresh run of the same plan (runs whose
    plans are equal apart from the run id and the cells they send: ``Plan.content_hash``), byte
    for byte. Built from another run's evidence,
    so reported beside the run's report (``export.build.BESIDE_THE_BUNDLE``)."""
    return _by_run(rows_of(con, query_text("reproduction.sql")))


def reproduction_section(report: dict[str, Any]) -> list[str]:
    """How the run's answers compare with another fresh run of the same plan, byte for byte."""
    rows = report.get("reproduction") or []
    if not rows:
        return []
    parts = ["## Reproduction: other fresh runs of the same plan\n"]
    for row in rows:
        verdict = (
            "every answer byte-identical"
            if row["identical"] == row["both_answered"]
            else f"**{row['both_answered'] - row['identical']} answers differ**"
        )
        parts.append(
            f"`{row['other_run']}` (its plan equals this one apart from the run id and which "
            "of the cells it sends: a fresh run, or a reproduction of a sample of them): "
            f"{row['identical']} of the {row['both_answered']} calls both runs answered gave "
            f"byte-identical text ({verdict}; this run answered {row['answered']} calls, that "
            f"one {row['other_answered']}).\n"
        )
    return parts


def multiple_arms_note(report: dict[str, Any]) -> str | None:
    """How to read several arms against one reference (``None`` with one arm)."""
    arms = len(report["run"]["arms"]) - 1
    if arms < 2:
        return None
    alpha = report["run"]["alpha"]
    return (
        f"**Several arms:** each step compares the reference arm with {arms} arms. The "
        f"preregistered test is per arm at alpha {alpha:g} without adjustment (`p_value` "
        f"decides `significant`); `p_holm` is the same p adjusted by Holm's method over those "
        f"{arms} comparisons, a qualifier for reading the arms together, never a replacement."
    )


def _rescoring_section(report: dict[str, Any]) -> list[str]:
    lines = report.get("rescoring")
    if not lines:
        return []
    name = report["run"]["run"]
    return [
        "## Rescoring with other evaluator versions\n",
        "".join(f"- {line}\n" for line in lines)
        + f"\nEvery changed cell: `data/report/rescore/{name}.md`.\n",
    ]


def _adjudication_section(report: dict[str, Any]) -> list[str]:
    adjudication = report.get("adjudication")
    if adjudication is None:
        return []
    parts = ["## With human adjudication of ambiguous cells (not the preregistered result)\n"]
    parts.append(
        f"{adjudication['ambiguous_cells']} cells are ambiguous under the preregistered "
        f"v{adjudication['version']}; {adjudication['adjudicated_cells']} are adjudicated in "
        f"`{adjudication['source']}`. *Without* is the preregistered result above; *with* "
        "replaces only the adjudicated cells.\n\n"
    )
    if adjudication["adjudicated_cells"]:
        parts.append(_table(adjudication["tests"], [
            "step", "arm", "p_without", "p_with", "significant_without", "significant_with",
            "complete_without", "complete_with",
        ]))  # fmt: skip
        parts.append("\n")
        parts.append(
            _table(
                adjudication["entries"], ["cell_id", "step", "verdict", "adjudicator", "rationale"]
            )
        )
    return parts


def build_all(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, dict[str, Any]]]:
    """Both reports, by kind name then run."""
    return {kind.name: build_reports(con, kind) for kind in KINDS}


def report_json(report: dict[str, Any]) -> str:
    """A report's JSON file: sorted, indented, one form only (export recomputes it)."""
    return json.dumps(report, indent=2, sort_keys=True, default=str) + "\n"


def write_report_files(
    folder: Path, reports: dict[str, dict[str, Any]], render: Callable[[dict[str, Any]], str]
) -> None:
    """Each report as ``<name>.json`` and its Markdown ``<name>.md`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, report in reports.items():
        (folder / f"{name}.json").write_text(report_json(report))
        (folder / f"{name}.md").write_text(render(report))


def write_reports(reports: dict[str, dict[str, dict[str, Any]]], out: Path) -> None:
    for kind_name, per_run in reports.items():
        for name, report in per_run.items():
            folder = out / "runs" / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{kind_name}.json").write_text(report_json(report))
            (folder / f"{kind_name}.md").write_text(render_markdown(report))
