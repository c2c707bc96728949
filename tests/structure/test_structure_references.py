"""Every v1 reference implementation scores as declared: reused ones reused, duplicated ones
duplicated (v5 onwards; v4 requires a single return, which the duplicated references lack)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from assay.fixtures.v1 import load_v1
from assay.structure import score

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = load_v1(ROOT / "fixtures" / "v1")
REFERENCES = [
    pytest.param(subject, kind, id=f"{subject.id}:{kind}")
    for subject in SCENARIO.subjects
    for kind in ("reused", "duplicated")
]


@pytest.mark.parametrize("version", [5, 6, 7])
@pytest.mark.parametrize(("subject", "kind"), REFERENCES)
def test_reference_scores_as_declared(subject, kind: str, version: int) -> None:
    task = subject.task
    result = score(
        getattr(task.references, kind),
        helper=task.helper,
        helper_module=task.helper_module,
        primitives=task.primitives,
        version=version,
    )
    assert (result.verdict, result.reason) == (
        (kind, "helper-call") if kind == "reused" else (kind, "primitive-only")
    )


def test_twelve_tasks() -> None:
    assert len(SCENARIO.subjects) == 12


def _existing_feature_as_candidate(module_text: str) -> str:
    """The arm's ``existing_feature`` renamed to ``implement``, with the module's imports."""
    tree = ast.parse(module_text)
    kept: list[ast.stmt] = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "existing_feature":
            statement.name = "implement"
            kept.append(statement)
    return ast.unparse(ast.Module(body=kept, type_ignores=[]))


ARMS = [
    pytest.param(subject, arm, expected, id=f"{subject.id}:{arm}")
    for subject in SCENARIO.subjects
    for arm, expected in (("clean", "calls-helper"), ("inconsistent", "duplicated"))
]


@pytest.mark.parametrize(("subject", "arm", "expected"), ARMS)
def test_existing_feature_scores_as_its_arm(subject, arm: str, expected: str) -> None:
    """The inconsistent arm inlines declared primitives; the clean arm calls the helper (perhaps
    inside a loop or comprehension, which is ambiguous for a candidate but fine here)."""
    task = subject.task
    candidate = _existing_feature_as_candidate(subject.arm(arm).file(subject.target))
    result = score(
        candidate, helper=task.helper, helper_module=task.helper_module, primitives=task.primitives
    )
    if expected == "calls-helper":
        assert result.verdict == "reused" or result.reason.startswith("helper-in-")
    else:
        assert (result.verdict, result.reason) == ("duplicated", "primitive-only")
