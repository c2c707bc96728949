"""Sources of extreme shape (``cases/depth/shapes.yaml``): long ``elif`` chains, deep nesting,
deep expressions, huge literals. Each gets a verdict under every version; those the parser
itself cannot take get a named refusal (``too-complex``, ``syntax-error``), never an exception."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.structure import EVALUATOR_VERSIONS, gated_candidate, score
from assay.structure.explain import explain

TABLE = Path(__file__).parent / "cases" / "depth" / "shapes.yaml"
HEAD = "def implement(value):\n"


def _elif_chain(size: int, branch: str) -> str:
    return "".join(
        f"    {'if' if i == 0 else 'elif'} value == {i}:\n        {branch}\n" for i in range(size)
    )


def _indented(size: int, opener: str, inner: str, closer: str = "") -> str:
    lines = [("    " * (depth + 1)) + opener for depth in range(size)]
    lines.append("    " * (size + 1) + inner)
    if closer:
        lines += [("    " * (depth + 1)) + closer for depth in reversed(range(size))]
    return "\n".join(lines) + "\n"


def _nested_try(size: int) -> str:
    lines: list[str] = []
    for depth in range(size):
        lines.append("    " * (depth + 1) + "try:")
    lines.append("    " * (size + 1) + "return normalize(value)")
    for depth in reversed(range(size)):
        lines.append("    " * (depth + 1) + "except ValueError:")
        lines.append("    " * (depth + 2) + "pass")
    return "\n".join(lines) + "\n"


def _nested_if_else(size: int) -> str:
    lines: list[str] = []
    for depth in range(size):
        lines.append("    " * (depth + 1) + f"if value > {depth}:")
    lines.append("    " * (size + 1) + "return normalize(value)")
    for depth in reversed(range(size)):
        lines.append("    " * (depth + 1) + "else:")
        lines.append("    " * (depth + 2) + "return value")
    return "\n".join(lines) + "\n"


SHAPES: dict[str, Callable[[int], str]] = {
    "elif-chain-then-helper": lambda n: (
        HEAD + _elif_chain(n, "value = value + 1") + "    return normalize(value)\n"
    ),
    "elif-chain-returning-with-else": lambda n: (
        HEAD + _elif_chain(n, "return normalize(value)") + "    else:\n        return value\n"
    ),
    "elif-chain-returning-with-else-then-helper": lambda n: (
        HEAD
        + _elif_chain(n, "return value")
        + "    else:\n        return value\n    return normalize(value)\n"
    ),
    "elif-chain-primitive": lambda n: (
        HEAD + _elif_chain(n, "return value.strip()") + "    return value\n"
    ),
    "endless-loop-with-elif-break": lambda n: (
        HEAD
        + "    while True:\n"
        + "".join(
            f"        {'if' if i == 0 else 'elif'} value == {i}:\n            break\n"
            for i in range(n)
        )
        + "        value = value - 1\n    return normalize(value)\n"
    ),
    "nested-try": lambda n: HEAD + _nested_try(n),
    "nested-with-then-helper": lambda n: (
        HEAD + _indented(n, "with manager():", "pass") + "    return normalize(value)\n"
    ),
    "nested-if-else": lambda n: HEAD + _nested_if_else(n),
    "sum": lambda n: HEAD + "    return normalize(" + "value + " * n + "value)\n",
    "attribute-chain": lambda n: HEAD + "    return normalize(value" + ".strip()" * n + ")\n",
    "call-chain": lambda n: HEAD + "    return normalize(value)" + "()" * n + "\n",
    "unary": lambda n: HEAD + "    return normalize(" + "-" * n + "value)\n",
    "parentheses": lambda n: HEAD + "    return normalize(" + "(" * n + "value" + ")" * n + ")\n",
    "string-literal": lambda n: HEAD + "    return normalize('" + "a" * n + "')\n",
    "list-literal": lambda n: HEAD + "    return normalize([" + "1, " * n + "])\n",
    "int-literal": lambda n: HEAD + "    return normalize(" + "9" * n + ")\n",
}


def _cases() -> list[Any]:
    document = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    params = []
    for case in document["cases"]:
        for version in sorted(EVALUATOR_VERSIONS):
            text = case["expect"].get(version, case["expect"]["all"])
            params.append(
                pytest.param(case, version, tuple(text.split()), id=f"{case['name']}:v{version}")
            )
    return params


@pytest.mark.parametrize(("case", "version", "expected"), _cases())
def test_shape(case: dict[str, Any], version: int, expected: tuple[str, str]) -> None:
    source = SHAPES[case["shape"]](case["size"])
    arguments: dict[str, Any] = {
        "helper": "normalize",
        "helper_module": None,
        "primitives": ["str.strip", "str.lower"],
        "version": version,
    }
    result = score(source, **arguments)
    assert (result.verdict, result.reason) == expected
    explain(gated_candidate(source, **arguments))  # the stage's explanation walks it too


def _at_depth(frames: int, source: str) -> str:
    if frames:
        return _at_depth(frames - 1, source)
    return score(source, helper="normalize", helper_module=None, primitives=[]).reason


@pytest.mark.parametrize("terms", [900, 1200, 2000])
def test_the_verdict_does_not_depend_on_the_callers_stack(terms: int) -> None:
    """CPython bounds the tree it builds by the caller's remaining recursion budget; the gate
    parses on a fresh stack, so a deep caller gets the same verdict as a shallow one."""
    source = HEAD + "    return normalize(" + "value + " * terms + "value)\n"
    assert _at_depth(0, source) == _at_depth(700, source)
