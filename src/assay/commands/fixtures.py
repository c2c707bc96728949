"""``assay new-task``: start a task folder from an existing one (``assay.fixtures.new_task``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay.commands import UsageError

DESCRIPTION = """\
Copy an existing task folder of fixtures/v1/ or fixtures/layered/ to a new task id, with its id
rewritten in task.toml, and say what each file is. Nothing else changes: edit the files, then
`uv run assay check` loads every task of the scenarios params.yaml lists (naming a bad file,
key or vector, and checking that the arms differ only in the existing callers), and `uv run dvc
repro` self-tests the references in the sandbox. dose, placement, chain and context reuse the
layered tasks. The layout: docs/fixtures.md.
"""


def _new_task(args: argparse.Namespace) -> int:
    from assay.fixtures.new_task import NewTaskError, new_task, next_steps

    try:
        target, source = new_task(Path(args.fixtures), args.folder, args.task_id, args.source)
    except NewTaskError as exc:
        raise UsageError(str(exc)) from None
    print(next_steps(target, args.folder, source))
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = subparsers.add_parser(
        "new-task",
        help="start a new task folder as a copy of an existing one",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("folder", help="v1 (single-file subjects) or layered (multi-file)")
    command.add_argument("task_id", help="the new task's id, kebab-case: e.g. invoice-total")
    command.add_argument(
        "--from", dest="source", help="the task to copy (default: the folder's first task)"
    )
    command.add_argument(
        "--fixtures", default="fixtures", help="the fixtures folder (default: fixtures)"
    )
    command.set_defaults(handler=_new_task)
