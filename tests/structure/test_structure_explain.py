"""Explanations: the table in ``cases/explain.yaml``, and agreement with the verdict on every
case of the structure case tables under every version (the explanation never decides)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.structure import EVALUATOR_VERSIONS, gated_candidate, score
from assay.structure.explain import RULE_TEXT, explain

CASES = Path(__file__).parent / "cases"
EXPLAIN = yaml.safe_load((CASES / "explain" / "explanations.yaml").read_text(encoding="utf-8"))
FIELDS = ("rule", "helper_call_lines", "helper_call_positions", "primitive_calls",
          "primitive_call_lines", "same_name_call_lines")  # fmt: skip

REASON_OF_RULE = {
    "single_return_body": {"not-single-return"},
    "local_rebinding": {"local-rebinding"},
    "unconditional_helper_call": {"helper-call", "helper-and-primitive"},
    "same_name_call": {"same-name-other-module"},
    "helper_named_not_called": {"helper-not-called"},
    "primitive_only": {"primitive-only"},
    "neither": {"no-helper-no-primitive"},
}


@pytest.mark.parametrize("case", EXPLAIN["cases"], ids=lambda c: c["name"])
def test_explanation_table(case: dict[str, Any]) -> None:
    merged = {**EXPLAIN["defaults"], **case}
    explanation = explain(
        gated_candidate(
            merged["source"],
            helper=merged["helper"],
            helper_module=merged["helper_module"],
            primitives=merged["primitives"],
        )
    )
    expected = {field: merged.get(field, []) for field in FIELDS}
    got = explanation.model_dump()
    assert {
        field: (got[field] if field == "rule" else list(got[field])) for field in FIELDS
    } == expected
    assert explanation.rule in RULE_TEXT


def _structure_cases() -> list[Any]:
    params = []
    for table in sorted(CASES.glob("*.yaml")):
        document = yaml.safe_load(table.read_text(encoding="utf-8"))
        for case in document["cases"]:
            merged = {**document.get("defaults", {}), **case}
            for version in sorted(EVALUATOR_VERSIONS):
                params.append(
                    pytest.param(merged, version, id=f"{table.stem}:{merged['name']}:v{version}")
                )
    return params


@pytest.mark.parametrize(("case", "version"), _structure_cases())
def test_explanation_agrees_with_the_verdict(case: dict[str, Any], version: int) -> None:
    arguments = {
        "helper": case["helper"], "helper_module": case["helper_module"], "primitives": case["primitives"],
        "version": version,
    }  # fmt: skip
    result = score(case["source"], **arguments)
    explanation = explain(gated_candidate(case["source"], **arguments))
    if result.verdict == "rejected":
        assert explanation.rule == "gate"
    elif explanation.rule == "conditional_helper_call":
        assert result.reason == explanation.helper_call_positions[0] != "unconditional"
    else:
        assert result.reason in REASON_OF_RULE[explanation.rule]
    if result.verdict in ("reused", "mixed"):
        assert "unconditional" in explanation.helper_call_positions
    if result.verdict == "duplicated":
        assert explanation.primitive_calls and not explanation.helper_call_lines
    if result.verdict == "mixed":
        assert explanation.primitive_calls
