"""Every subject's references pass their vectors appended to every arm's target; shortcuts fail.

Fixture code runs in a child process (``vector_runner.py``), never in the pytest process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.fixtures.layered import LayeredDeclaration
from assay.fixtures.model import Scenario, Subject

pytestmark = pytest.mark.process  # each implementation runs in `python -I` (vector_runner.py)

RUNNER = Path(__file__).parent / "vector_runner.py"


def appended(subject: Subject, arm: str, source: str) -> dict[str, str]:
    files = subject.arm(arm).as_mapping()
    files[subject.target] = files[subject.target].rstrip("\n") + "\n\n\n" + source
    return files


def run(cases: list[dict]) -> dict[str, list[str]]:
    result = subprocess.run(
        [sys.executable, str(RUNNER)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    answers = json.loads(result.stdout)
    assert [a["id"] for a in answers] == [c["id"] for c in cases]
    return {a["id"]: a["outcomes"] for a in answers}


def vectors(subject: Subject) -> list[dict]:
    return [v.model_dump(mode="json") for v in subject.task.vectors]


@pytest.mark.parametrize("name", ["layered", "dose", "placement", "chain", "context"])
def test_references_pass_their_vectors_in_every_arm(
    scenarios: dict[str, Scenario], name: str
) -> None:
    cases = []
    for subject in scenarios[name].subjects:
        for arm in subject.arms:
            for kind in ("reused", "duplicated"):
                cases.append(
                    {
                        "id": f"{subject.id}/{arm.name}/{kind}",
                        "files": appended(
                            subject, arm.name, getattr(subject.task.references, kind)
                        ),
                        "module": subject.target.removesuffix(".py"),
                        "vectors": vectors(subject),
                    }
                )
    outcomes = run(cases)
    failures = {case: result for case, result in outcomes.items() if set(result) != {"pass"}}
    assert failures == {}
    assert len(outcomes) == 12 * len(scenarios[name].arms) * 2


def test_declared_shortcuts_fail_a_vector(
    scenarios: dict[str, Scenario], declarations: dict[str, LayeredDeclaration]
) -> None:
    """Naive shortcuts (a subtotal instead of the total, a raw record) give a wrong answer."""
    cases = []
    for subject in scenarios["layered"].subjects:
        shortcut = declarations[subject.id].shortcut
        if shortcut is not None:
            cases.append(
                {
                    "id": subject.id,
                    "files": appended(subject, "clean", shortcut),
                    "module": subject.target.removesuffix(".py"),
                    "vectors": vectors(subject),
                }
            )
    families = {scenarios["layered"].subject(case["id"]).task.family for case in cases}
    assert {"domain-rule", "route-view"} <= families
    for subject_id, result in run(cases).items():
        assert "wrong" in result, (subject_id, result)
