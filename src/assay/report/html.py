"""``data/report/index.html``: the whole study on one self-contained page.

Headline per run (real models first, then simulated runs; each with its prompting mode), the
primary abstraction results (sign tests, dose-response and placement
curves, verdicts by arm, chain steps, scenario and codebase tables), the duplication-cost
figures, the secondary correctness results in their own section (never inside the primary
ones), runs awaiting authorization, and a cell browser, whose cells the page carries with
every text stored once and compressed (:mod:`assay.report.cell_payload`; the page's script
inflates them). Rendered with Jinja2 from ``templates/``; charts are Vega-Lite
(:mod:`assay.report.charts`) drawn by the inlined JavaScript of :mod:`assay.report.vega`;
nothing is fetched when the page opens.

The page carries every qualifier the Markdown reports carry (deviations, plan exclusions, why a
run stopped, rescoring, adjudication, per-subject medians, exploratory comparisons, several arms
against one reference with Holm-adjusted p), its provenance, and a link from every count to the
cells behind it (``#cells?run=…&arm=…&outcome=…``); a subject's arms side by side are at
``#subject/RUN/SUBJECT/STEP``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from urllib.parse import quote, urlencode

import jinja2
from markupsafe import Markup, escape

from assay.report import cell_payload, charts, vega
from assay.report.cell_browser import CellRecord
from assay.report.charts import ReusePoint
from assay.report.codebase_sets import SCENARIOS as CODEBASE_SCENARIOS
from assay.report.codebase_sets import CodebaseSets, table_rows
from assay.report.compare import sentence
from assay.report.costs import HEADLINE, VERDICTS, WITHIN_SUBJECT, Costs, pivot
from assay.report.denominators import descriptive_text
from assay.report.effects import signed
from assay.report.headline import Headline
from assay.report.kinds import ABSTRACTION, CORRECTNESS, ReportKind
from assay.report.page import (
    HaltedRun,
    Json,
    OutcomeTable,
    OutcomeTableRow,
    Page,
    Pairs,
    QualifiedHeadline,
    RunView,
    ScenarioRowView,
    ScenarioStepView,
    ScenarioView,
)
from assay.report.primary import TEST_COLUMNS, multiple_arms_note
from assay.report.provenance import Provenance
from assay.report.rescore import RescoreReport
from assay.report.rescore import headlines as rescore_headlines
from assay.report.run_records import LabelledRun, RunReport, SubjectCells
from assay.report.scenarios import ScenarioReport

PAGE = "index.html"


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("assay.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["number"] = _number
    environment.filters["code_spans"] = code_spans
    environment.filters["signed"] = signed
    environment.globals["cells_href"] = cells_href
    environment.globals["cell_href"] = cell_href
    environment.globals["subject_href"] = subject_href
    environment.globals["comparison_sentence"] = sentence
    return environment


def code_spans(text: str) -> Markup:
    """The Markdown reports' one piece of markup, ``code``, as HTML (everything else escaped)."""
    escaped = str(escape(text))
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped))


def _component(value: object) -> str:
    """JavaScript's ``encodeURIComponent`` (the page's router decodes with it)."""
    return quote(str(value), safe="!*'()")


def cell_href(run: str, cell_id: str, step: int) -> str:
    """One cell's page in the cell browser."""
    return "#cell/" + "/".join(_component(part) for part in (run, cell_id, step))


def subject_href(run: str, subject: str, step: int) -> str:
    """The paired view: one subject's arms side by side."""
    return "#subject/" + "/".join(_component(part) for part in (run, subject, step))


def cells_href(**filters: object) -> str:
    """The cell browser filtered to the cells behind a number: ``#cells?run=a&arm=x,y``.
    A list value matches any of its items; ``None`` leaves that filter out."""
    query = {
        key: ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        for key, value in filters.items()
        if value is not None
    }
    return "#cells?" + urlencode(query, safe=",/")


def _linked_codebase_table(
    codebase_sets: CodebaseSets,
) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """The codebase sets' rows, each cell with the link to the step-1 cells it counts (none
    where the model has no run of that variant)."""
    runs = [
        [[run.run for run in row.runs.get(model, ())] for model in codebase_sets.models]
        for row in codebase_sets.rows
    ]
    return [
        (
            variant,
            [
                (text, cells_href(run=ids, step=1) if ids else None)
                for text, ids in zip(cells, ids_per_model, strict=True)
            ],
        )
        for (variant, cells), ids_per_model in zip(
            table_rows(codebase_sets, run_label="{}"), runs, strict=True
        )
    ]


