"""The whole default study from a fresh clone, stage by stage, then a no-op `dvc repro`.

    uv run python benchmarks/study.py [--fresh-engine] [--noop-only] [--keep DIR]

1. ``git clone`` of this repository's HEAD into a temporary folder (untracked and uncommitted
   files are not part of a clone), as a user gets it: the committed dvc.lock files, no outputs,
   so every stage runs.
2. ``uv sync --frozen --compile-bytecode`` and ``npm ci --prefix tools`` there (docs/setup.md; timed, reported apart).
3. ``uv run dvc repro`` of the default ``params.yaml``, timing every stage from DVC's
   ``Running stage`` lines and its lines for a stage it checks out from the cache instead
   (DVC runs stages one after another), and printing the time and
   count of stages per stage kind. The send stage's time is split in two: *local generation*
   (from the moment each local model run opened its ledger, just before its server starts, to
   its last answer: the union of those spans within the stage) and the rest. "Every stage but
   local generation" is the sum of all stages less that local generation: the figure the
   stages other than a local model's own work cost.
4. ``dvc repro`` three more times with nothing changed (no stage may run): the no-op figure,
   best and median; and ``dvc status`` the same way, for what DVC's check of every stage costs.
5. The timing table of README.md, from these figures, with the date and the machine.

The study starts from an empty memo of results (``ASSAY_MEMO_DIR`` in the temporary folder,
``assay.core.memo``), as on a machine that never ran one.

``--fresh-engine`` runs the study against a private Docker engine with an empty data root, so
the sandbox image is really built (``docker import`` of the cached debootstrap root filesystem,
then ``docker build``); without it the shared engine's image is reused. The machine's load
average before and after is printed: other processes share the two cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assay.config.params import load_params
from tests.private_engine import private_engine  # the tests' second engine


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min, {os.cpu_count()} cores)"


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


class Stage(NamedTuple):
    name: str
    seconds: float
    started: float
    """Wall-clock start (``time.time()``), to line stages up with the ledgers' timestamps."""

    @property
    def kind(self) -> str:
        return self.name.rsplit(":", 1)[-1].split("@")[0]


STAGE_START = re.compile(r"(?:Running stage|Stage) '([^']+)'(?::| is cached - skipping run)")
"""A stage DVC runs, or one whose committed lock entry it checks out instead because another
stage already cached the same outputs (the empty measurements of two planned paid runs)."""


