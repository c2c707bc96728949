"""The source gate: the case table in ``cases/gate.yaml`` plus inputs a table cannot hold."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.science.gate import check_source

CASES = Path(__file__).parent / "cases" / "gate.yaml"
POLICIES = ("simple", "any")


def _load() -> list[Any]:
    document = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    params = []
    for case in document["cases"]:
        merged = {**document["defaults"], **case}
        source = bytes.fromhex(merged["source_hex"]) if "source_hex" in merged else merged["source"]
        expect = merged["expect"]
        for policy in POLICIES:
            expected = expect[policy] if isinstance(expect, dict) else expect
            params.append(
                pytest.param(merged, source, policy, expected, id=f"{merged['name']}:{policy}")
            )
    return params


@pytest.mark.parametrize(("case", "source", "policy", "expected"), _load())
def test_case(case: dict[str, Any], source: str | bytes, policy: str, expected: str) -> None:
    result = check_source(
        source, helper=case["helper"], helper_module=case["helper_module"], annotations=policy
    )
    assert result.accepted is (expected == "accepted")
    assert result.reason == (None if expected == "accepted" else expected)


def _gate(source: str | bytes) -> str | None:
    return check_source(source, helper="normalize", helper_module=None).reason


def test_text_with_lone_surrogate_is_not_utf8() -> None:
    assert _gate('def implement(value):\n    return "\ud800"\n') == "not-utf8"


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "(" * 5000 + ")" * 5000,
        "x = " + "1 + " * 100_000 + "1",
        "x = " + "-" * 100_000 + "1",
        "x = " + "[" * 150 + "]" * 150,
    ],
    ids=["parentheses", "long-sum", "unary-chain", "nested-lists"],
)
def test_deep_nesting_is_refused_not_raised(source: str) -> None:
    assert _gate(source) in {"syntax-error", "too-complex", "module-statement"}


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_a_result(source: bytes) -> None:
    result = check_source(source, helper="normalize", helper_module=None)
    assert result.accepted is (result.reason is None)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_result(source: str) -> None:
    result = check_source(
        "def implement(v):\n    return v\n" + source, helper="h", helper_module="m"
    )
    assert result.accepted is (result.reason is None)


@pytest.mark.parametrize(
    "body",
    ['return normalize("\\d")', "return normalize(value) is 1", 'return normalize(b"\\q")'],
    ids=["invalid-escape", "is-literal", "invalid-bytes-escape"],
)
def test_parser_warnings_do_not_depend_on_the_warning_filters(body: str) -> None:
    """Code the parser warns about is accepted whatever the process does with warnings."""
    source = f"def implement(value):\n    {body}\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _gate(source) is None
    assert _gate(source) is None
