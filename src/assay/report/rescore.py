"""Rescoring side by side: which verdicts another structural evaluator version changes, and
which outcomes another extraction version changes.

The structure stage scores every registered version (``versions.parquet``), so nothing is
overwritten. For each run this compares the version its plan preregistered with every other
version: the cells whose verdict changed (by subject, arm, repeat and step, chain steps
included), and a headline, "changes no verdict" or "changes N verdicts in M subjects", with the
paired sign test's p before and after for every arm and step.

Re-extraction the same way: the extract stage keeps every extraction version's candidates and
the structure stage scores each with the evaluator version the reports use
(``extraction_verdicts``). Against the extraction version the plan preregistered, every other
version's changed cells (verdict or missing reason: ``rejected (module-statement)`` →
``reused``), its headline and the p-values before and after (section ``extraction``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

import duckdb
from pydantic import Field

from assay.core.records import Frozen
from assay.report.denominators import descriptive_text
from assay.report.primary import (
    SIMULATED_BANNER,
    markdown_table,
    versions_by_run,
    write_report_files,
)
from assay.report.query import rows
from assay.report.run_records import LabelledRun
from assay.report.verdict_sets import (
    CellVerdict,
    SetComparison,
    Verdicts,
    before_and_after,
    comparisons,
)

CHANGE_COLUMNS = ["step", "subject", "arm", "repeat", "preregistered", "rescored", "reason"]
PLACE = {"step", "subject", "arm", "repeat", "cell_id"}
"""Where a changed cell is: the fields every change row starts with."""


class ScoredCell(CellVerdict):
    """A cell's verdict (or why it has none) under one structural evaluator version."""

    reason: str | None
    evaluator_version: int


class ReextractedCell(ScoredCell):
    """A cell's verdict with its candidate extracted by one extraction version."""

    extraction_version: int


class ChangedCell(Frozen):
    step: int
    subject: str
    arm: str
    repeat: int
    cell_id: str


class VerdictChange(ChangedCell):
    preregistered: str | None
    rescored: str | None
    reason: str | None


class OutcomeChange(ChangedCell):
    preregistered: str
    reextracted: str


class TestChange(Frozen):
    """One comparison before (the preregistered version) and after (another version)."""

    step: int
    arm: str
    p_before: float | None
    p_after: float | None
    significant_before: bool | None
    significant_after: bool | None
    complete_before: int
    complete_after: int


class VersionDiff(Frozen):
    """Another version against the preregistered one: its headline, the subjects it changes
    and every sign test before and after."""

    version: int
    headline: str
    changed_subjects: int
    tests: tuple[TestChange, ...]


class StructureDiff(VersionDiff):
    changed_verdicts: int
    changes: tuple[VerdictChange, ...]


class ExtractionDiff(VersionDiff):
    changed_cells: int
    changes: tuple[OutcomeChange, ...]


class Wording(NamedTuple):
    """How a kind of version diff words its headline, and the field that counts its changes."""

    versions: str
    """What the versions are: ``extraction `` (``extraction v2``), or nothing."""
    noun: str
    """What a changed cell changes."""
    counted: str


WORDING: dict[type[VersionDiff], Wording] = {
    StructureDiff: Wording(versions="", noun="verdict", counted="changed_verdicts"),
    ExtractionDiff: Wording(versions="extraction ", noun="outcome", counted="changed_cells"),
}


class Reextraction(Frozen):
    preregistered: int
    extracted_with: tuple[int, ...]
    structure_evaluator: tuple[int, ...]
    cells: int
    diffs: tuple[ExtractionDiff, ...]


def _absent(value: object) -> bool:
    return value is None


class RescoreReport(Frozen):
    """A run's evidence under every other structural evaluator and extraction version
    (``data/report/rescore/<run>.json``)."""

    report: str = "rescore"
    run: str
    simulated: bool
    preregistered: int
    minimum_subjects: int
    """The plan's minimum inference set: below it a p-value is descriptive only."""
    reported_with: tuple[int, ...]
    cells: int
    diffs: tuple[StructureDiff, ...]
    extraction: Reextraction | None = Field(default=None, exclude_if=_absent)


C = TypeVar("C", bound=ScoredCell)


def _verdicts(cells: Iterable[ScoredCell]) -> Verdicts:
    return {(r.cell_id, r.step): r.verdict for r in cells}


def _subjects(changed: Sequence[ChangedCell]) -> int:
    return len({c.subject for c in changed})


def _headline(
    what: str, noun: str, version: int, preregistered: int, changed: Sequence[ChangedCell]
) -> str:
    """``v6 changes 3 verdicts of v7 in 2 subjects`` (``what`` names the versions' kind)."""
    if not changed:
        return f"{what}v{version} changes no {noun} of {what}v{preregistered}"
    subjects = _subjects(changed)
    return (
        f"{what}v{version} changes {len(changed)} {noun}{'s' * (len(changed) != 1)} of "
        f"{what}v{preregistered} in {subjects} subject{'s' * (subjects != 1)}"
    )


