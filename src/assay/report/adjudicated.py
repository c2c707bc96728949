"""The primary comparison with and without human adjudication of ambiguous cells.

Both sets use the run's preregistered evaluator version: *without* is the preregistered result
(ambiguous cells are missing evidence), *with* replaces exactly the adjudicated cells. They are
reported side by side, each labelled; the primary result is always *without*.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from assay.report.query import rows
from assay.report.run_records import Adjudicated, AdjudicatedEntry, AdjudicatedTest, LabelledRun
from assay.report.verdict_sets import CellVerdict, before_and_after, comparisons
from assay.science.adjudication import Adjudication, as_rows, resolve, unknown_ids, unknown_runs


def build_adjudicated(
    con: duckdb.DuckDBPyConnection, entries: tuple[Adjudication, ...], source: Path
) -> dict[str, Adjudicated]:
    """Per run: ambiguous and adjudicated cell counts, and every test without and with."""
    runs = {r.run: r for r in rows(con, "SELECT * FROM runs ORDER BY run", LabelledRun)}
    preregistered = rows(
        con,
        "SELECT v.run, v.cell_id, v.step, v.subject, v.arm, v.repeat, v.verdict "
        "FROM verdict_versions v JOIN runs r ON r.run = v.run "
        "AND v.evaluator_version = r.preregistered_structure_evaluator "
        "ORDER BY v.run, v.step, v.subject, v.arm, v.repeat",
        CellVerdict,
    )
    by_run: dict[str, list[CellVerdict]] = {}
    for row in preregistered:
        by_run.setdefault(row.run, []).append(row)
    named = [(r.run, r.cell_id, r.step) for r in preregistered]
    stray = tuple(unknown_runs(entries, runs) + unknown_ids(entries, named))
    result = {}
    for name, cells in by_run.items():
        run = runs[name]
        version = run.preregistered_structure_evaluator
        verdicts = {(c.cell_id, c.step): c.verdict for c in cells}
        applied = resolve(entries, name, verdicts, version, source)
        adjudicated = {**verdicts, **{key: entry.verdict for key, entry in applied.items()}}
        result[name] = Adjudicated(
            source=source.as_posix(),
            version=version,
            ambiguous_cells=sum(v == "ambiguous" for v in verdicts.values()),
            adjudicated_cells=len(applied),
            entries=tuple(AdjudicatedEntry(**entry) for entry in as_rows(applied)),
            tests=tuple(
                AdjudicatedTest.model_validate(pair)
                for pair in before_and_after(
                    comparisons(cells, verdicts, run),
                    comparisons(cells, adjudicated, run),
                    ("without", "with"),
                )
            ),
            entries_for_undeclared_runs=stray,
        )
    return result
