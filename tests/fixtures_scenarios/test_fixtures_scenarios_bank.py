"""The task bank held to its issue (issue 49), on the realised `bank` and `bank-new` scenarios.

- **shapes**: `bank` is 36 subjects, 12 per family, and `bank-new` its 24 new ones, 8 per family
  (cases/bank.yaml). These hold only once all 24 new tasks are in fixtures/bank: a branch with
  part of them fails here, by design;
- **tasks**: every task has at least four vectors, none holding null; every new task's helper is
  built from at least two of its declared primitives, each called by the helper's own body (as
  the structural evaluator resolves calls: the body, with the module's imports, scored as an
  answer with that one primitive must be ``duplicated``). Of the seed's twelve, job-duration
  (divmod) and gross-price (decimal.Decimal) call one declared primitive each; the issue asks
  this of the new tasks, and `v1` stays the seed's byte for byte;
- **manipulation**, over every subject: the clean `existing_feature` calls the helper, the
  inconsistent one scores ``duplicated`` under the preregistered evaluator, and nothing else
  differs (assay.fixtures.manipulation, and the first two again here on the parsed files);
- **known answers**: both references score as declared under the preregistered evaluator, and
  pass every vector on both arms (in a child process; the sandbox self-test is
  tests/pipeline/test_bank_selftest.py); a plausible shortcut of each new task fails a vector
  (cases/bank_naive/<task>/*.py);
- **blindness** (assay.fixtures.task_check.prompt_problems, which `assay check-task` runs): the
  instruction never names the helper, nor a primitive as code (its dotted name, or its bare
  name in a code span or called; a bare name in prose, "an ISO date", is an ordinary word), and
  no prompt shows a vector, a reference, the task id, the family or the arm;
- **no two helpers of v1 + bank are variants of one template**: for every pair, (1) the declared
  primitive sets differ, and (2) the helpers' abstract syntax trees, read in pre-order as a
  sequence of node types with what the code is about erased (variable, argument and function
  names, constants, annotations, the docstring) and what it does kept (the names it calls and
  the attributes it uses), are less than 0.75 alike by difflib's ratio (2 × matching nodes /
  all nodes). A renamed or re-parametrised copy is then identical (ratio 1); the ratio, unlike
  equality, also catches a copy with a step added, dropped or swapped for another call, which
  equality of the erased trees would miss (cases/bank.yaml holds two such variants, at 0.97
  and 0.86, which the check must catch). Keeping the calls keeps two small helpers of one
  shape but different operations apart (a lookup in a registry and a hash bucket are both "a
  call, then a return"). The seed's own twelve, distinct by design, reach 0.55 at most, and
  v1 + bank 0.61 (exam-grade and rollout-bucket). Deterministic: ``ast`` and ``difflib`` give
  the same ratio on every run.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from assay.config.params import load_params
from assay.fixtures.manipulation import problems
from assay.fixtures.model import Scenario, Subject
from assay.fixtures.scenarios import load_scenario
from assay.fixtures.task_check import prompt_problems
from assay.pipeline.known_answers import check_known_answers
from assay.structure import score

HERE = Path(__file__).parent
FIXTURES_ROOT = HERE.parents[1] / "fixtures"
CASES = yaml.safe_load((HERE / "cases" / "bank.yaml").read_text(encoding="utf-8"))
NAIVE = HERE / "cases" / "bank_naive"
RUNNER = HERE / "vector_runner.py"
EVALUATOR = load_params(HERE.parents[1] / "params.yaml").analysis.structure_evaluator
"""The preregistered structural evaluator."""
CALLER = "existing_feature"


@pytest.fixture(scope="module")
def bank() -> dict[str, Scenario]:
    return {name: load_scenario(name, FIXTURES_ROOT) for name in ("v1", "bank", "bank-new")}


def module_of(subject: Subject, arm: str) -> tuple[ast.Module, str]:
    source = subject.arm(arm).file(subject.target)
    return ast.parse(source), source


def function(tree: ast.Module, name: str) -> ast.FunctionDef:
    (found,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return found


def as_answer(subject: Subject, arm: str, name: str) -> str:
    """The module's function ``name`` renamed ``implement``, after the module's imports: what the
    structural evaluator scores for an answer."""
    tree, source = module_of(subject, arm)
    imports = [
        ast.get_source_segment(source, node) or ""
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    body = ast.get_source_segment(source, function(tree, name)) or ""
    return "\n".join([*imports, "", body.replace(f"def {name}(", "def implement(", 1), ""])


def verdict(subject: Subject, source: str, primitives: tuple[str, ...] | None = None) -> str:
    task = subject.task
    result = score(
        source,
        helper=task.helper,
        helper_module=task.helper_module,
        primitives=task.primitives if primitives is None else primitives,
        version=EVALUATOR,
    )
    return str(result.verdict)


# -- shapes and tasks ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES["shapes"]))
def test_shape(bank: dict[str, Scenario], name: str) -> None:
    scenario, shape = bank[name], CASES["shapes"][name]
    assert Counter(s.task.family for s in scenario.subjects) == shape["families"]
    assert len(scenario.subjects) == shape["subjects"]


def no_null(value: object) -> bool:
    if isinstance(value, list):
        return all(no_null(v) for v in value)
    if isinstance(value, dict):
        return all(no_null(v) for v in value.values())
    return value is not None


def test_every_task_has_enough_vectors(bank: dict[str, Scenario]) -> None:
    short = {
        s.id: len(s.task.vectors)
        for s in bank["bank"].subjects
        if len(s.task.vectors) < CASES["minimum_vectors"]
        or not all(no_null(v.input) and no_null(v.expected) for v in s.task.vectors)
    }
    assert short == {}


def primitives_called(subject: Subject) -> list[str]:
    """The declared primitives the helper's own body calls, as the evaluator resolves calls."""
    helper = as_answer(subject, "clean", subject.task.helper)
    return [p for p in subject.task.primitives if verdict(subject, helper, (p,)) == "duplicated"]


