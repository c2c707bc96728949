"""The codebase sets in the seed's table shape: one row per target-module variant (no helper
import, imports the helper, plus a neighbour), one column per model (per model and prompting mode
for a model with runs of several modes; a row names each column's mode), and in each cell the
cells that reused the helper at step 1 as clean / inconsistent, out of the cells per arm.

Built from the scenario reports (:mod:`assay.report.scenarios`), which hold the rest: mixed,
duplicated and missing cells, subjects by lower median and the sign tests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from assay.core.records import Frozen
from assay.report.effects import interval_text, signed
from assay.report.primary import SIMULATED_BANNER, report_json
from assay.report.scenarios import ArmCells, ScenarioReport, ScenarioRun
from assay.science.effect import SignFlipEffect

VARIANTS = (
    ("codebase-noimport", "no helper import"),
    ("codebase", "imports the helper"),
    ("codebase-near", "plus a neighbour (codebase-near)"),
)
"""Each codebase scenario and how its target module differs, in the seed's words and order."""

SCENARIOS = frozenset(scenario for scenario, _ in VARIANTS)

FILES = ("codebase_sets.json", "codebase_sets.md")


class VariantRun(Frozen):
    """One run's cell of one variant: reused cells clean / inconsistent (``None`` where no cell
    is scored), the unscored ones, and the cells per arm."""

    run: str
    mode: str
    arms: tuple[str, str]
    reused: tuple[int | None, int | None]
    unscored: tuple[int, int]
    per_arm: int
    effect: SignFlipEffect | None = None
    """Clean minus inconsistent per-subject reuse rate, its mean with the exact 95% interval
    (the scenario report's effect size at step 1; ``None`` without a subject scored in both)."""


class VariantRow(Frozen):
    """One target-module variant, its runs by model column."""

    scenario: str
    variant: str
    runs: dict[str, tuple[VariantRun, ...]]


class CodebaseSets(Frozen):
    """The codebase sets table (``data/report/codebase_sets.json``)."""

    report: Literal["codebase-sets"] = "codebase-sets"
    step: int = 1
    models: tuple[str, ...]
    """The columns: a model, or ``model · mode`` for a model with runs of several modes."""
    modes: dict[str, str]
    simulated_models: tuple[str, ...]
    rows: tuple[VariantRow, ...]


def columns(scenario_reports: Mapping[str, ScenarioReport]) -> dict[str, str]:
    """Each codebase run's column: its model, or ``model · mode`` for a model with runs of
    several prompting modes (runs of different modes never share a cell)."""
    runs = [
        run
        for scenario, _ in VARIANTS
        if scenario in scenario_reports
        for run in scenario_reports[scenario].runs
    ]
    modes: dict[str, set[str]] = {}
    for run in runs:
        modes.setdefault(run.model, set()).add(run.mode)
    return {
        run.run: run.model if len(modes[run.model]) == 1 else f"{run.model} · {run.mode}"
        for run in runs
    }


def _variant_run(report: ScenarioReport, run: ScenarioRun) -> VariantRun:
    reference, other = report.arms[:2]
    first = report.steps.get("1")
    cells = first.cells if first else {}
    clean, messy = (cells.get(arm, {}).get(run.run) for arm in (reference, other))
    test = first.tests.get(other, {}).get(run.run) if first else None

    def reused(c: ArmCells | None) -> int | None:
        return c.reused if c and c.scored else None

    def unscored(c: ArmCells | None) -> int:
        return sum(c.unscored.values()) if c else 0

    return VariantRun(
        run=run.run,
        mode=run.mode,
        arms=(reference, other),
        reused=(reused(clean), reused(messy)),
        unscored=(unscored(clean), unscored(messy)),
        per_arm=clean.scored + unscored(clean) if clean else 0,
        effect=test.effect if test else None,
    )


def build_codebase_sets(scenario_reports: Mapping[str, ScenarioReport]) -> CodebaseSets:
    column_of = columns(scenario_reports)
    models: list[str] = []
    modes: dict[str, str] = {}
    simulated: set[str] = set()
    rows = []
    for scenario, variant in VARIANTS:
        by_model: dict[str, list[VariantRun]] = {}
        report = scenario_reports.get(scenario)
        for run in report.runs if report is not None else ():
            column = column_of[run.run]
            if column not in models:
                models.append(column)
                modes[column] = run.mode
            if run.simulated:
                simulated.add(column)
            by_model.setdefault(column, []).append(_variant_run(scenario_reports[scenario], run))
        rows.append(
            VariantRow(
                scenario=scenario,
                variant=variant,
                runs={column: tuple(runs) for column, runs in by_model.items()},
            )
        )
    return CodebaseSets(
        models=tuple(models),
        modes=modes,
        simulated_models=tuple(sorted(simulated)),
        rows=tuple(rows),
    )


def cell_text(runs: Sequence[VariantRun], run_label: str = "`{}`") -> str:
    """One model's cell of one variant: ``clean / inconsistent of N``, each run named (through
    ``run_label``) when the model has several; ``—`` when it has none."""
    if not runs:
        return "—"
    texts = []
    for run in runs:
        clean, messy = (str(n) if n is not None else "—" for n in run.reused)
        text = f"{clean} / {messy} of {run.per_arm}"
        unscored = [str(n) for n in run.unscored]
        if any(run.unscored):
            text += f" ({' / '.join(unscored)} unscored)"
        if run.effect is not None:
            text += f", effect {signed(run.effect.estimate)} {interval_text(run.effect)}"
        texts.append(text + (f" ({run_label.format(run.run)})" if len(runs) > 1 else ""))
    return "; ".join(texts)


def table_rows(report: CodebaseSets, run_label: str = "`{}`") -> list[tuple[str, list[str]]]:
    """Each variant with its cells, one per model in ``report.models`` order."""
    return [
        (row.variant, [cell_text(row.runs.get(m, ()), run_label) for m in report.models])
        for row in report.rows
    ]


def render_codebase_sets_markdown(report: CodebaseSets) -> str:
    parts = ["# Codebase sets: cells that reused the helper, clean / inconsistent\n"]
    if report.simulated_models:
        parts.append(SIMULATED_BANNER + "\n")
    if not report.models:
        parts.append("No run of a codebase scenario.\n")
        return "\n".join(parts)
    parts.append(
        "Cells that reused the helper at step 1, clean arm / inconsistent arm, out of the cells "
        "per arm (subjects × repeats), with the unscored ones (ambiguous, rejected or missing) "
        "counted beside; — where a model has no run of that variant or no scored cell. The effect "
        "is the mean per-subject reuse-rate difference, clean minus inconsistent, with its exact "
        "95% interval (a preregistered secondary analysis beside the sign test). The scenario "
        "reports (`scenarios/codebase*.md`) hold the mixed, duplicated and missing cells, the "
        "subjects and the sign tests.\n"
    )
    models = report.models
    lines = ["| target module | " + " | ".join(models) + " |", "|" + "---|" * (len(models) + 1)]
    modes = [report.modes[m].replace("|", "\\|") for m in models]
    lines.append("| prompting mode | " + " | ".join(modes) + " |")
    for variant, cells in table_rows(report):
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def write_codebase_sets(report: CodebaseSets, out: Path) -> None:
    data, markdown = (out / name for name in FILES)
    data.write_text(report_json(report))
    markdown.write_text(render_codebase_sets_markdown(report))
