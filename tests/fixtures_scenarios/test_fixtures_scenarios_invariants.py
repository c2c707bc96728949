"""Invariants of the layered, dose, placement, chain and context scenarios (issue 6, item 6).

Properties are read back from the realised arm files (by parsing them), not from the builders'
own position tables, so a builder bug cannot hide behind the data that produced it.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from assay.fixtures.model import Scenario, Subject
from assay.science.render import render_input

CASES = Path(__file__).parent / "cases"
SHAPES = yaml.safe_load((CASES / "scenario_shapes.yaml").read_text(encoding="utf-8"))
POSITIONS = yaml.safe_load((CASES / "inline_positions.yaml").read_text(encoding="utf-8"))
FAMILIES = ("route-view", "domain-rule", "cross-module")
PADDING_TARGETS = {"ctx-30": 30 * 1024, "ctx-90": 90 * 1024}
BUILTIN_TYPES = {"str", "bytes", "int", "float", "list", "dict", "set", "tuple", "frozenset"}


def callers(source: str) -> list[ast.FunctionDef]:
    tree = ast.parse(source)
    return [node for node in tree.body if isinstance(node, ast.FunctionDef)]


def names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def inline_positions(subject: Subject, arm: str) -> list[int]:
    """Positions of callers that do not name the helper, read from the arm's target file."""
    functions = callers(subject.arm(arm).file(subject.target))
    return [i for i, fn in enumerate(functions) if subject.task.helper not in names_used(fn)]


# -- shapes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_scenario_shape(scenarios: dict[str, Scenario], name: str) -> None:
    scenario, shape = scenarios[name], SHAPES[name]
    assert scenario.name == name
    assert scenario.prompt_profile == "layered"
    assert list(scenario.arms) == shape["arms"]
    assert scenario.steps == shape["steps"]
    assert len(scenario.subjects) == 12
    families = Counter(s.task.family for s in scenario.subjects)
    assert families == dict.fromkeys(FAMILIES, 4)
    for subject in scenario.subjects:
        assert {a.name: a.sandbox for a in subject.arms} == shape["sandbox"]


@pytest.mark.parametrize("name", ["dose", "placement"])
def test_dose_and_placement_grids_are_12_by_6(scenarios: dict[str, Scenario], name: str) -> None:
    scenario = scenarios[name]
    cells = [(s.id, a.name) for s in scenario.subjects for a in s.arms]
    assert len(set(cells)) == 72  # 144 cells with two repeats


def test_subjects_are_the_same_tasks_in_every_scenario(scenarios: dict[str, Scenario]) -> None:
    tasks = {name: {s.id: s.task for s in sc.subjects} for name, sc in scenarios.items()}
    assert all(t == tasks["layered"] for t in tasks.values())


# -- arm invariance --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_arms_differ_only_where_the_scenario_says(
    scenarios: dict[str, Scenario], name: str
) -> None:
    for subject in scenarios[name].subjects:
        reference = subject.arms[0].as_mapping()
        targets = set()
        for arm in subject.arms:
            files = arm.as_mapping()
            targets.add(files[subject.target])
            if SHAPES[name]["differs"] == "target":
                assert files.keys() == reference.keys()
                assert {p: t for p, t in files.items() if p != subject.target} == {
                    p: t for p, t in reference.items() if p != subject.target
                }
            else:  # padding: the unpadded arm's files are present unchanged; the rest is padding
                assert {p: files[p] for p in reference} == reference
        if SHAPES[name]["differs"] == "target":
            assert len(targets) == len(subject.arms), f"{subject.id}: two arms share a target file"
        else:
            assert len(targets) == 1


def test_dose_and_placement_share_their_common_arms(scenarios: dict[str, Scenario]) -> None:
    for dose, placement in zip(
        scenarios["dose"].subjects, scenarios["placement"].subjects, strict=True
    ):
        for arm in ("mess-00", "mess-10"):
            assert dose.arm(arm).files == placement.arm(arm).files
    for chain, placement in zip(
        scenarios["chain"].subjects, scenarios["placement"].subjects, strict=True
    ):
        for arm in chain.arms:
            assert arm.files == placement.arm(arm.name).files
    for context, placement in zip(
        scenarios["context"].subjects, scenarios["placement"].subjects, strict=True
    ):
        assert context.arm("ctx-00").files == placement.arm("tail-07").files