def test_each_new_helper_is_built_from_primitives_its_body_calls(
    bank: dict[str, Scenario],
) -> None:
    called = {s.id: primitives_called(s) for s in bank["bank-new"].subjects}
    assert {
        task: found for task, found in called.items() if len(found) < CASES["minimum_primitives"]
    } == {}


# -- the manipulation ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bank", "bank-new"])
def test_the_manipulation_holds_for_every_subject(bank: dict[str, Scenario], name: str) -> None:
    assert problems(bank[name]) == []


def calls(node: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
        for n in ast.walk(node)
    )


def test_clean_callers_call_the_helper_and_inconsistent_ones_duplicate_it(
    bank: dict[str, Scenario],
) -> None:
    found = {}
    for subject in bank["bank"].subjects:
        clean = function(module_of(subject, "clean")[0], CALLER)
        messy = as_answer(subject, "inconsistent", CALLER)
        found[subject.id] = (calls(clean, subject.task.helper), verdict(subject, messy))
    assert found == dict.fromkeys(found, (True, "duplicated"))


# -- known answers ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bank", "bank-new"])
def test_references_score_as_declared(bank: dict[str, Scenario], name: str) -> None:
    report = check_known_answers(bank[name], EVALUATOR)
    assert report.failures == ()
    assert report.structure_checks == 2 * len(bank[name].subjects)


