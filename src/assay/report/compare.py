"""Cross-model comparison (exploratory): two runs of the same scenario, arm by arm.

Per subject, the cells that reused the helper in each run (the seed's "Sol reused in more cells
than Haiku on 6 of 11 subjects and in fewer on none, sign test p = 0.03"), and the exact sign
test over the subjects where the counts differ. A subject is compared only where every one of
its cells is scored (duplicated, mixed or reused) in both runs, as the primary test compares
complete subjects only: an unscored cell (ambiguous, rejected, or a missing state) is never
counted as "not reused". The subjects left out are counted, with their unscored outcomes.

Two runs compare only when they are of one scenario and repeats, both simulated or both real,
and at least one subject is scored in both. The study did not plan this comparison, so it is
labelled exploratory and never called significant; a comparison of simulated runs says
SIMULATED MODEL. Two runs of one model in two prompting modes (chat against completion, say)
compare like two models, each named with its mode (:mod:`assay.report.modes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import Literal

import duckdb

from assay.core.errors import InputError
from assay.core.records import Frozen
from assay.report.effects import effect_text
from assay.report.kinds import ABSTRACTION
from assay.report.primary import SIMULATED_BANNER
from assay.report.query import rows
from assay.report.run_records import LabelledRun
from assay.science.effect import SignFlipEffect, rate_difference, sign_flip_effect
from assay.science.stats import sign_test_p

EXPLORATORY = "exploratory: a comparison the study did not preregister; not a confirmatory test"


class CompareError(InputError):
    """The two runs cannot be compared (unknown, the same run, different scenarios or
    repeats, simulated against real, or no subject scored in both)."""


class ComparedRun(Frozen):
    """What a comparison says of each run: its prompting mode too, since two modes of one model
    compare like two models (a paired comparison, subject by subject)."""

    run: str
    model: str
    simulated: bool
    mode: str
    kind: str


class SubjectReuse(Frozen):
    """One subject's reused cells in each run, and which run reused more."""

    subject: str
    first_reused: int
    second_reused: int
    direction: Literal["first", "second", "equal"]


class ArmComparison(Frozen):
    """Two runs at one arm and step: the sign test over the subjects scored in both."""

    step: int
    arm: str
    subjects: int
    left_out: tuple[str, ...]
    first_more: int
    second_more: int
    equal: int
    first_reused_cells: int
    second_reused_cells: int
    p_value: float | None
    subjects_detail: tuple[SubjectReuse, ...]
    effect: SignFlipEffect | None = None
    """Per subject with a scored cell in both runs, the first run's reuse rate over its scored
    cells minus the second's; their mean with its exact sign-flip p and 95% interval
    (:mod:`assay.science.effect`); ``None`` without such a subject. Exploratory, as the test."""


class ModelComparison(Frozen):
    """Two runs of one scenario, arm by arm (``assay compare --format json``; a scenario
    report's ``model_comparisons``)."""

    report: Literal["model-comparison"] = "model-comparison"
    exploratory: bool = True
    simulated: bool
    note: str = EXPLORATORY
    scenario: str
    first: ComparedRun
    second: ComparedRun
    unscored: dict[str, dict[str, int]]
    """Per run, its unscored cells by outcome (legend order)."""
    tests: tuple[ArmComparison, ...]


class OutcomeCells(Frozen):
    """A run's cells of one subject at one arm and step with one outcome."""

    step: int
    arm: str
    subject: str
    outcome: str
    cells: int


class SubjectCount(Frozen):
    """One subject's cells at one arm and step of a run: reused and scored of them."""

    reused: int
    scored: int


Key = tuple[int, str, str]
"""``(step, arm, subject)``."""


def _outcomes(con: duckdb.DuckDBPyConnection, run: str) -> list[OutcomeCells]:
    return rows(
        con,
        "SELECT step, arm, subject, outcome, count(*) AS cells FROM outcomes WHERE run = ? "
        "GROUP BY ALL",
        OutcomeCells,
        query="outcomes by subject",
        parameters=[run],
    )


def _counts(outcomes: Iterable[OutcomeCells]) -> dict[Key, SubjectCount]:
    reused: dict[Key, int] = {}
    scored: dict[Key, int] = {}
    for row in outcomes:
        key = (row.step, row.arm, row.subject)
        scored.setdefault(key, 0)
        reused.setdefault(key, 0)
        if row.outcome in ABSTRACTION.scale:
            scored[key] += row.cells
            reused[key] += row.cells if row.outcome == "reused" else 0
    return {key: SubjectCount(reused=reused[key], scored=scored[key]) for key in scored}