def _number(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _static(name: str) -> str:
    return resources.files("assay.report").joinpath("templates", name).read_text(encoding="utf-8")


def _scenario_tables(report: ScenarioReport) -> list[ScenarioStepView]:
    """Per step: the side-by-side rows (arm × run) of the scenario report."""
    runs = [r.run for r in report.runs]
    steps = []
    for step, tables in sorted(report.steps.items(), key=lambda item: int(item[0])):
        rows = [
            ScenarioRowView(
                arm=arm,
                cells=[tables.cells.get(arm, {}).get(run) for run in runs],
                subjects=[tables.subjects.get(arm, {}).get(run) for run in runs],
                tests=[tables.tests.get(arm, {}).get(run) for run in runs],
            )
            for arm in report.arms
        ]
        steps.append(ScenarioStepView(step=int(step), rows=rows))
    return steps


def pair_subjects(report: RunReport, kind: ReportKind = ABSTRACTION) -> Pairs:
    """Per ``step/arm`` compared with the reference: the subjects in each direction
    (``for`` = the reference arm higher, ``against``, ``tie``, ``incomplete``), so every count
    of a sign test links to its subjects' cells."""
    reference = report.run.reference_arm
    medians: dict[tuple[int, str, str], SubjectCells] = {
        (row.step, row.subject, row.arm): row for row in report.subjects
    }
    rank = {value: index for index, value in enumerate(kind.scale)}
    result: Pairs = {}
    for (step, subject, arm), row in sorted(medians.items()):
        if arm == reference:
            continue
        ref = medians.get((step, subject, reference))
        directions = result.setdefault(
            f"{step}/{arm}", {"for": [], "against": [], "tie": [], "incomplete": []}
        )
        if ref is None or not (ref.complete and row.complete):
            directions["incomplete"].append(subject)
            continue
        difference = rank[str(ref.lower_median)] - rank[str(row.lower_median)]
        direction = "for" if difference > 0 else "against" if difference < 0 else "tie"
        directions[direction].append(subject)
    return result


def outcome_table(report: RunReport, kind: ReportKind) -> OutcomeTable:
    """Cells per step and arm by outcome, columns in legend order (only outcomes present)."""
    present = {row.outcome for row in report.outcome_counts}
    columns = [o for o in kind.outcomes if o in present]
    rows: dict[tuple[int, str], dict[str, int]] = {}
    for row in report.outcome_counts:
        rows.setdefault((row.step, row.arm), {})[row.outcome] = row.cells
    arms = report.run.arms
    ordered = sorted(rows.items(), key=lambda item: (item[0][0], arms.index(item[0][1])))
    return OutcomeTable(
        columns=columns,
        rows=[OutcomeTableRow(step=s, arm=a, counts=counts) for (s, a), counts in ordered],
    )


def _run_view(primary: RunReport, secondary: RunReport, rescored: RescoreReport | None) -> RunView:
    """One run's section: the report, its qualifiers and the links behind its numbers."""
    run = primary.run
    deviation = bool(
        run.structure_evaluator
        and run.structure_evaluator != (run.preregistered_structure_evaluator,)
    )
    return RunView(
        run=run,
        report=primary,
        secondary=secondary,
        deviation=deviation,
        extraction_deviation=bool(
            run.extraction and run.extraction != (run.preregistered_extraction,)
        ),
        rescoring=rescore_headlines(rescored) if rescored else [],
        adjudication=primary.adjudication,
        arms_note=multiple_arms_note(primary),
        pairs=pair_subjects(primary),
        secondary_pairs=pair_subjects(secondary, CORRECTNESS),
        outcomes=outcome_table(primary, ABSTRACTION),
        secondary_outcomes=outcome_table(secondary, CORRECTNESS),
    )


def _undrawn(rows: Sequence[ReusePoint]) -> list[str]:
    """The runs of the reuse curves without a single scored cell: named, never drawn at 0."""
    runs = sorted({row.run for row in rows})
    return [run for run in runs if all(r.scored == 0 for r in rows if r.run == run)]


def _paired_data(primary: Mapping[str, RunReport]) -> Json:
    """What the paired view of a subject's arms needs beyond the cells: each run's arms,
    reference arm and per-subject lower medians."""
    return {
        name: {
            "reference": report.run.reference_arm,
            "arms": list(report.run.arms),
            "repeats": report.run.repeats,
            "simulated": report.run.simulated,
            "medians": [
                [row.step, row.subject, row.arm, row.complete, row.lower_median]
                for row in report.subjects
            ],
        }
        for name, report in primary.items()
    }


def _qualified_headline(report: RunReport) -> QualifiedHeadline:
    """The headline's rates with their numerators and denominators, and what stands in place of
    a p-value below the minimum inference set."""
    run = report.run
    rates = {r.arm: r for r in report.rates}
    others = [rates[a] for a in run.arms if a != run.reference_arm and a in rates]
    scored = [r for r in others if r.rate is not None]
    lowest = min(scored, key=lambda r: r.rate or 0.0) if scored else None
    highest = max(scored, key=lambda r: r.rate or 0.0) if scored else None
    tests = [t for t in report.sign_tests if t.step == 1]
    complete = min((t.complete_subjects for t in tests), default=0)
    reference = rates.get(run.reference_arm)
    return QualifiedHeadline(
        reference=reference.text if reference else "",
        lowest=f"{lowest.arm}: {lowest.text}" if lowest else "",
        highest=f"{highest.arm}: {highest.text}" if highest and highest is not lowest else "",
        unscored_others=sum(r.unscored for r in others),
        descriptive=(
            descriptive_text(complete, run.minimum_subjects)
            if tests and complete < run.minimum_subjects
            else None
        ),
        missingness=bool(report.missingness),
    )


def real_first(run: LabelledRun) -> tuple[bool, str]:
    """The page's order of runs: real models first, simulated runs after them, each by name."""
    return (run.simulated, run.run)


def page_context(
    reports: Mapping[str, Mapping[str, RunReport]],
    scenario_reports: Mapping[str, ScenarioReport],
    codebase_sets: CodebaseSets,
    costs: Costs,
    headlines: Mapping[str, Headline],
    cells: Sequence[CellRecord],
    provenance: Provenance,
    rescored: Mapping[str, RescoreReport] | None = None,
) -> Page:
    primary = reports[ABSTRACTION.name]
    secondary = reports[CORRECTNESS.name]
    runs = sorted((report.run for report in primary.values()), key=real_first)
    order = {run.run: index for index, run in enumerate(runs)}
    cells = sorted(cells, key=lambda cell: order[cell.run])  # stable: cell, step within
    rescored = rescored or {}
    labels = dict(HEADLINE + WITHIN_SUBJECT)
    chart_specs = {
        "reuse_curves": charts.reuse_curves(
            charts.reuse_curve_rows(scenario_reports),
            {name: list(report.arms) for name, report in scenario_reports.items()},
        ),
        "verdicts_by_arm": charts.outcomes_by_arm(
            charts.outcome_rows(primary),
            charts.VERDICT_ORDER,
            "verdict or missing state",
            [run.run for run in runs],
        ),
        "effects": charts.forest(charts.effect_rows(primary, [run.run for run in runs])),
        "chain_steps": charts.chain_steps(
            charts.chain_rows({name: report.outcome_counts for name, report in primary.items()})
        ),
        "duplication_cost": charts.duplication_cost(charts.cost_rows(costs, labels)),
        "correctness_by_arm": charts.outcomes_by_arm(
            charts.outcome_rows(secondary),
            charts.CORRECTNESS_ORDER,
            "correctness or missing state",
            [run.run for run in runs],
        ),
    }
    scenarios = [
        ScenarioView(
            name=name,
            codebase=name in CODEBASE_SCENARIOS,
            runs=report.runs,
            simulated=any(r.simulated for r in report.runs),
            steps=_scenario_tables(report),
            excluded=report.excluded,
            comparisons=report.model_comparisons,
        )
        for name, report in sorted(scenario_reports.items())
    ]
    return Page(
        provenance=provenance,
        runs=runs,
        run_views=[_run_view(primary[r.run], secondary[r.run], rescored.get(r.run)) for r in runs],
        pooled_runs=[r.run for r in costs.pooled_runs],
        headlines=dict(headlines),
        qualified={r.run: _qualified_headline(primary[r.run]) for r in runs},
        any_simulated=any(r.simulated for r in runs),
        all_simulated=all(r.simulated for r in runs),
        awaiting=[r for r in runs if r.authorization == "awaiting-authorization"],
        primary=[primary[r.run] for r in runs],
        secondary=[secondary[r.run] for r in runs],
        test_columns=TEST_COLUMNS,
        charts=chart_specs,
        scenarios=[s for s in scenarios if not s.codebase],
        codebase_scenarios=[s for s in scenarios if s.codebase],
        codebase_sets=codebase_sets,
        codebase_table=_linked_codebase_table(codebase_sets),
        costs=costs,
        cost_by_verdict=pivot(costs.by_verdict),
        cost_labels=labels,
        verdicts=VERDICTS,
        undrawn=_undrawn(charts.reuse_curve_rows(scenario_reports)),
        halted=[
            HaltedRun(run=name, summary=report.stopped.summary)
            for name, report in sorted(primary.items())
            if any(row.outcome == "halted" for row in report.outcome_counts)
        ],
        cells=cell_payload.encode(cells),
        paired=_paired_data(primary),
        style=_static("report.css"),
        script=_static("browser.js"),
        vega=vega.javascript(),
    )


def render_page(page: Page) -> str:
    return _environment().get_template("index.html.j2").render(**dict(page))


DVC_PLOTS_TEMPLATE = "dvc_plots_template.html"
"""The HTML template ``dvc plots show``/``diff`` fill (``.dvc/config``: ``plots.html_template``):
the Vega JavaScript inline instead of DVC's default links to a CDN, so the plots draw offline.
DVC replaces ``{plot_divs}`` (and ``{refresh_tag}``); without ``{scripts}`` it adds no link."""


def write_dvc_plots_template(out: Path) -> Path:
    path = out / DVC_PLOTS_TEMPLATE
    text = _environment().get_template("dvc_plots.html.j2").render(vega=vega.javascript())
    path.write_text(text, encoding="utf-8")
    return path


def write_page(page: Page, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / PAGE
    path.write_text(render_page(page), encoding="utf-8")
    return path