def run(cases: list[dict]) -> dict[str, list[str]]:
    result = subprocess.run(
        [sys.executable, str(RUNNER)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return {a["id"]: a["outcomes"] for a in json.loads(result.stdout)}


def case(subject: Subject, arm: str, name: str, source: str) -> dict:
    files = subject.arm(arm).as_mapping()
    files[subject.target] = files[subject.target].rstrip("\n") + "\n\n\n" + source
    return {
        "id": f"{subject.id}/{arm}/{name}",
        "files": files,
        "module": subject.target.removesuffix(".py"),
        "vectors": [v.model_dump(mode="json") for v in subject.task.vectors],
    }


@pytest.mark.process
def test_references_pass_every_vector_on_both_arms(bank: dict[str, Scenario]) -> None:
    scenario = bank["bank"]
    outcomes = run(
        [
            case(subject, arm, kind, getattr(subject.task.references, kind))
            for subject in scenario.subjects
            for arm in scenario.arms
            for kind in ("reused", "duplicated")
        ]
    )
    assert {c: r for c, r in outcomes.items() if set(r) != {"pass"}} == {}
    assert len(outcomes) == 4 * len(scenario.subjects)


def shortcuts() -> Iterator[tuple[str, Path]]:
    for path in sorted(NAIVE.glob("*/*.py")):
        yield path.parent.name, path


def test_every_new_task_has_a_shortcut(bank: dict[str, Scenario]) -> None:
    assert {task for task, _ in shortcuts()} == {s.id for s in bank["bank-new"].subjects}


@pytest.mark.process
def test_shortcuts_fail_a_vector_on_both_arms(bank: dict[str, Scenario]) -> None:
    scenario = bank["bank-new"]
    outcomes = run(
        [
            case(scenario.subject(task), arm, path.stem, path.read_text(encoding="utf-8"))
            for task, path in shortcuts()
            for arm in scenario.arms
        ]
    )
    assert outcomes and {c: r for c, r in outcomes.items() if set(r) == {"pass"}} == {}


# -- blindness -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bank", "bank-new"])
def test_prompts_neither_hint_nor_leak(bank: dict[str, Scenario], name: str) -> None:
    assert prompt_problems(bank[name]) == []


# -- no two helpers are variants of one template ----------------------------------------------


def template(helper: ast.FunctionDef | str) -> list[str]:
    """The helper as a pre-order sequence of node types: a variable's, an argument's or the
    function's own name, a constant's value, the annotations, the docstring and the load/store
    markers erased; what it calls (a called name, an attribute) kept."""
    tree = ast.parse(helper).body[0] if isinstance(helper, str) else helper
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    docstring = tree.body[0] if ast.get_docstring(tree) is not None else None
    sequence: list[str] = []

    def visit(node: ast.AST) -> None:
        if node is docstring or isinstance(node, ast.expr_context):
            return
        kind = type(node).__name__
        if isinstance(node, ast.Name):
            kind += f":{node.id}" if node.id in called else ""
        elif isinstance(node, ast.Attribute):
            kind += f":{node.attr}"
        sequence.append(kind)
        for field, value in ast.iter_fields(node):
            if field in ("returns", "annotation", "type_comment"):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    visit(child)

    visit(tree)
    return sequence


def alike(one: list[str], other: list[str]) -> float:
    return difflib.SequenceMatcher(None, one, other, autojunk=False).ratio()


def test_no_two_helpers_are_variants_of_one_template(bank: dict[str, Scenario]) -> None:
    subjects = {s.id: s for s in bank["bank"].subjects}
    shapes = {
        task: template(function(module_of(s, "clean")[0], s.task.helper))
        for task, s in subjects.items()
    }
    too_alike, same_primitives = {}, []
    for one, other in itertools.combinations(sorted(subjects), 2):
        ratio = alike(shapes[one], shapes[other])
        if ratio >= CASES["template_ratio"]:
            too_alike[(one, other)] = round(ratio, 3)
        if set(subjects[one].task.primitives) == set(subjects[other].task.primitives):
            same_primitives.append((one, other))
    assert (too_alike, same_primitives) == ({}, [])
    assert len(shapes) == len(bank["bank"].subjects)


@pytest.mark.parametrize("pair", CASES["variants"], ids=[p["name"] for p in CASES["variants"]])
def test_the_template_check_catches_a_variant(pair: dict[str, str]) -> None:
    assert alike(template(pair["helper"]), template(pair["variant"])) >= CASES["template_ratio"]