def repro_by_stage(
    cwd: Path, env: dict[str, str], command: list[str] | None = None
) -> tuple[float, list[Stage]]:
    """Wall time of ``dvc repro`` (or ``command``) and each stage's share, from DVC's own
    progress lines."""
    started = time.perf_counter()
    process = subprocess.Popen(["uv", "run", "dvc", *(command or ["repro"])], cwd=cwd, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    marks: list[tuple[str, float, float]] = []
    output = []
    assert process.stdout is not None
    for line in process.stdout:
        output.append(line)
        started_stage = STAGE_START.search(line)  # (a progress bar's redraw may precede it)
        if started_stage:
            marks.append((started_stage[1], time.perf_counter(), time.time()))
    if process.wait() != 0:
        sys.exit("dvc repro failed:\n" + "".join(output[-60:]))
    ended = time.perf_counter()
    ends = [t for _, t, _ in marks[1:]] + [ended]
    return ended - started, [
        Stage(name, end - t, wall) for (name, t, wall), end in zip(marks, ends, strict=True)
    ]


def local_spans(clone: Path) -> list[tuple[float, float]]:
    """Per local-model run: from its ledger's header (written just before its server starts)
    to its last outcome, wall clock."""
    params = load_params(clone / "params.yaml")
    spans = []
    for run, spec in params.runs.items():
        if params.models[spec.model].provider != "local":
            continue
        for ledger in (clone / params.ledger_root / run).glob("*/ledger.jsonl"):
            times = [json.loads(line) for line in ledger.read_text().splitlines() if line]
            opened = min(r["at"] for r in times if r["type"] == "header")
            answered = [r["at"] for r in times if r["type"] == "outcome"]
            if answered:
                spans.append((opened, max(answered)))
    return spans


def covered(spans: list[tuple[float, float]], start: float, end: float) -> float:
    """Seconds of [start, end] inside the union of ``spans``."""
    total, reached = 0.0, start
    for low, high in sorted(spans):
        low, high = max(low, reached), min(high, end)
        if high > low:
            total += high - low
            reached = high
    return total


def seconds_by_kind(stages: list[Stage], local: float = 0.0) -> dict[str, float]:
    """Seconds per stage kind, the send stage's without its ``local`` seconds of local
    generation."""
    seconds: dict[str, float] = defaultdict(float)
    for stage in stages:
        seconds[stage.kind] += stage.seconds
    seconds["send"] -= local
    return seconds


def by_kind(stages: list[Stage], local: float = 0.0) -> str:
    """The table of stage kinds: seconds and stages of each, slowest first; the send stage's
    ``local`` seconds of local generation on a row of their own."""
    seconds = seconds_by_kind(stages, local)
    counts: dict[str, int] = defaultdict(int)
    for stage in stages:
        counts[stage.kind] += 1
    if local:
        seconds["send: local generation"] = local
        counts["send: local generation"] = 0
    rows = [f"  {'stage kind':<24}{'seconds':>9}{'stages':>8}"]
    for kind in sorted(seconds, key=lambda k: -seconds[k]):
        rows.append(f"  {kind:<24}{seconds[kind]:>9.1f}{counts[kind] or '':>8}")
    rows.append(f"  {'all':<24}{sum(s.seconds for s in stages):>9.1f}{len(stages):>8}")
    return "\n".join(rows)


def noop(cwd: Path, env: dict[str, str]) -> list[float]:
    """Three no-op ``dvc repro`` (none may run a stage), printed with ``dvc status``; their
    seconds."""
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        out = subprocess.run(["uv", "run", "dvc", "repro"], cwd=cwd, env=env, check=True,
                             capture_output=True, text=True).stdout  # fmt: skip
        timings.append(time.perf_counter() - started)
        ran = [line for line in out.splitlines() if line.startswith("Running stage")]
        assert ran == [], ran
    status = [timed(["uv", "run", "dvc", "status"], cwd, env) for _ in range(3)]
    bare = [timed(["uv", "run", "dvc", "--version"], cwd, env) for _ in range(3)]
    print(f"no-op dvc repro       {min(timings):.2f} s best, {statistics.median(timings):.2f} s "
          f"median ({', '.join(f'{t:.2f}' for t in timings)})")  # fmt: skip
    print(
        f"  dvc status          {min(status):.2f} s best; `uv run dvc --version` {min(bare):.2f} s"
    )
    return timings


def machine() -> str:
    """The CPU as /proc/cpuinfo names it, with its family and model (a virtual machine's name
    may be as generic as "AMD EPYC"), and the logical cores."""
    fields: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name", "an unknown CPU")
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']}, model {fields['model']})"
    return f"{os.cpu_count()} cores of {name}"


def readme_table(
    setup: tuple[float, float], total: float, stages: list[Stage], local: float, noops: list[float]
) -> str:
    """The timing table README.md shows, from this study's own figures (date and machine once:
    the study's start)."""
    seconds = seconds_by_kind(stages, local)
    others = sum(s.seconds for s in stages) - local
    slowest = ", ".join(
        f"{kind} {seconds[kind]:.0f} s" for kind in sorted(seconds, key=lambda k: -seconds[k])[:4]
    )
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(stages[0].started))
    return "\n".join([
        f"Measured by `benchmarks/study.py` on {when}, on {machine()}, from a fresh clone with",
        "the packages cached and an empty memo of results:",
        "",
        "| step | time |",
        "|---|---|",
        f"| setup in the clone: `uv sync`, `npm ci` | {setup[0]:.1f} s, {setup[1]:.1f} s |",
        f"| `dvc repro` of the default study ({len(stages)} stages) | {total / 60:.1f} min ({total:.0f} s) |",
        f"| … of which the local model's generation | {local:.0f} s |",
        f"| … of which every other stage | {others:.0f} s (slowest kinds: {slowest}) |",
        f"| `dvc repro` with nothing changed | {min(noops):.1f} s |",
    ])  # fmt: skip