# -- where the mess is -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_inline_positions_match_the_declared_table(
    scenarios: dict[str, Scenario], name: str
) -> None:
    for subject in scenarios[name].subjects:
        expected_callers = 3 if name == "layered" else 10
        assert len(callers(subject.arms[0].file(subject.target))) == expected_callers
        for arm, positions in POSITIONS[name].items():
            assert inline_positions(subject, arm) == positions, (subject.id, arm)


def test_dose_levels_are_nested_spread_and_keep_the_last_caller_clean(
    scenarios: dict[str, Scenario],
) -> None:
    for subject in scenarios["dose"].subjects:
        previous: set[int] = set()
        for arm in scenarios["dose"].arms:
            level = int(arm.split("-")[1])
            inline = set(inline_positions(subject, arm))
            assert len(inline) == level
            assert previous <= inline, f"{subject.id} {arm} does not contain the level below"
            if level < 10:
                assert 9 not in inline, f"{subject.id} {arm}: last caller is inline"
            if 3 <= level < 10:
                assert max(inline) - min(inline) + 1 > len(inline), (
                    f"{subject.id} {arm}: not spread"
                )
                assert max(inline) - min(inline) >= 5, f"{subject.id} {arm}: bunched together"
            previous = inline


def test_tail_arms_are_contiguous_above_the_insertion_point(scenarios: dict[str, Scenario]) -> None:
    for name in ("placement", "chain", "context"):
        for subject in scenarios[name].subjects:
            for arm in subject.arms:
                inline = inline_positions(subject, arm.name)
                if inline and len(inline) < 10:
                    assert inline == list(range(10 - len(inline), 10)), (name, subject.id, arm.name)
                    source = arm.file(subject.target)
                    last = callers(source)[-1]
                    assert subject.task.helper not in names_used(last)
                    after = source.splitlines()[last.end_lineno or 0 :]
                    assert all(not line.strip() for line in after), "code below the last caller"


# -- imports ---------------------------------------------------------------------------------


@pytest.mark.process
def test_no_target_file_has_an_unused_import(
    scenarios: dict[str, Scenario], tmp_path: Path
) -> None:
    written = 0
    for name, scenario in scenarios.items():
        for subject in scenario.subjects:
            for arm in subject.arms:
                path = (
                    tmp_path
                    / f"{name}__{subject.id.replace('-', '_')}__{arm.name.replace('-', '_')}.py"
                )
                path.write_text(arm.file(subject.target), encoding="utf-8")
                written += 1
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--no-cache",
            "--select",
            "F401,F811,F821",
            "--output-format",
            "json",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.lstrip().startswith("["), result.stderr  # ruff ran and answered
    findings = json.loads(result.stdout)
    assert written == 12 * (2 + 6 + 6 + 3 + 3)
    assert findings == [], [(f["filename"], f["message"]) for f in findings]


@pytest.mark.process
def test_every_repository_file_is_clean_python(
    scenarios: dict[str, Scenario], tmp_path: Path
) -> None:
    """Shared modules and targets alike: no unused import, undefined name or syntax error."""
    for subject in scenarios["placement"].subjects:
        for arm in subject.arms:
            folder = tmp_path / subject.id / arm.name.replace("-", "_")
            for path, text in arm.as_mapping().items():
                (folder / path).parent.mkdir(parents=True, exist_ok=True)
                (folder / path).write_text(text, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--no-cache",
            "--select",
            "F,E9",
            "--output-format",
            "json",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout.lstrip().startswith("["), result.stderr  # ruff ran and answered
    findings = json.loads(result.stdout)
    assert findings == [], [(f["filename"], f["message"]) for f in findings]


def test_target_imports_only_what_its_callers_use(scenarios: dict[str, Scenario]) -> None:
    """The ast view of the same rule, independent of ruff: every imported name is used."""
    for scenario in scenarios.values():
        for subject in scenario.subjects:
            for arm in subject.arms:
                tree = ast.parse(arm.file(subject.target))
                imported = {
                    (alias.asname or alias.name).split(".")[0]
                    for node in tree.body
                    if isinstance(node, ast.Import | ast.ImportFrom)
                    for alias in node.names
                }
                assert imported <= names_used(tree), (scenario.name, subject.id, arm.name)


# -- padding ---------------------------------------------------------------------------------


def padding_files(subject: Subject, arm: str) -> dict[str, str]:
    unpadded = subject.arm("ctx-00").as_mapping()
    return {p: t for p, t in subject.arm(arm).as_mapping().items() if p not in unpadded}


def test_padding_sizes_are_within_ten_percent(scenarios: dict[str, Scenario]) -> None:
    for subject in scenarios["context"].subjects:
        assert padding_files(subject, "ctx-00") == {}
        for arm, target in PADDING_TARGETS.items():
            size = sum(len(t.encode("utf-8")) for t in subject.arm(arm).as_mapping().values())
            assert abs(size - target) <= 0.10 * target, (subject.id, arm, size)
            assert padding_files(subject, arm), (subject.id, arm)


def test_padding_never_mentions_the_helper_its_module_or_primitives(
    scenarios: dict[str, Scenario],
) -> None:
    for subject in scenarios["context"].subjects:
        task = subject.task
        words = {task.helper, str(task.helper_module)}
        for primitive in task.primitives:
            words |= {part for part in primitive.split(".") if part not in BUILTIN_TYPES}
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(words))) + r")\b")
        for arm in ("ctx-30", "ctx-90"):
            for path, text in padding_files(subject, arm).items():
                found = pattern.findall(path + "\n" + text)
                assert not found, (subject.id, arm, path, sorted(set(found)))