def _unscored(outcomes: Iterable[OutcomeCells]) -> dict[str, int]:
    total: dict[str, int] = {}
    for row in outcomes:
        if row.outcome not in ABSTRACTION.scale:
            total[row.outcome] = total.get(row.outcome, 0) + row.cells
    order = ABSTRACTION.outcomes
    return dict(sorted(total.items(), key=lambda item: order.index(item[0])))


def _check_comparable(runs: Mapping[str, LabelledRun], first: str, second: str) -> None:
    for name in (first, second):
        if name not in runs:
            raise CompareError(f"no run {name!r} (planned runs: {', '.join(sorted(runs))})")
    if first == second:
        raise CompareError("compare two different runs")
    a, b = runs[first], runs[second]
    if a.scenario != b.scenario:
        raise CompareError(
            f"{first} is scenario {a.scenario!r} and {second} is {b.scenario!r}: only "
            "runs of the same scenario compare"
        )
    if a.repeats != b.repeats:
        raise CompareError(
            f"{first} has {a.repeats} repeats and {second} {b.repeats}: reuse counts "
            "compare only over equal repeats"
        )
    if a.simulated != b.simulated:
        simulated, real = (first, second) if a.simulated else (second, first)
        raise CompareError(
            f"{simulated} is simulated and {real} is not: simulated results are never compared "
            "with (or pooled with) a real model's"
        )


def _arm(
    step: int, arm: str, a: Mapping[Key, SubjectCount], b: Mapping[Key, SubjectCount], repeats: int
) -> ArmComparison:
    subjects = sorted({subj for s, x, subj in (*a, *b) if (s, x) == (step, arm)})
    detail: list[SubjectReuse] = []
    left_out: list[str] = []
    for subject in subjects:
        ca, cb = a.get((step, arm, subject)), b.get((step, arm, subject))
        if ca is None or cb is None or ca.scored < repeats or cb.scored < repeats:
            left_out.append(subject)
            continue
        diff = ca.reused - cb.reused
        detail.append(SubjectReuse(subject=subject, first_reused=ca.reused,
                                   second_reused=cb.reused,
                                   direction="first" if diff > 0 else "second" if diff < 0 else "equal"))  # fmt: skip
    more = [d.direction for d in detail].count("first")
    fewer = [d.direction for d in detail].count("second")
    return ArmComparison(
        step=step,
        arm=arm,
        subjects=len(detail),
        left_out=tuple(left_out),
        first_more=more,
        second_more=fewer,
        equal=len(detail) - more - fewer,
        first_reused_cells=sum(d.first_reused for d in detail),
        second_reused_cells=sum(d.second_reused for d in detail),
        p_value=round(sign_test_p(more, fewer), 10) if detail else None,
        subjects_detail=tuple(detail),
        effect=_effect(step, arm, subjects, a, b),
    )


def _effect(
    step: int,
    arm: str,
    subjects: list[str],
    a: Mapping[Key, SubjectCount],
    b: Mapping[Key, SubjectCount],
) -> SignFlipEffect | None:
    """The first run's per-subject reuse rate minus the second's, over the subjects with a
    scored cell in both (a subject need not be complete, as for the run reports' effect)."""
    differences = []
    for subject in subjects:
        ca, cb = a.get((step, arm, subject)), b.get((step, arm, subject))
        if ca is not None and cb is not None and ca.scored and cb.scored:
            differences.append(rate_difference((ca.reused, ca.scored), (cb.reused, cb.scored)))
    return sign_flip_effect(differences) if differences else None


def _compared(run: LabelledRun) -> ComparedRun:
    return ComparedRun.model_validate(run.model_dump(include=set(ComparedRun.model_fields)))


