"""Which runs the ``dvc repro`` (or ``dvc exp run``) that started this stage asked for.

DVC tells a stage's command nothing of the targets it runs for, so ``dvc repro execute@A`` runs
the ``send`` stage, which would send every run. This module finds the DVC command line among
this process's ancestors (``/proc``: the stage's shell, then DVC), parses it with DVC's own
parser, and derives the stages that command reproduces with DVC's own functions
(``dvc.repo.reproduce``: the targets collected, the repro planned with ``--downstream``,
``--pipeline`` and ``--single-item`` as given). The runs asked for are those whose ``execute``
stage is among them.

Every run is asked for when there are no targets (``dvc repro``: ``dvc.yaml`` and everything
upstream of it), when the send stage itself is a target, with ``--all-pipelines``, and when the
stage was not started by a ``dvc repro`` or ``dvc exp run`` command line (DVC's Python API, a
queued experiment run by ``dvc exp run --run-all``, whose targets were given to ``--queue``):
that is DVC's own reading of the pipeline, the send stage's outputs being every run's receipt.
``dvc exp run TARGET`` (``--temp`` included) is read as ``dvc repro TARGET``: it takes the same
arguments but ``--glob``.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path

from assay.core.records import Frozen
from assay.pipeline.layout import address

EXECUTE = "execute@"
SEND = "send"


class Requested(Frozen):
    """The runs a DVC command asked for; ``runs is None``: every run."""

    runs: frozenset[str] | None = None
    command: str | None = None
    """The DVC command line, as typed, when it asked for some runs only."""

    def wants(self, run: str) -> bool:
        return self.runs is None or run in self.runs


EVERY_RUN = Requested()


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    return int(stat.rsplit(")", 1)[1].split()[1])  # the field after the (name) is the parent


def _ancestors() -> Iterator[int]:
    pid = os.getppid()
    while pid > 1:
        yield pid
        pid = _parent(pid)


def _arguments(pid: int) -> list[str]:
    raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    return [word.decode("utf-8", "replace") for word in raw.split(b"\0") if word]


def dvc_arguments(argv: Sequence[str]) -> list[str] | None:
    """What follows ``dvc`` in a command line (``dvc …``, ``python …/bin/dvc …``, ``python -m
    dvc …``); ``None`` when it is not DVC's."""
    for index, word in enumerate(argv):
        if Path(word).name == "dvc":
            return list(argv[index + 1 :])
        if word == "-m" and argv[index + 1 : index + 2] == ["dvc"]:
            return list(argv[index + 2 :])
    return None


def _invocation() -> tuple[list[str], Path] | None:
    """The nearest ancestor's DVC arguments and its working folder."""
    try:
        for pid in _ancestors():
            arguments = dvc_arguments(_arguments(pid))
            if arguments is not None:
                return arguments, Path(os.readlink(f"/proc/{pid}/cwd"))
    except (OSError, ValueError, IndexError):
        return None
    return None


def requested_by(arguments: Sequence[str], folder: Path, runs: Sequence[str]) -> Requested:
    """The runs of ``runs`` that ``dvc ARGUMENTS``, typed in ``folder``, asks for."""
    from dvc.cli import DvcParserError, parse_args
    from dvc.commands.repro import CmdRepro

    try:
        args = parse_args(list(arguments))
    except (DvcParserError, SystemExit):
        return EVERY_RUN
    func = getattr(args, "func", None)
    if not (isinstance(func, type) and issubclass(func, CmdRepro)):
        return EVERY_RUN  # not a repro: `dvc exp exec-run` of a queued experiment, say
    if args.all_pipelines or not args.targets:
        return EVERY_RUN
    from dvc.repo import Repo
    from dvc.repo.reproduce import collect_stages, get_active_graph, plan_repro

    # `dvc exp run` takes `dvc repro`'s arguments but `--glob` (which only `dvc repro` has)
    glob = getattr(args, "glob", False)
    with contextlib.chdir(folder), Repo(os.fspath(folder)) as repo:
        stages = collect_stages(repo, args.targets, recursive=args.recursive, glob=glob)
        steps = (
            stages
            if args.single_item
            else plan_repro(
                get_active_graph(repo.index.graph),
                stages,
                pipeline=args.pipeline,
                downstream=args.downstream,
            )
        )
        names = {stage.name for stage in steps}
    if SEND in {stage.name for stage in stages}:
        return EVERY_RUN  # the send stage named: every run
    asked = frozenset(run for run in runs if EXECUTE + run in names)
    if asked == frozenset(runs):
        return EVERY_RUN
    return Requested(runs=asked, command=shlex.join(["dvc", *arguments]))


def requested_runs(runs: Sequence[str]) -> Requested:
    """The runs the DVC command that started this process asks for (see the module)."""
    found = _invocation()
    if found is None:
        return EVERY_RUN
    arguments, folder = found
    return requested_by(arguments, targets_folder(folder, Path.cwd()), runs)


def targets_folder(folder: Path, stage_root: Path) -> Path:
    """Where the command's targets are read: the folder it was typed in, unless the stage runs
    in another workspace (``dvc exp run --temp`` and queued experiments run in a copy under
    ``.dvc/tmp/exps``, with the experiment's params.yaml): then that copy's root."""
    return folder if folder.resolve().is_relative_to(stage_root.resolve()) else stage_root


def how_to_send(run: str, api_key_env: str | None) -> str:
    """The commands that send a run left for its own execute stage."""
    from assay.pipeline.layout import repro_command

    command = repro_command(api_key_env)
    return f"`{command} {address('execute', run)}` sends it (or `{command}`, every run)"