@pytest.mark.process
def test_padding_is_clean_importable_python(scenarios: dict[str, Scenario], tmp_path: Path) -> None:
    modules = {}
    for subject in scenarios["context"].subjects:
        modules.update(padding_files(subject, "ctx-90"))
    for path, text in modules.items():
        (tmp_path / path).write_text(text, encoding="utf-8")
    lint = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--no-cache",
            "--select",
            "F,E9",
            "--output-format",
            "json",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.stdout.lstrip().startswith("["), lint.stderr  # ruff ran and answered
    assert json.loads(lint.stdout) == []
    imports = "; ".join(f"import {Path(p).stem}" for p in sorted(modules))
    run = subprocess.run(
        [sys.executable, "-c", imports], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]


# -- prompts and declarations ----------------------------------------------------------------


def no_null(value: object) -> bool:
    if value is None:
        return False
    if isinstance(value, list):
        return all(no_null(v) for v in value)
    if isinstance(value, dict):
        return all(no_null(v) for v in value.values())
    return True


def test_tasks_declare_what_the_layered_profile_needs(scenarios: dict[str, Scenario]) -> None:
    for subject in scenarios["layered"].subjects:
        task = subject.task
        assert task.helper_module and f"{task.helper_module}.py" in subject.arms[0].as_mapping()
        assert re.search(r"`implement\([A-Za-z_][A-Za-z0-9_]*\)`", task.instruction), task.id
        assert len(task.vectors) >= 3
        for vector in task.vectors:
            assert no_null(vector.input) and no_null(vector.expected), task.id


def test_hidden_values_never_reach_a_prompt(scenarios: dict[str, Scenario]) -> None:
    for name, scenario in scenarios.items():
        for subject in scenario.subjects:
            hidden = [
                subject.task.references.reused.strip(),
                subject.task.references.duplicated.strip(),
            ]
            for vector in subject.task.vectors:
                for value in (vector.input, vector.expected):
                    for text in (
                        json.dumps(value),
                        json.dumps(value, ensure_ascii=False),
                        repr(value),
                    ):
                        if len(text) >= 8:
                            hidden.append(text)
            for arm in subject.arms:
                prompt = render_input(subject, arm, scenario.prompt_profile).text
                for text in hidden:
                    assert text not in prompt, (name, subject.id, arm.name, text[:60])
                for word in (subject.id, subject.task.family, arm.name):
                    assert word not in prompt, (name, subject.id, arm.name, word)


def test_layered_prompts_show_every_file_with_the_target_last(
    scenarios: dict[str, Scenario],
) -> None:
    for subject in scenarios["layered"].subjects:
        prompt = render_input(subject, "clean", "layered").text
        shown = re.findall(r"^File `([^`]+)`:", prompt, flags=re.MULTILINE)
        assert sorted(shown) == sorted(subject.arm("clean").as_mapping())
        assert shown[-1] == subject.target
        assert "exactly one return" not in prompt