def experiment(cwd: Path, env: dict[str, str], setting: str) -> None:
    """The study committed, then one ``dvc exp run -S SETTING``: its wall time and each stage's."""
    git = ["git", "-c", "user.email=b@assay.invalid", "-c", "user.name=b"]
    subprocess.run([*git, "add", "-A"], cwd=cwd, env=env, check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "study"], cwd=cwd, env=env, check=True)
    total, stages = repro_by_stage(cwd, env, ["exp", "run", "-S", setting])
    print(f"dvc exp run -S {setting}  {total:.1f} s ({len(stages)} stages ran)")
    print(by_kind(stages))
    shown = subprocess.run(
        ["uv", "run", "dvc", "exp", "show", "--only-changed", "--no-pager", "--drop",
         "data/|src/|stages/|sandbox|tools/|uv.lock|pipeline/"],
        cwd=cwd, env={**env, "COLUMNS": "200"}, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    widest = max((len(line) for line in shown.splitlines()), default=0)
    print(f"  dvc exp show --only-changed (docs/experiments.md recipe): {widest} characters wide")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh-engine", action="store_true")
    parser.add_argument("--noop-only", type=Path, help="time no-op repros in an existing clone")
    parser.add_argument("--keep", type=Path, help="clone here and keep it")
    parser.add_argument(
        "--stage-times", type=Path, help="also write every stage's seconds here (TSV, run order)"
    )
    parser.add_argument(
        "--experiment",
        metavar="SETTING",
        help="then commit the study and time `dvc exp run -S SETTING` "
        "(e.g. models.sim-follower.follow_rate=0.95)",
    )
    args = parser.parse_args()
    base_env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    base_env.pop("VIRTUAL_ENV", None)
    # as in a user's shell: stages write the bytecode of src/ once instead of compiling it in
    # each of the 104 stage processes (about 0.2 s each)
    base_env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.noop_only:
        noop(args.noop_only, base_env)
        return
    work = Path(tempfile.mkdtemp(prefix="assay-study-"))
    clone = args.keep or work / "clone"
    # an empty memo, as on a machine that never ran a study: nothing remembered from an earlier
    # run answers a cell (assay.core.memo); within the study, the self-test's results do
    base_env.pop("ASSAY_MEMO", None)
    base_env["ASSAY_MEMO_DIR"] = str(work / "memo")
    print(f"load before           {_load()}")
    try:
        with contextlib.ExitStack() as stack:
            env = dict(base_env)
            if args.fresh_engine:
                env["DOCKER_HOST"] = stack.enter_context(private_engine())
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
            sync = timed(["uv", "sync", "--frozen", "--compile-bytecode", "-q"], clone, env)
            npm = timed(["npm", "ci", "--prefix", "tools", "--no-audit", "--no-fund", "--silent"],
                        clone, env)  # fmt: skip
            total, stages = repro_by_stage(clone, env)
            print(f"load after the study  {_load()}")
            print(f"setup                 uv sync {sync:.1f} s, npm ci {npm:.1f} s")
            print(f"full study dvc repro  {total:.1f} s ({len(stages)} stages"
                  f"{', image built on a private engine' if args.fresh_engine else ''})")  # fmt: skip
            spans = local_spans(clone)
            local = sum(
                covered(spans, stage.started, stage.started + stage.seconds)
                for stage in stages
                if stage.kind == "send"
            )
            print(by_kind(stages, local))
            print(f"every stage but local generation  {sum(s.seconds for s in stages) - local:.1f} s"
                  f" ({len(spans)} local runs, {local:.1f} s of local generation in send)")  # fmt: skip
            print("slowest stages        " + ", ".join(
                f"{stage.name} {stage.seconds:.1f} s" for stage in
                sorted(stages, key=lambda item: -item.seconds)[:8]))  # fmt: skip
            if args.stage_times:
                args.stage_times.write_text(
                    "".join(f"{stage.name}\t{stage.seconds:.2f}\n" for stage in stages)
                )
            noops = noop(clone, env)
            print("\nREADME.md's table:\n")
            print(readme_table((sync, npm), total, stages, local, noops) + "\n")
            if args.experiment:
                experiment(clone, env, args.experiment)
            print(f"load after            {_load()}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