def _tests(before: list[SetComparison], after: list[SetComparison]) -> tuple[TestChange, ...]:
    pairs = before_and_after(before, after, ("before", "after"))
    return tuple(TestChange.model_validate(pair) for pair in pairs)


D = TypeVar("D", bound=VersionDiff)


def _diffs(
    kind: type[D],
    run: LabelledRun,
    versions: Mapping[int, list[C]],
    preregistered: int,
    change: Callable[[C, C | None], ChangedCell | None],
) -> list[D]:
    """Every other version against ``preregistered``: its changed cells (``change`` of a
    preregistered cell and that version's, ``None`` when unchanged) and each sign test before
    (the preregistered version's cells) and after (that version's)."""
    base = versions[preregistered]
    base_tests = comparisons(base, _verdicts(base), run)
    words = WORDING[kind]
    diffs = []
    for version, cells in sorted(versions.items()):
        if version == preregistered:
            continue
        other = {(r.cell_id, r.step): r for r in cells}
        changed = [c for r in base if (c := change(r, other.get((r.cell_id, r.step))))]
        diffs.append(
            kind.model_validate(
                {
                    "version": version,
                    "headline": _headline(
                        words.versions, words.noun, version, preregistered, changed
                    ),
                    "changed_subjects": _subjects(changed),
                    "tests": _tests(base_tests, comparisons(cells, _verdicts(cells), run)),
                    words.counted: len(changed),
                    "changes": tuple(changed),
                }
            )
        )
    return diffs


def _verdict_change(base: ScoredCell, again: ScoredCell | None) -> VerdictChange | None:
    rescored = again.verdict if again else None
    if rescored == base.verdict:
        return None
    return VerdictChange(
        **base.model_dump(include=PLACE),
        preregistered=base.verdict,
        rescored=rescored,
        reason=again.reason if again else None,
    )


def outcome_text(row: ScoredCell) -> str:
    """A cell's outcome in one phrase: ``reused``, ``rejected (module-statement)``, ``missing
    (module-changed)``."""
    if row.verdict is None:
        return f"missing ({row.reason})"
    if row.verdict in ("rejected", "ambiguous"):
        return f"{row.verdict} ({row.reason})"
    return str(row.verdict)


def _outcome_change(base: ReextractedCell, again: ReextractedCell | None) -> OutcomeChange | None:
    if again is None or (again.verdict, again.reason) == (base.verdict, base.reason):
        return None
    return OutcomeChange(
        **base.model_dump(include=PLACE),
        preregistered=outcome_text(base),
        reextracted=outcome_text(again),
    )


def _by_version(cells: Iterable[C], version: Callable[[C], int]) -> dict[str, dict[int, list[C]]]:
    """Cells by run, then by the version ``version`` reads off each."""
    by_run: dict[str, dict[int, list[C]]] = {}
    for cell in cells:
        by_run.setdefault(cell.run, {}).setdefault(version(cell), []).append(cell)
    return by_run


def build_rescore_reports(con: duckdb.DuckDBPyConnection) -> dict[str, RescoreReport]:
    """One verdict-diff report per run that has side-by-side versions."""
    runs = {r.run: r for r in rows(con, "SELECT * FROM runs ORDER BY run", LabelledRun)}
    structure = _by_version(
        rows(
            con,
            "SELECT run, cell_id, step, subject, arm, repeat, verdict, reason, evaluator_version "
            "FROM verdict_versions ORDER BY run, evaluator_version, step, subject, arm, repeat",
            ScoredCell,
            query="verdict_versions",
        ),
        lambda cell: cell.evaluator_version,
    )
    extraction = _by_version(
        rows(
            con,
            "SELECT run, cell_id, step, subject, arm, repeat, verdict, reason, "
            "extraction_version, evaluator_version FROM extraction_verdicts "
            "ORDER BY run, extraction_version, step, subject, arm, repeat",
            ReextractedCell,
            query="extraction_verdicts",
        ),
        lambda cell: cell.extraction_version,
    )
    scored = versions_by_run(con, "evaluator_version", "verdicts")
    extracted = versions_by_run(con, "extraction_version", "candidates")
    reports = {}
    for name in sorted(set(structure) | set(extraction)):
        run = runs[name]
        versions = structure.get(name, {})
        preregistered = run.preregistered_structure_evaluator
        again = extraction.get(name, {})
        reextraction = None
        if run.preregistered_extraction in again:
            base = again[run.preregistered_extraction]
            reextraction = Reextraction(
                preregistered=run.preregistered_extraction,
                extracted_with=extracted.get(name, ()),
                structure_evaluator=tuple(sorted({r.evaluator_version for r in base})),
                cells=len(base),
                diffs=tuple(
                    _diffs(
                        ExtractionDiff, run, again, run.preregistered_extraction, _outcome_change
                    )
                ),
            )
        diffs = (
            _diffs(StructureDiff, run, versions, preregistered, _verdict_change)
            if preregistered in versions
            else []
        )
        if diffs or reextraction is not None:
            reports[name] = RescoreReport(
                run=name,
                simulated=run.simulated,
                preregistered=preregistered,
                minimum_subjects=run.minimum_subjects,
                reported_with=scored.get(name, ()),
                cells=len(versions.get(preregistered, [])),
                diffs=tuple(diffs),
                extraction=reextraction,
            )
    return reports


