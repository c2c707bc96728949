"""Scenario reports: every run of one scenario side by side, models as columns.

For each scenario and step: reused / duplicated cells per arm (the seed's dose table), subjects
by lower median with the incomplete count (the context table), and per arm the paired sign
test against the reference arm with ``regressed`` = subjects that reused less at that arm.
Chain scenarios get one such table per step (``abstraction-1`` … ``abstraction-5``), and at
steps 2… the count of ambiguous cells whose answer only calls the model's own earlier step
function (the structural evaluator reads an answer alone, so reusing one's own earlier
abstraction is "neither helper nor primitive": missing evidence). Cells the plan excluded
(a request over the model's cap) are counted per arm and run, in words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal, TypeVar

import duckdb
from pydantic import Field

from assay.core.records import Frozen
from assay.evidence.plan import DEVIATION_LABEL
from assay.fixtures.chain import earlier_steps_called
from assay.report.compare import EXPLORATORY, ModelComparison, sentence
from assay.report.database import query_text
from assay.report.effects import effect_text
from assay.report.kinds import ABSTRACTION
from assay.report.primary import SIMULATED_BANNER, write_report_files
from assay.report.query import rows
from assay.report.run_records import RunReport, SignTest
from assay.science.effect import SignFlipEffect

R = TypeVar("R", bound=Frozen)

MIXED_BANNER = (
    "> **SIMULATED MODEL** in the runs of kind *simulated* below: their answers come from "
    "assay's seeded stand-in, not from a language model, and are not evidence about any model. "
    "The other runs are real models, never pooled with them."
)
OWN_STEP_REASONS = ("no-helper-no-primitive", "earlier-step-undecided")
"""The structural reasons an answer gets when its ``implement`` only calls an earlier step (v8
decides such a call by that step's verdict; it stays ambiguous when that verdict was)."""


def arm_level(arm: str) -> int | None:
    """The manipulated quantity an arm name carries (mess-05 → 5, ctx-30 → 30)."""
    match = re.fullmatch(r"[a-z]+-(\d+)", arm)
    return int(match.group(1)) if match else None


class ScenarioRun(Frozen):
    """A run of the scenario, with what answered it and how it was prompted."""

    run: str
    model: str
    simulated: bool
    kind: str
    mode: str
    repeats: int


class ScenarioRunRow(ScenarioRun):
    """The ``runs`` view as a scenario report reads it."""

    scenario: str
    arms: tuple[str, ...]


class Placed(Frozen):
    """A row of one scenario's run at one arm and step (the fields every scenario query's row
    starts with)."""

    scenario: str
    step: int
    arm: str
    run: str


class OutcomeRow(Placed):
    """``scenario_cells.sql``: a run's cells at one arm and step with one outcome."""

    model: str
    simulated: bool
    outcome: str
    cells: int


class MedianRow(Placed):
    """``scenario_subjects.sql``: a run's subjects at one arm and step by lower median."""

    model: str
    reused: int
    mixed: int
    duplicated: int
    incomplete: int


class AmbiguousRow(Placed):
    """``scenario_ambiguous.sql``: an ambiguous cell with its reason and its answer's source."""

    reason: str | None
    source: str | None


class ExcludedRow(Frozen):
    """``scenario_excluded.sql``: cells the plan left out, per scenario, arm and run."""

    scenario: str
    arm: str
    run: str
    model: str
    cells: int
    reason: str


class ArmCells(Frozen):
    """One arm's cells of one run: on the scale by verdict, ``scored`` their sum, and every
    other outcome (ambiguous, rejected, the missing states) by name in ``unscored``, in legend
    order."""

    reused: int = 0
    mixed: int = 0
    duplicated: int = 0
    scored: int = 0
    unscored: dict[str, int] = Field(default_factory=dict)


class SubjectMedians(Frozen):
    """One arm's subjects of one run by lower median, and the incomplete ones."""

    reused: int
    mixed: int
    duplicated: int
    incomplete: int


class ScenarioTest(Frozen):
    """One arm's sign test against the reference arm in one run."""

    regressed: int
    improved: int
    ties: int
    complete: int
    p_value: float | None
    p_holm: float | None
    significant: bool | None
    descriptive_only: bool
    effect: SignFlipEffect | None = None
    """The run's effect size for this arm (a preregistered secondary analysis, beside)."""

    @classmethod
    def of(cls, test: SignTest) -> ScenarioTest:
        """``test`` in a scenario report's words: who it favours as regressed or improved."""
        return cls(
            regressed=test.favouring_reference,
            improved=test.favouring_arm,
            complete=test.complete_subjects,
            **test.model_dump(include=CARRIED),
        )


CARRIED = {"ties", "p_value", "p_holm", "significant", "descriptive_only", "effect"}
"""The fields a scenario test carries from its run's sign test as they are."""


class OwnStep(Frozen):
    """Ambiguous cells, and those of them that only call the model's own earlier step."""

    ambiguous: int
    own_step: int


class ScenarioStep(Frozen):
    """One step's tables, each by arm, then run."""

    cells: dict[str, dict[str, ArmCells]]
    subjects: dict[str, dict[str, SubjectMedians]]
    tests: dict[str, dict[str, ScenarioTest]]
    ambiguous: dict[str, dict[str, OwnStep]]


class ScenarioExcluded(Frozen):
    arm: str
    run: str
    model: str
    cells: int
    reason: str


class ScenarioReport(Frozen):
    """Every run of one scenario side by side (``data/report/scenarios/<scenario>.json``)."""

    report: Literal["scenario"] = "scenario"
    scenario: str
    arms: tuple[str, ...]
    runs: tuple[ScenarioRun, ...]
    steps: dict[str, ScenarioStep]
    """By step number (a JSON key, so a string)."""
    excluded: tuple[ScenarioExcluded, ...]
    halted: dict[str, str]
    """Per run with halted cells, why it stopped."""
    model_comparisons: tuple[ModelComparison, ...]
    deviations: dict[str, str] = Field(default_factory=dict, exclude_if=lambda found: not found)
    """Per run whose params.yaml analysis now differs from its preregistration, what differs:
    the tests here are the preregistered ones; the deviation result is in its run report."""


def _arm_cells(rows: Iterable[OutcomeRow]) -> ArmCells:
    scored = {row.outcome: row.cells for row in rows if row.outcome in ABSTRACTION.scale}
    order = ABSTRACTION.outcomes
    unscored = sorted(
        ((row.outcome, row.cells) for row in rows if row.outcome not in ABSTRACTION.scale),
        key=lambda item: order.index(item[0]),
    )
    return ArmCells(**scored, scored=sum(scored.values()), unscored=dict(unscored))


def _own_step(rows: Sequence[AmbiguousRow]) -> OwnStep:
    own = sum(
        row.reason in OWN_STEP_REASONS and bool(earlier_steps_called(row.source or "", row.step))
        for row in rows
    )
    return OwnStep(ambiguous=len(rows), own_step=own)


Place = tuple[str, str, str, str]
"""``(scenario, step, arm, run)``, the step as its JSON key."""


G = TypeVar("G", bound=Placed)
V = TypeVar("V")


def _grouped(rows: Iterable[G]) -> dict[Place, list[G]]:
    """The rows by scenario, step, arm and run, in the query's order."""
    grouped: dict[Place, list[G]] = {}
    for row in rows:
        grouped.setdefault((row.scenario, str(row.step), row.arm, row.run), []).append(row)
    return grouped


def _by_step(values: Mapping[Place, V], scenario: str) -> dict[str, dict[str, dict[str, V]]]:
    """``{step: {arm: {run: value}}}`` of one scenario's values, in their order."""
    nested: dict[str, dict[str, dict[str, V]]] = {}
    for (name, step, arm, run), value in values.items():
        if name == scenario:
            nested.setdefault(step, {}).setdefault(arm, {})[run] = value
    return nested


def _query(con: duckdb.DuckDBPyConnection, name: str, row: type[R]) -> list[R]:
    return rows(con, query_text(name), row, query=f"queries/{name}")


def _part(row: Frozen, record: type[R]) -> R:
    """The fields of ``record`` that ``row`` holds, as that record."""
    return record.model_validate(row.model_dump(include=set(record.model_fields)))


def build_scenario_reports(
    con: duckdb.DuckDBPyConnection,
    primary: Mapping[str, RunReport],
    model_comparisons: Callable[[Sequence[str]], Sequence[ModelComparison]] | None = None,
) -> dict[str, ScenarioReport]:
    """One report per scenario of the planned runs: the run reports' sign tests (``primary``)
    beside the scenario's own tables, and ``model_comparisons`` of its runs (by run name)."""
    runs = rows(
        con,
        "SELECT run, scenario, model, simulated, kind, mode, repeats, arms FROM runs "
        "ORDER BY simulated, run",
        ScenarioRunRow,
        query="runs",
    )
    cells = _grouped(_query(con, "scenario_cells.sql", OutcomeRow))
    medians = _grouped(_query(con, "scenario_subjects.sql", MedianRow))
    ambiguous = _grouped(_query(con, "scenario_ambiguous.sql", AmbiguousRow))
    excluded = _query(con, "scenario_excluded.sql", ExcludedRow)
    tests: dict[Place, ScenarioTest] = {}
    halted: dict[str, dict[str, str]] = {}
    deviations: dict[str, dict[str, str]] = {}
    for name, run_report in primary.items():
        scenario = run_report.run.scenario
        if run_report.deviation is not None:
            changed = ", ".join(change.text() for change in run_report.deviation.changes)
            deviations.setdefault(scenario, {})[name] = changed
        if any(row.outcome == "halted" for row in run_report.outcome_counts):
            halted.setdefault(scenario, {})[name] = run_report.stopped.summary
        for test in run_report.sign_tests:
            tests[(scenario, str(test.step), test.arm, name)] = ScenarioTest.of(test)
    scenarios: dict[str, list[ScenarioRunRow]] = {}
    for run in runs:
        scenarios.setdefault(run.scenario, []).append(run)
    reports = {}
    for scenario, members in scenarios.items():
        by_cells = _by_step({p: _arm_cells(r) for p, r in cells.items()}, scenario)
        by_medians = _by_step(
            {p: _part(r[0], SubjectMedians) for p, r in medians.items()}, scenario
        )
        by_tests = _by_step(tests, scenario)
        by_ambiguous = _by_step({p: _own_step(r) for p, r in ambiguous.items()}, scenario)
        steps = sorted({*by_cells, *by_medians, *by_tests, *by_ambiguous}, key=int)
        reports[scenario] = ScenarioReport(
            scenario=scenario,
            arms=members[0].arms,
            runs=tuple(_part(r, ScenarioRun) for r in members),
            steps={
                step: ScenarioStep(
                    cells=by_cells.get(step, {}),
                    subjects=by_medians.get(step, {}),
                    tests=by_tests.get(step, {}),
                    ambiguous=by_ambiguous.get(step, {}),
                )
                for step in steps
            },
            excluded=tuple(
                _part(row, ScenarioExcluded) for row in excluded if row.scenario == scenario
            ),
            halted=halted.get(scenario, {}),
            deviations=deviations.get(scenario, {}),
            model_comparisons=tuple(model_comparisons([r.run for r in members]))
            if model_comparisons is not None
            else (),
        )
    return reports


def _side_by_side(
    arms: Sequence[str],
    runs: Sequence[str],
    table: Mapping[str, Mapping[str, V]],
    cell: Callable[[V], str],
    absent: str = "",
) -> str:
    header = "| arm | " + " | ".join(runs) + " |"
    lines = [header, "|" + "---|" * (len(runs) + 1)]
    for arm in arms:
        values = [cell(table[arm][run]) if run in table.get(arm, {}) else absent for run in runs]
        lines.append(f"| {arm} | " + " | ".join(values) + " |")
    return "\n".join(lines) + "\n"


def render_scenario_markdown(report: ScenarioReport) -> str:
    runs = [r.run for r in report.runs]
    parts = [f"# Scenario report: {report.scenario}\n"]
    simulated = [r.run for r in report.runs if r.simulated]
    if simulated and len(simulated) == len(report.runs):
        parts.append(SIMULATED_BANNER + "\n")
    elif simulated:
        parts.append(MIXED_BANNER + "\n")
    parts.append(runs_table(report.runs))
    if report.excluded:
        parts.append(_excluded_text(report.excluded))
    for name, summary in report.halted.items():
        parts.append(f"Cells `halted` in `{name}`: {summary}\n")
    for name, changed in report.deviations.items():
        parts.append(
            f"`{name}`: the tests here use its preregistered analysis; params.yaml now says "
            f"{changed}. The {DEVIATION_LABEL} is in `data/report/runs/{name}/abstraction.md`.\n"
        )
    arms = report.arms
    for step, tables in sorted(report.steps.items(), key=lambda item: int(item[0])):
        heading = f"abstraction-{step}" if len(report.steps) > 1 else "abstraction"
        parts.append(f"## {heading}\n")
        parts.append(
            "Cells, reused / duplicated (— when no cell was scored); mixed, ambiguous, rejected "
            "and missing cells (not-run, excluded, halted, no-candidate, evaluator-failure) in "
            "brackets when any:\n"
        )
        parts.append(_side_by_side(arms, runs, tables.cells, _cells_text))
        if int(step) > 1:
            parts.append(
                "\nOf the ambiguous cells, those that only call the model's own earlier step "
                "function (`implement_step_<k>`): the evaluator reads an answer alone, so this "
                "reuse of the model's own abstraction scores ambiguous (no helper, no primitive) "
                "and is missing evidence:\n"
            )
            parts.append(_side_by_side(arms, runs, tables.ambiguous, _ambiguous_text, "0 of 0"))
        parts.append("\nSubjects by lower median, reused / duplicated, and incomplete:\n")
        parts.append(_side_by_side(arms, runs, tables.subjects, _subjects_text))
        parts.append(
            f"\nEach arm against `{arms[0]}` (paired sign test; regressed = subjects that "
            "reused less at that arm; then the effect size, a preregistered secondary analysis "
            "that never replaces the sign test: the mean per-subject reuse-rate difference, "
            f"`{arms[0]}` minus the arm, with its exact 95% interval and sign-flip p):\n"
        )
        parts.append(_side_by_side(arms[1:], runs, tables.tests, _test_text))
    if report.model_comparisons:
        parts.append("## Cross-model comparison (exploratory)\n")
        parts.append(f"_{EXPLORATORY.capitalize()}._ Per subject, cells that reused the helper.\n")
        parts.append(
            "".join(f"- {sentence(c, t)}\n" for c in report.model_comparisons for t in c.tests)
        )
    return "\n".join(parts)


def runs_table(runs: Iterable[ScenarioRun]) -> str:
    """Every run of the scenario with what answered it (its kind) and its prompting mode:
    real runs first, then simulated ones."""
    lines = ["| run | model | kind | prompting mode | repeats |", "|---|---|---|---|---|"]
    lines += [
        f"| `{r.run}` | {r.model} | {cell(r.kind)} | {cell(r.mode)} | {r.repeats} |" for r in runs
    ]
    return "\n".join(lines) + "\n"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell (a ``|`` would end the cell)."""
    return text.replace("|", "\\|")


def unscored_text(unscored: Mapping[str, int]) -> str:
    """``3 ambiguous, 24 not-run``: the off-scale outcomes and missing states, by name."""
    return ", ".join(f"{n} {outcome}" for outcome, n in unscored.items())


def _cells_text(c: ArmCells) -> str:
    extra = [f"{c.mixed} mixed"] * bool(c.mixed)
    if c.unscored:
        extra.append(unscored_text(c.unscored))
    counts = f"{c.reused} / {c.duplicated}" if c.scored else "—"
    return counts + (f" ({', '.join(extra)})" if extra else "")


def _ambiguous_text(a: OwnStep) -> str:
    return f"{a.own_step} of {a.ambiguous}"


def _excluded_text(excluded: Iterable[ScenarioExcluded]) -> str:
    lines = ["Cells the plan excluded (never sent, missing evidence):\n"]
    for row in excluded:
        cells = "1 cell" if row.cells == 1 else f"{row.cells} cells"
        lines.append(f"- `{row.run}` ({row.model}): {cells} at {row.arm}, {row.reason}")
    return "\n".join(lines) + "\n"


def _subjects_text(s: SubjectMedians) -> str:
    complete = s.reused + s.mixed + s.duplicated
    counts = f"{s.reused} / {s.duplicated}" if complete else "—"
    return f"{counts}, {s.incomplete} incomplete"


def _test_text(t: ScenarioTest) -> str:
    effect = f"; effect {effect_text(t.effect)}" if t.effect is not None else ""
    if t.p_value is None:
        return "— (no complete subject)" + effect
    flag = " *" if t.significant else (" (descriptive)" if t.descriptive_only else "")
    return (
        f"regressed {t.regressed}, improved {t.improved}, p={t.p_value:.4g}"
        f" (Holm {t.p_holm or 0.0:.4g}){flag}{effect}"
    )


def write_scenario_reports(reports: Mapping[str, ScenarioReport], out: Path) -> None:
    write_report_files(out / "scenarios", reports, render_scenario_markdown)
