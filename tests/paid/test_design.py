"""What ``assay plan show`` states of a design (``assay.paid.design``): the power of each
comparison at the stated alternatives, for the subjects the plan sends, at its preregistered
alpha and minimum and the stated completeness scaled to its repeats."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.config.params import Alternative, PowerAssumptions
from assay.paid import design
from assay.science.power import power

from .test_plan import plan_for

ROOT = Path(__file__).resolve().parents[2]


def test_the_seed_design_at_the_stated_alternatives() -> None:
    plan = plan_for(ROOT / "fixtures")
    (comparison,) = design.design_power(plan, PowerAssumptions())
    assert (comparison.reference_arm, comparison.arms, comparison.subjects) == (
        "clean", ("inconsistent",), 12
    )  # fmt: skip
    assert comparison.powers == {
        "strong": power(12, 0.75, 0.8, 0.0),
        "moderate": power(12, 0.75, 0.6, 0.1),
    }
    shown = design.lines(plan, PowerAssumptions())
    assert shown[0] == (
        "power          clean vs inconsistent: 12 subjects, alpha 0.05, at least 10 complete: "
        "0.381 if strong (favour 0.8, against 0), 0.140 if moderate (favour 0.6, against 0.1)"
    )
    assert shown[1] == (
        "assumed        each subject complete with probability 0.750 at 2 repeats (params.yaml "
        "power: 0.75 at 2), so P(at least 10 complete) = 0.391 over 12 subjects; other designs: "
        "`assay power`"
    )
    assert len(shown) == 2


def test_the_plans_alpha_minimum_and_repeats_are_used() -> None:
    assumptions = PowerAssumptions(
        completeness=0.64, alternatives={"sure": Alternative(favour=1.0, against=0.0)}
    )
    plan = plan_for(ROOT / "fixtures", repeats=4)
    plan = plan.model_copy(
        update={"analysis": plan.analysis.model_copy(update={"alpha": 0.01, "minimum_subjects": 8})}
    )
    (comparison,) = design.design_power(plan, assumptions)
    # 0.64 at 2 repeats is 0.8 per repeat: four repeats give 0.64 ** 2
    assert comparison.powers["sure"] == power(12, 0.64**2, 1.0, 0.0, alpha=0.01, minimum_subjects=8)
    assert "alpha 0.01, at least 8 complete" in design.lines(plan, assumptions)[0]


def test_excluded_cells_leave_their_subjects_out() -> None:
    """A request over the size cap is never sent: its subject cannot be complete."""
    plan = plan_for(ROOT / "fixtures")
    capped = plan.model_copy(
        update={
            "cells": tuple(
                c.model_copy(update={"excluded": "request-over-cap"})
                if c.subject in {"card-mask", "post-slug"} and c.arm == "inconsistent"
                else c
                for c in plan.cells
            )
        }
    )
    assert design.compared_subjects(capped) == {"inconsistent": 10}


def test_several_arms_are_grouped_by_their_subjects() -> None:
    plan = plan_for(ROOT / "fixtures")
    subjects = sorted({c.subject for c in plan.cells})
    extra = tuple(
        c.model_copy(update={"arm": "mess", "cell_id": c.cell_id.replace("inconsistent", "mess")})
        for c in plan.cells
        if c.arm == "inconsistent" and c.subject in subjects[:6]
    )
    wider = plan.model_copy(
        update={"arms": ("clean", "inconsistent", "mess"), "cells": (*plan.cells, *extra)}
    )
    comparisons = design.design_power(wider, PowerAssumptions())
    assert [(c.arms, c.subjects) for c in comparisons] == [(("inconsistent",), 12), (("mess",), 6)]
    assert comparisons[1].powers["strong"].power == 0.0  # six subjects: below the minimum


def test_checks_are_not_studies() -> None:
    qualifying = plan_for(ROOT / "fixtures", qualifies=True)
    assert design.lines(qualifying, PowerAssumptions()) == [
        "power          not stated: a check of a route or of determinism, not a study"
    ]


@pytest.mark.parametrize("repeats", [1, 2, 3])
def test_completeness_scales_with_repeats(repeats: int) -> None:
    stated = PowerAssumptions()
    assert stated.completeness_at(repeats) == pytest.approx(0.75 ** (repeats / 2))
