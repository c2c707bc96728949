"""The headline numbers of reports/metrics.json (assay.report.headline): below the minimum
inference set no p-value or significance stands, and the reference rate comes with its
denominator and what is left out of it."""

from __future__ import annotations

from typing import Any

from assay.report.headline import MOST_NUMBERS, Headline, run_headline
from assay.report.run_records import RunReport
from assay.science.effect import sign_flip_effect


def _abstraction(complete: int, p_value: float, significant: bool) -> RunReport:
    counts = [
        {"arm": "clean", "step": 1, "outcome": "reused", "cells": 6},
        {"arm": "clean", "step": 1, "outcome": "duplicated", "cells": 1},
        {"arm": "clean", "step": 1, "outcome": "rejected", "cells": 3},
        {"arm": "inconsistent", "step": 1, "outcome": "duplicated", "cells": 10},
    ]
    test = {
        "step": 1,
        "arm": "inconsistent",
        "complete_subjects": complete,
        "minimum_subjects": 10,
        "p_value": p_value,
        "significant": significant,
        "descriptive_only": complete < 10,
    }
    return _report(
        {
            "run": {
                "arms": ["clean", "inconsistent"],
                "reference_arm": "clean",
                "simulated": False,
                "authorization": "free",
                "cells": 20,
                "worst_case_usd": 0.0,
            },
            "outcome_counts": counts,
            "sign_tests": [test],
            "execution": [{"status": "completed", "calls": 20, "reported_usd": 0.0}],
        }
    )


RUN = {"run": "r", "scenario": "v1", "model": "m", "provider": "simulated", "repeats": 1,
       "alpha": 0.05, "minimum_subjects": 10, "plan_hash": "h", "requests": 20,
       "admitted_requests": 20, "preregistered_structure_evaluator": 7,
       "preregistered_extraction": 2, "mode": "chat", "kind": "simulated", "arms": ["clean"],
       "reference_arm": "clean", "simulated": False, "authorization": "free", "cells": 0,
       "worst_case_usd": 0.0}  # fmt: skip
TEST = {"reference_arm": "clean", "incomplete_subjects": 0, "favouring_reference": 0,
        "favouring_arm": 0, "ties": 0, "alpha": 0.05, "note": ""}  # fmt: skip
STOPPED = {"summary": "", "first_failure": None, "causes": [], "retried": [], "overspend": None}


def _report(parts: dict[str, Any]) -> RunReport:
    """A run report of ``parts``, every field they leave out filled in with a neutral value."""
    return RunReport.model_validate({
        "report": "abstraction", "scale": ["duplicated", "mixed", "reused"], "excluded": [],
        "stopped": STOPPED, "subjects": [], "repeat_agreement": [], "rates": [],
        "missingness": [], **parts,
        "run": {**RUN, **parts.get("run", {})},
        "sign_tests": [{**TEST, **t} for t in parts.get("sign_tests", [])],
        "execution": [{"reserved_usd": None, **e} for e in parts.get("execution", [])],
    })  # fmt: skip


CORRECTNESS = _report({"outcome_counts": []})


def test_below_the_minimum_set_no_p_value_or_significance_stands() -> None:
    headline = run_headline(_abstraction(3, 0.25, False), CORRECTNESS).model_dump()
    assert headline["complete"] == 3 < RUN["minimum_subjects"]
    assert headline["p_min"] is None and headline["sig_arms"] is None


def test_at_the_minimum_set_the_test_stands() -> None:
    headline = run_headline(_abstraction(10, 0.002, True), CORRECTNESS).model_dump()
    assert (headline["p_min"], headline["sig_arms"]) == (0.002, 1)


def test_the_reference_rate_has_its_denominator_and_what_it_leaves_out() -> None:
    headline = run_headline(_abstraction(10, 0.002, True), CORRECTNESS).model_dump()
    assert (headline["reuse_ref"], headline["scored_ref"], headline["missing_ref"]) == (
        round(6 / 7, 4),
        7,
        3,
    )


def test_the_headline_effect_is_the_last_arms_and_every_headline_fits_the_limit() -> None:
    """The effect of step 1 against the plan's last arm, with its interval; with every optional
    number present a run still has at most MOST_NUMBERS (docs/reports.md)."""
    effect = sign_flip_effect([1, 1, -1, 1, 1, 1, 1, 1, 0, 1])
    report = _abstraction(10, 0.002, True)
    tests = [t.model_copy(update={"effect": effect}) for t in report.sign_tests]
    headline = run_headline(report.model_copy(update={"sign_tests": tuple(tests)}), CORRECTNESS)
    assert (headline.effect, headline.effect_lo, headline.effect_hi) == (
        round(effect.estimate, 4),
        round(effect.ci_low, 4),
        round(effect.ci_high, 4),
    )
    assert run_headline(report, CORRECTNESS).effect is None  # no subject scored in both
    assert len(Headline.model_fields) <= MOST_NUMBERS
