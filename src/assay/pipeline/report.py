"""``report`` stage: DuckDB over every run's evidence → Markdown/JSON reports, the HTML study
report with its cell browser, the headline metrics and the plot data.

Every file written here is a declared output of the stage in ``dvc.yaml`` (:data:`OUTPUTS`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

from assay import evidence
from assay.config.params import CostRuns, ReportOptions, RunSpec
from assay.core.progress import progress
from assay.core.records import Frozen
from assay.evidence.plan import AnalysisPlan, Preregistration
from assay.pipeline.stage_params import Declaration, StageParams
from assay.report.adjudicated import build_adjudicated
from assay.report.cell_browser import cell_records
from assay.report.charts import outcome_rows, reuse_curve_rows
from assay.report.codebase_sets import build_codebase_sets, write_codebase_sets
from assay.report.compare import scenario_comparisons
from assay.report.costs import build_costs, write_costs
from assay.report.database import connect
from assay.report.deviation import with_deviations
from assay.report.headline import headlines
from assay.report.html import page_context, write_dvc_plots_template, write_page
from assay.report.primary import build_all, reproductions, write_reports
from assay.report.provenance import Provenance
from assay.report.provenance import provenance as find_provenance
from assay.report.rescore import build_rescore_reports, write_rescore_reports
from assay.report.rescore import headlines as rescore_headlines
from assay.report.run_records import RunReport
from assay.report.scenarios import (
    ScenarioReport,
    build_scenario_reports,
    write_scenario_reports,
)
from assay.science.adjudication import load_adjudications

OUTPUTS = tuple(
    path.as_posix()
    for path in (
        *(
            evidence.report_dir() / name
            for name in (
                "runs",
                "scenarios",
                "rescore",
                "duplication_cost.json",
                "duplication_cost.md",
                "codebase_sets.json",
                "codebase_sets.md",
                "index.html",
                "dvc_plots_template.html",
            )
        ),
        evidence.TRACKED_RESULTS / "metrics.json",
        evidence.TRACKED_RESULTS / "plots" / "verdicts_by_arm.csv",
        evidence.TRACKED_RESULTS / "plots" / "reuse_by_level.csv",
    )
)
"""What the stage writes, relative to the repository: each one is an ``outs``, ``metrics`` or
``plots`` entry of the report stage (a test holds the two lists equal)."""

STEPS = ("evidence", "run reports", "scenario reports", "duplication cost", "cells", "page")


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(["" if value is None else value for value in row] for row in rows)


VERDICT_PLOT = ("run", "arm", "verdict", "cells")
REUSE_PLOT = ("scenario", "run", "arm", "level", "reuse_rate", "reused", "scored", "cells")


def verdict_plot_rows(reports: Mapping[str, RunReport]) -> list[tuple[str, str, str, int]]:
    """``verdicts_by_arm.csv``: cells per run, arm and verdict at step 1 (no empty rows)."""
    return [(r.run, r.arm, r.outcome, r.cells) for r in outcome_rows(reports) if r.cells]


def reuse_plot_rows(scenario_reports: Mapping[str, ScenarioReport]) -> list[tuple[object, ...]]:
    """``reuse_by_level.csv``: the dose-response points (:func:`reuse_curve_rows`)."""
    return [
        (r.scenario, r.run, r.arm, r.level, r.reuse_rate, r.reused, r.scored, r.cells)
        for r in reuse_curve_rows(scenario_reports)
    ]


PARAMS = Declaration(keys=("report", "runs", "analysis"))


class ReportParams(Frozen):
    report: ReportOptions
    runs: dict[str, RunSpec]
    analysis: AnalysisPlan
    """What params.yaml says of the analysis now: the primary results use each run's
    preregistration (its plan), and a run whose preregistration differs gets a deviation
    result beside them (``assay.report.deviation``)."""

    def now(self) -> dict[str, Preregistration]:
        """Per run, the preregistration params.yaml would give it now."""
        return {
            name: Preregistration.of(self.analysis, spec.repeats)
            for name, spec in self.runs.items()
        }


def read_params(params: StageParams) -> ReportParams:
    return ReportParams(
        report=params.typed("report", ReportOptions),
        runs=params.typed("runs", dict[str, RunSpec]),
        analysis=params.typed("analysis", AnalysisPlan),
    )


def run(params: StageParams) -> None:
    declared = read_params(params)
    write_all(
        evidence.DATA,
        evidence.report_dir(),
        evidence.TRACKED_RESULTS,
        declared.report.metrics_reference_arm,
        cost_runs=declared.report.cost_runs,
        profiles={name: spec.model for name, spec in declared.runs.items()},
        adjudications=Path(declared.report.adjudications),
        provenance=find_provenance(Path.cwd()),
        runs=tuple(declared.runs),
        analysis_now=declared.now(),
    )


def write_all(
    data: Path,
    out: Path,
    tracked: Path,
    reference_arm: str | None,
    *,
    cost_runs: CostRuns | None = None,
    profiles: dict[str, str] | None = None,
    adjudications: Path | None = None,
    provenance: Provenance | None = None,
    runs: Collection[str] | None = None,
    analysis_now: Mapping[str, Preregistration] | None = None,
) -> None:
    """Every report of the evidence under ``data``: reports and page into ``out``, the
    headline metrics and plot data into ``tracked``. ``cost_runs`` scopes the duplication-cost
    report (simulated runs left out unless asked); ``adjudications`` is the human decisions
    file, reported beside (never inside) the preregistered result; ``provenance`` what the page
    says it was built from (by default, the git repository holding ``data``); ``runs`` the runs
    reported (the runs params.yaml declares: a removed run's folders stay on disk, since DVC
    does not delete the outputs of a removed foreach stage; ``None``: every run found);
    ``analysis_now`` what params.yaml's analysis would preregister for each run now: where it
    differs from the run's plan, its reports add a deviation result beside the primary one."""
    with progress(len(STEPS), "report", unit="step") as bar:
        con = connect(data, runs)
        bar.update()
        rescored = build_rescore_reports(con)
        adjudicated = (
            build_adjudicated(con, load_adjudications(adjudications), adjudications)
            if adjudications is not None
            else {}
        )
        reports = build_all(
            con,
            reproduction=reproductions(con),
            rescoring={name: rescore_headlines(report) for name, report in rescored.items()},
            adjudication=adjudicated,
        )
        replanned = {
            name: found
            for name in reports["abstraction"]
            if (found := evidence.read_replanned(name, data)) is not None
        }
        reports = with_deviations(reports, analysis_now or {}, replanned)
        write_reports(reports, out)
        write_rescore_reports(rescored, out)
        bar.update()
        scenario_reports = build_scenario_reports(
            con, reports["abstraction"], lambda runs: scenario_comparisons(con, runs)
        )
        write_scenario_reports(scenario_reports, out)
        codebase_sets = build_codebase_sets(scenario_reports)
        write_codebase_sets(codebase_sets, out)
        bar.update()
        costs = build_costs(con, reference_arm, cost_runs, profiles)
        write_costs(costs, out)
        bar.update()
        cells = cell_records(con)
        bar.update()
        heads = headlines(reports)
        built_from = (
            provenance if provenance is not None else find_provenance(data.resolve().parent)
        )
        context = page_context(
            reports, scenario_reports, codebase_sets, costs, heads, cells, built_from, rescored
        )
        write_page(context, out)
        write_dvc_plots_template(out)
        bar.update()
    tracked.mkdir(parents=True, exist_ok=True)
    metrics = {name: head.model_dump(mode="json") for name, head in heads.items()}
    (tracked / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")
    plots = tracked / "plots"
    _write_csv(
        plots / "verdicts_by_arm.csv", VERDICT_PLOT, verdict_plot_rows(reports["abstraction"])
    )
    _write_csv(plots / "reuse_by_level.csv", REUSE_PLOT, reuse_plot_rows(scenario_reports))