def _step_label(step: int) -> str:
    return "" if step == 1 else f" step {step}"


def p_text(p: float | None) -> str:
    return "—" if p is None else f"{p:.4g}"


def _p_moved(test: TestChange, minimum: int) -> str:
    """``p 0.0004883 → 1``; a side below the minimum inference set shows no p, as the primary
    report does: ``descriptive only (6 of 10) → p 0.03``."""
    sides = ((test.p_before, test.complete_before), (test.p_after, test.complete_after))
    if all(p is None or complete >= minimum for p, complete in sides):
        return f"p {p_text(test.p_before)} → {p_text(test.p_after)}"
    return " → ".join(
        descriptive_text(complete, minimum)
        if p is not None and complete < minimum
        else f"p {p_text(p)}"
        for p, complete in sides
    )


def _significance_change(test: TestChange, preregistered: str, version: str) -> str:
    before, after = bool(test.significant_before), bool(test.significant_after)
    if before and not after:
        return f", significant under {preregistered} but not under {version}"
    if after and not before:
        return f", significant under {version} but not under {preregistered}"
    return ""


def _moved(tests: Iterable[TestChange], before: str, after: str, minimum: int) -> list[str]:
    return [
        f"{t.arm}{_step_label(t.step)}: {_p_moved(t, minimum)}"
        + _significance_change(t, before, after)
        for t in tests
        if t.p_before != t.p_after or t.significant_before != t.significant_after
    ]


def headlines(report: RescoreReport) -> list[str]:
    """One line per other version (structural evaluator, then extraction), with the p-values
    that moved (descriptive only below the minimum inference set) and every result that is
    significant under one version and not the other."""
    lines = []
    minimum = report.minimum_subjects
    for diff in report.diffs:
        moved = _moved(diff.tests, f"v{report.preregistered}", f"v{diff.version}", minimum)
        lines.append(diff.headline + (f" ({'; '.join(moved)})" if moved else ""))
    extraction = report.extraction
    for again in extraction.diffs if extraction is not None else ():
        before = f"extraction v{report.extraction.preregistered}" if report.extraction else ""
        moved = _moved(again.tests, before, f"extraction v{again.version}", minimum)
        lines.append(again.headline + (f" ({'; '.join(moved)})" if moved else ""))
    return lines


TEST_COLUMNS = [
    "step", "arm", "p_before", "p_after", "significant_before", "significant_after",
    "complete_before", "complete_after",
]  # fmt: skip
EXTRACTION_CHANGE_COLUMNS = ["step", "subject", "arm", "repeat", "preregistered", "reextracted"]


def _extraction_markdown(extraction: Reextraction, lines: list[str]) -> list[str]:
    used = ", ".join(f"v{v}" for v in extraction.extracted_with) or "none"
    scored = ", ".join(f"v{v}" for v in extraction.structure_evaluator) or "none"
    parts = [
        "## Re-extraction\n",
        (
            f"Preregistered extraction v{extraction.preregistered}; the run's candidates are "
            f"extracted with {used}. Every extraction version below read the same "
            f"{extraction.cells} stored responses offline (no provider call), and every "
            f"candidate was scored with structural evaluator {scored}.\n"
        ),
    ]
    for diff, line in zip(extraction.diffs, lines, strict=True):
        parts += _diff_markdown(f"### Extraction v{diff.version}\n", line, diff)
    return parts


def _diff_markdown(heading: str, line: str, diff: StructureDiff | ExtractionDiff) -> list[str]:
    parts = [heading, f"**{line}.**\n", markdown_table(diff.tests, TEST_COLUMNS)]
    if diff.changes:
        if isinstance(diff, StructureDiff):
            parts += [
                "\nCells whose verdict changed:\n",
                markdown_table(diff.changes, CHANGE_COLUMNS),
            ]
        else:
            parts += [
                "\nCells whose outcome changed:\n",
                markdown_table(diff.changes, EXTRACTION_CHANGE_COLUMNS),
            ]
    return parts


def render_rescore_markdown(report: RescoreReport) -> str:
    parts = [f"# Rescoring: {report.run}\n"]
    if report.simulated:
        parts.append(SIMULATED_BANNER + "\n")
    reported = ", ".join(f"v{v}" for v in report.reported_with) or "none"
    parts.append(
        f"Preregistered structural evaluator v{report.preregistered}; the run's reports score "
        f"with {reported}. Every version below scored the same {report.cells} stored "
        "outputs offline (no provider call).\n"
    )
    every = headlines(report)
    for diff, line in zip(report.diffs, every, strict=False):
        parts += _diff_markdown(f"## v{diff.version}\n", line, diff)
    if report.extraction is not None:
        parts += _extraction_markdown(report.extraction, every[len(report.diffs) :])
    return "\n".join(parts)


def write_rescore_reports(reports: Mapping[str, RescoreReport], out: Path) -> None:
    write_report_files(out / "rescore", reports, render_rescore_markdown)
