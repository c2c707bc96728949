"""``assay new-task`` and ``assay new-scenario``: start a task folder from an existing one
(``assay.fixtures.new_task``), or a scenario of one's own (``assay.fixtures.new_scenario``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from assay.commands import UsageError, add_described

if TYPE_CHECKING:
    from assay.fixtures.model import Scenario

DESCRIPTION = """\
Copy an existing task folder of fixtures/v1/, fixtures/bank/ (the task bank), fixtures/layered/
or a declared scenario's folder to a new task id, with its id (and, with --family, its family)
rewritten in task.toml, then print what each file must hold and the commands that check it.
The bank and a declared scenario may copy a v1 task too. The bank stays balanced: a family
that already holds more of the bank's tasks than another is refused, naming the families to
write first. Edit the files, then `uv run assay check` loads every task of the scenarios
params.yaml lists (naming a bad file, key or vector, and checking that the arms differ only in
the existing callers), and `uv run dvc repro pipeline/selftest/dvc.yaml:selftest@SCENARIO`
self-tests the references in the sandbox. dose, placement, chain and context reuse the layered
tasks, bank-new the bank's. The layout: docs/fixtures.md.
"""

SCENARIO_DESCRIPTION = """\
Declare a scenario of your own, with no Python edit: FIXTURES/NAME/scenario.toml (layout v1:
arms clean and inconsistent) and one task folder copied from fixtures/v1/ (--from-task, default
the first), so the scenario loads at once; NAME is listed under `scenarios:` in params.yaml
(comments kept). Refused, with nothing written, when NAME is a built-in scenario, is taken or is
not a valid name (letters, digits, '_' and '-'). Then add tasks with `uv run assay new-task NAME
TASK-ID`, check with `uv run assay check`, declare a run with `uv run assay run add RUN --model M
--scenario NAME` and run it with `uv run dvc repro`. The layout: docs/fixtures.md.
"""


def _new_task(args: argparse.Namespace) -> int:
    from assay.fixtures.new_task import NewTaskError, new_task, next_steps

    try:
        copied = new_task(Path(args.fixtures), args.folder, args.task_id, args.source, args.family)
    except NewTaskError as exc:
        raise UsageError(str(exc)) from None
    print(next_steps(copied))
    return 0


CHECK_TASK_DESCRIPTION = """\
Check one task of fixtures/v1/, fixtures/bank/ or a declared scenario's folder on its own, in
seconds, as `assay check`, the self-test and the bank's tests would: its declaration loads; its
arms differ only in existing_feature, which the clean arm writes through the helper and the
inconsistent one inline (scoring duplicated); its instruction names neither the helper nor a
primitive as code, and neither prompt shows a vector, a reference, the task id, its family or
the arm; both references score as declared under the preregistered structural evaluator
(params.yaml: analysis.structure_evaluator); and, in the sandbox image the image stage recorded
(data/image/standard.json), both references pass every vector on both arms and a known-wrong
answer fails. Each check prints one line; any problem exits 2, one line each.
"""


def _check_task(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.core.errors import InputError
    from assay.fixtures.manipulation import problems as manipulation_problems
    from assay.fixtures.new_task import layout_of
    from assay.fixtures.task_check import load_task, prompt_problems
    from assay.pipeline.known_answers import check_known_answers

    try:
        params = load_params(args.params)
        fixtures = Path(params.fixtures)
        scenario = load_task(fixtures, args.folder, args.task_id, layout_of(fixtures, args.folder))
    except ParamsError as exc:
        raise UsageError(*exc.lines) from None
    except InputError as exc:
        raise UsageError(str(exc)) from None
    (subject,) = scenario.subjects
    task = subject.task
    print(
        f"{args.folder}/{subject.id}: loaded (family {task.family}, {len(task.vectors)} vectors, "
        f"helper {task.helper}, primitives {', '.join(task.primitives)})"
    )
    version = params.analysis.structure_evaluator
    found = {
        "manipulation": manipulation_problems(scenario),
        "prompts": prompt_problems(scenario),
        f"known answers (structural evaluator v{version})": [
            f"reference-{f.reference}: {f.problem}"
            for f in check_known_answers(scenario, version).failures
        ],
        "sandbox": [] if args.no_sandbox else _sandbox_problems(scenario),
    }
    for name, lines in found.items():
        state = "ok" if not lines else f"{len(lines)} problem(s)"
        if name == "sandbox" and args.no_sandbox:
            state = "not run (--no-sandbox)"
        print(f"  {name}: {state}")
    problems = [f"{name}: {line}" for name, lines in found.items() for line in lines]
    if problems:
        raise UsageError(*problems)
    return 0


def _sandbox_problems(scenario: Scenario) -> list[str]:
    """The sandbox self-test of the task's one subject in the recorded standard image: both
    references on both arms, the known-wrong answer once; a line per failing check."""
    from assay import evidence
    from assay.pipeline.image import load_pinned
    from assay.sandbox.selftest import run_selftest

    record = evidence.load_image_record(evidence.image_record("standard"))
    if record is None:
        where = evidence.image_record("standard")
        build = "`uv run dvc repro pipeline/image/dvc.yaml`"
        return [f"no image record at {where}: build the image with {build}, or pass --no-sandbox"]
    load_pinned(record.image_id, "standard")
    sandbox = run_selftest(scenario.subjects, record.image_id)
    lines = [
        f"{f.arm} {f.implementation}: {f.status} ({f.reason}), expected {f.expected_status}"
        + (
            f"; first failing case: vectors[{f.case}] (input {f.case_input})"
            if f.case is not None
            else ""
        )
        for f in sandbox.failures
    ]
    if not lines and not sandbox.passed:
        lines = [f"{sandbox.checks} of {sandbox.expected_checks} checks ran"]
    return lines


def _new_scenario(args: argparse.Namespace) -> int:
    from assay.fixtures.new_scenario import NewScenarioError, new_scenario, next_steps

    fixtures = None if args.fixtures is None else Path(args.fixtures)
    try:
        made = new_scenario(
            args.name, params=Path(args.params), fixtures=fixtures, source=args.source
        )
    except NewScenarioError as exc:
        raise UsageError(str(exc)) from None
    print(next_steps(made))
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = add_described(
        subparsers, "new-task", "start a new task folder as a copy of an existing one", DESCRIPTION
    )
    command.add_argument(
        "folder",
        help="v1 (single-file subjects), bank (the task bank, v1 layout), layered (multi-file) "
        "or a declared scenario's name",
    )
    command.add_argument("task_id", help="the new task's id, kebab-case: e.g. invoice-total")
    command.add_argument(
        "--from",
        dest="source",
        help="the task to copy (default: the folder's first task; the bank and a declared "
        "scenario may also copy a v1 task)",
    )
    command.add_argument(
        "--family",
        help="the new task's family, written in task.toml (default: the copied task's): "
        "cosmetic, architectural or semantic (layered: route-view, domain-rule, cross-module)",
    )
    command.add_argument(
        "--fixtures", default="fixtures", help="the fixtures folder (default: fixtures)"
    )
    command.set_defaults(handler=_new_task)

    check = add_described(
        subparsers,
        "check-task",
        "check one task on its own: manipulation, prompts, known answers, sandbox",
        CHECK_TASK_DESCRIPTION,
    )
    check.add_argument("folder", help="v1, bank or a declared scenario's name")
    check.add_argument("task_id", help="the task's id (its folder's name)")
    check.add_argument(
        "--no-sandbox",
        action="store_true",
        help="leave out the sandbox self-test (no Docker engine or image needed)",
    )
    check.add_argument(
        "--params",
        type=Path,
        default=Path("params.yaml"),
        help="the params file (fixtures, analysis.structure_evaluator)",
    )
    check.set_defaults(handler=_check_task)

    scenario = add_described(
        subparsers,
        "new-scenario",
        "declare a scenario of your own (two arms, v1 layout) with no Python edit",
        SCENARIO_DESCRIPTION,
    )
    scenario.add_argument("name", help="the scenario's name: letters, digits, '_' and '-'")
    scenario.add_argument(
        "--from-task",
        dest="source",
        help="the fixtures/v1 task to start from (default: its first task)",
    )
    scenario.add_argument(
        "--fixtures",
        help="the fixtures folder (default: the one params.yaml names under `fixtures:`)",
    )
    scenario.add_argument(
        "--params",
        default="params.yaml",
        help="the params file to list it in (default: params.yaml)",
    )
    scenario.set_defaults(handler=_new_scenario)
