"""Caller errors are exceptions (unlike any source, which always gets a verdict)."""

from __future__ import annotations

import pytest

from assay.structure import DEFAULT_VERSION, EVALUATOR_VERSIONS, score

SOURCE = "def implement(value):\n    return normalize(value)\n"


def test_registry() -> None:
    assert sorted(EVALUATOR_VERSIONS) == [4, 5, 6, 7, 8]
    assert DEFAULT_VERSION == 7
    assert all(spec.number == number for number, spec in EVALUATOR_VERSIONS.items())
    assert (
        score(SOURCE, helper="normalize", helper_module=None, primitives=[]).evaluator_version == 7
    )


@pytest.mark.parametrize("version", [0, 3, 9])
def test_unknown_version(version: int) -> None:
    with pytest.raises(ValueError, match="unknown evaluator version"):
        score(SOURCE, helper="normalize", helper_module=None, primitives=[], version=version)


@pytest.mark.parametrize("primitive", ["", "re..sub", "re.", "1abc", "str.strip()"])
def test_malformed_primitive(primitive: str) -> None:
    with pytest.raises(ValueError, match="not a dotted name"):
        score(SOURCE, helper="normalize", helper_module=None, primitives=[primitive])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return normalize(" + "value + " * 2000 + "value)", "reused"),
        ("return " + "f(" * 180 + "normalize(value)" + ")" * 180, "reused"),
        ("return " + "(value and " * 180 + "normalize(value)" + ")" * 180, "ambiguous"),
        ("return " + "[" * 150 + "normalize(value)" + "]" * 150, "reused"),
    ],
    ids=["long-sum", "nested-calls", "nested-short-circuits", "nested-lists"],
)
def test_deep_expressions_are_scored(body: str, expected: str) -> None:
    """Expression nesting the parser accepts is walked without recursion limits."""
    source = f"def implement(value):\n    {body}\n"
    for version in EVALUATOR_VERSIONS:
        result = score(
            source, helper="normalize", helper_module=None, primitives=[], version=version
        )
        assert result.verdict == expected


def test_deeply_nested_statements_are_scored() -> None:
    lines = ["def implement(value):"]
    for depth in range(1, 90):
        lines.append("    " * depth + "with manager():")
    lines.append("    " * 90 + "return normalize(value)")
    source = "\n".join(lines) + "\n"
    for version in EVALUATOR_VERSIONS:
        result = score(
            source, helper="normalize", helper_module=None, primitives=[], version=version
        )
        assert (result.verdict, result.reason) == (
            ("ambiguous", "not-single-return") if version == 4 else ("reused", "helper-call")
        )