def compare_runs(con: duckdb.DuckDBPyConnection, first: str, second: str) -> ModelComparison:
    """Every arm and step of two runs of one scenario, subject by subject."""
    runs = {r.run: r for r in rows(con, "SELECT * FROM runs", LabelledRun, query="runs")}
    _check_comparable(runs, first, second)
    outcomes = {first: _outcomes(con, first), second: _outcomes(con, second)}
    a, b = _counts(outcomes[first]), _counts(outcomes[second])
    repeats = runs[first].repeats
    arms = sorted({(s, arm) for s, arm, _ in a} | {(s, arm) for s, arm, _ in b})
    tests = [_arm(step, arm, a, b, repeats) for step, arm in arms]
    unscored = {name: _unscored(cells) for name, cells in outcomes.items()}
    if not any(t.subjects for t in tests):
        raise CompareError(
            f"no subject is scored in both {first} and {second}, so nothing compares: "
            + "; ".join(
                f"{name} has {_outcome_text(cells) or 'no cell'} unscored"
                for name, cells in unscored.items()
                if cells
            )
        )
    return ModelComparison(
        simulated=runs[first].simulated,
        scenario=runs[first].scenario,
        first=_compared(runs[first]),
        second=_compared(runs[second]),
        unscored=unscored,
        tests=tuple(tests),
    )


def _outcome_text(cells: dict[str, int]) -> str:
    return ", ".join(f"{n} {outcome}" for outcome, n in cells.items())


def scenario_comparisons(
    con: duckdb.DuckDBPyConnection, runs: Iterable[str]
) -> list[ModelComparison]:
    """Every pair of one scenario's ``runs`` that compares (:func:`compare_runs`): equal
    repeats, simulated only with simulated, some subject scored in both."""
    comparisons = []
    for x, y in combinations(sorted(runs), 2):
        try:
            comparisons.append(compare_runs(con, x, y))
        except CompareError:
            continue
    return comparisons


def sentence(comparison: ModelComparison, test: ArmComparison) -> str:
    """``sol reused in more cells than haiku on 6 of 11 subjects and in fewer on 0 (p = 0.03125)``,
    and how many subjects were left out for unscored cells."""
    first, second = comparison.first.run, comparison.second.run
    step = "" if test.step == 1 else f", step {test.step}"
    left_out = len(test.left_out)
    excluded = (
        f"; {left_out} subject{'s' * (left_out != 1)} left out, not scored in both"
        if left_out
        else ""
    )
    effect = (
        f"; effect {effect_text(test.effect)}, `{first}`'s per-subject reuse rate minus "
        f"`{second}`'s"
        if test.effect is not None
        else ""
    )
    if not test.subjects:
        return (
            f"{test.arm}{step}: no subject scored in both `{first}` and `{second}`{excluded}"
            + effect
        )
    return (
        f"{test.arm}{step}: `{first}` reused in more cells than `{second}` on "
        f"{test.first_more} of {test.subjects} subjects and in fewer on "
        f"{test.second_more} (sign test p = {test.p_value or 0.0:.4g}; "
        f"{test.first_reused_cells} against {test.second_reused_cells} reused cells"
        f"{excluded}){effect}"
    )


def _described(run: ComparedRun) -> str:
    """``model, prompting mode …``: what a compared run is."""
    return f"{run.model}, prompting mode {run.mode}"


def render_comparison_markdown(comparison: ModelComparison) -> str:
    first, second = comparison.first, comparison.second
    parts = [f"# Cross-model comparison (exploratory): {first.run} against {second.run}\n"]
    if comparison.simulated:
        parts.append(SIMULATED_BANNER + "\n")
    parts += [
        f"_{comparison.note.capitalize()}._\n",
        (
            f"Scenario `{comparison.scenario}`: `{first.run}` ({_described(first)}) and "
            f"`{second.run}` ({_described(second)}). Per subject, the cells that reused the "
            "helper, over the subjects whose every cell is scored in both runs.\n"
        ),
    ]
    for name, cells in comparison.unscored.items():
        if cells:
            parts.append(f"Unscored in `{name}`: {_outcome_text(cells)}.\n")
    for test in comparison.tests:
        parts.append(f"## {test.arm}" + ("" if test.step == 1 else f", step {test.step}"))
        parts.append("\n" + sentence(comparison, test) + ".\n")
        if test.subjects_detail:
            lines = [f"| subject | {first.run} | {second.run} |", "|---|---|---|"]
            lines += [
                f"| {d.subject} | {d.first_reused} | {d.second_reused} |"
                for d in test.subjects_detail
            ]
            parts.append("\n".join(lines) + "\n")
        if test.left_out:
            parts.append("Left out (not scored in both): " + ", ".join(test.left_out) + "\n")
    return "\n".join(parts)
