"""The deviation from the preregistered analysis: a second result beside the primary one.

Every report computes its primary result with the analysis the run's plan preregistered
(``Plan.preregistration``; a run that began keeps it: ``assay.paid.preregistration``). When
params.yaml's ``analysis`` (or the run's ``repeats``) now says otherwise, the run's reports
add a result labelled :data:`~assay.evidence.plan.DEVIATION_LABEL` beside it, naming each field
that differs (preregistered → now): the sign tests decided again with the alpha and minimum
subjects params.yaml gives now. A changed ``repeats`` shapes the cells, so no report can apply
it to the run's answers; a changed evaluator or extraction version is a rescoring, shown by the
rescoring report (``assay.report.rescore``). Those are named, with where their effect is shown.
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.evidence.plan import (
    DEVIATION_LABEL,
    PreregisteredChange,
    Preregistration,
    Replanned,
)
from assay.report.primary import Reports, kind_of, sign_test_rows
from assay.report.run_records import (
    Comparison,
    Deviation,
    RunReport,
    SignTest,
    preregistration_of,
)

DECIDED_AGAIN = frozenset({"alpha", "minimum_subjects"})
"""The fields a deviation result applies: the decision on each sign test, not its data."""


def _not_recomputed(change: PreregisteredChange, run: str) -> str | None:
    shown = change.text()
    if change.field == "repeats":
        return (
            f"{shown}: not applied; repeats shape the cells, and this run's answers are its "
            f"{change.preregistered} preregistered repeats. {change.now} repeats are another "
            f"plan (a run that began keeps its own: `uv run assay run add NEW --like {run}` "
            "declares one)"
        )
    if change.field in {"structure_evaluator", "extraction"}:
        return (
            f"{shown}: not applied here; another evaluator or extraction version is a "
            f"rescoring, shown in `data/report/rescore/{run}.md` (set `evaluators` to score with it)"
        )
    return None


def deviation(report: RunReport, now: Preregistration) -> Deviation | None:
    """``report``'s deviation result under ``now`` (``None``: ``now`` is its preregistration)."""
    preregistered = preregistration_of(report.run)
    changes = preregistered.changes(now)
    if not changes:
        return None
    tests: tuple[SignTest, ...] = ()
    if any(change.field in DECIDED_AGAIN for change in changes):
        decided_now = {"alpha": now.alpha, "minimum_subjects": now.minimum_subjects}
        again = [
            Comparison(**{**test.model_dump(include=set(Comparison.model_fields)), **decided_now})
            for test in report.sign_tests
        ]
        tests = tuple(sign_test_rows(again, kind_of(report)))
    return Deviation(
        label=DEVIATION_LABEL,
        preregistered=preregistered,
        now=now,
        changes=changes,
        sign_tests=tests,
        not_recomputed=tuple(
            note
            for change in changes
            if (note := _not_recomputed(change, report.run.run)) is not None
        ),
    )


def with_deviations(
    reports: Mapping[str, Reports],
    now: Mapping[str, Preregistration],
    replanned: Mapping[str, Replanned] | None = None,
) -> dict[str, Reports]:
    """Every report with its deviation result beside the primary one, where params.yaml's
    analysis (``now``, by run) differs from the run's preregistration, and with what
    ``replanned`` says of a free run planned anew after it began; the primary result is left as
    it is."""
    return {
        kind: {
            run: report.model_copy(
                update={
                    "deviation": deviation(report, now[run]) if run in now else None,
                    "replanned": (replanned or {}).get(run),
                }
            )
            for run, report in per_run.items()
        }
        for kind, per_run in reports.items()
    }
