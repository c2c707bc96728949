"""What the realistic simulated model adds to the default study, and how varied its answers are.

    uv run python benchmarks/realistic_run.py [--scale 10] [--variety-only]

1. Variety, in process (no DVC): every v1 call's reply from ``sim-follower`` and from
   ``sim-realistic`` as params.yaml declares them, at the declared repeats and at ``--scale``
   times as many: distinct candidate sources, and the sandbox evaluations the correctness stage
   would run (one per distinct subject, arm and source the gate accepts: a repeated source is a
   cache hit).
2. Stage time, side by side in one run: a clone of HEAD whose params.yaml keeps only v1 and the
   runs ``sim-follower-v1`` and ``sim-realistic-v1``; ``dvc repro``, each stage timed from DVC's
   ``Running stage`` lines (DVC runs stages one after another). The realistic run's own stages
   are what it adds to the study (the image, the v1 self-test and the report are shared).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from study import _load, repro_by_stage, timed  # the whole-study benchmark's timers

from assay.config.params import load_params
from assay.fixtures.scenarios import load_scenario
from assay.paid.plan import cell_id
from assay.providers.base import ProviderRequest
from assay.providers.simulated import SimulatedProvider, answer_book, shown_files
from assay.science.extract import extract_candidate
from assay.science.gate import check_source
from assay.science.render import render_input
from assay.science.reprint import Repository

RUNS = ("sim-follower-v1", "sim-realistic-v1")


def variety(scale: int) -> None:
    params = load_params(ROOT / "params.yaml")
    scenario = load_scenario("v1", ROOT / "fixtures")
    book = answer_book(scenario.subjects)
    subjects = {s.id: s for s in scenario.subjects}
    prompts = {(s.id, arm): render_input(s, arm, "v1").text for s in scenario.subjects
               for arm in scenario.arms}  # fmt: skip
    for run in RUNS:
        spec = params.runs[run]
        provider = SimulatedProvider(params.models[spec.model], book)
        for repeats in (spec.repeats, spec.repeats * scale):
            started = time.perf_counter()
            sources, requests = set(), set()
            calls = 0
            for (subject, arm), prompt in prompts.items():
                for repeat in range(1, repeats + 1):
                    key = f"{cell_id(subject, arm, repeat)}#1"
                    text = provider.complete(ProviderRequest(key=key, prompt=prompt)).text
                    source = extract_candidate(text, repository=prompt_repository(prompt)).source
                    calls += 1
                    sources.add(source)
                    task = subjects[subject].task
                    if (
                        source is not None
                        and check_source(
                            source, helper=task.helper, helper_module=task.helper_module
                        ).accepted
                    ):
                        requests.add((subject, arm, source))
            seconds = time.perf_counter() - started
            print(f"{run:18} repeats {repeats:3}: {calls:5} calls, {len(sources):5} distinct "
                  f"candidates, {len(requests):5} sandbox evaluations "
                  f"({len(requests) / calls:.0%} of calls), {seconds / calls * 1000:.2f} ms per "
                  "call")  # fmt: skip


def side_by_side() -> None:
    work = Path(tempfile.mkdtemp(prefix="assay-realistic-"))
    clone = work / "clone"
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    print(f"load before           {_load()}")
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        params = yaml.safe_load((clone / "params.yaml").read_text(encoding="utf-8"))
        params["scenarios"] = ["v1"]
        params["runs"] = {run: params["runs"][run] for run in RUNS}
        (clone / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), "utf-8")
        timed(["uv", "sync", "--frozen", "--compile-bytecode", "-q"], clone, env)
        timed(["npm", "ci", "--prefix", "tools", "--no-audit", "--no-fund", "--silent"], clone,
              env)  # fmt: skip
        total, stages = repro_by_stage(clone, env)
        per_run: dict[str, dict[str, float]] = defaultdict(dict)
        shared = []
        for name, seconds in stages:
            stage = name.rsplit(":", 1)[-1]
            kind, _, run = stage.partition("@")
            if run in RUNS:
                per_run[run][kind] = seconds
            else:
                shared.append(f"{stage} {seconds:.1f} s")
        print(f"dvc repro             {total:.1f} s, {len(stages)} stages")
        print("shared stages         " + ", ".join(shared))
        for run in RUNS:
            kinds = per_run[run]
            print(f"{run:21} {sum(kinds.values()):.1f} s: " + ", ".join(
                f"{kind} {seconds:.1f} s" for kind, seconds in kinds.items()))  # fmt: skip
        print(f"load after            {_load()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--variety-only", action="store_true")
    args = parser.parse_args()
    variety(args.scale)
    if not args.variety_only:
        side_by_side()


if __name__ == "__main__":
    main()


def prompt_repository(prompt: str) -> Repository:
    """The repository a rendered prompt shows (extraction v3 compares an answer with it)."""
    target, files = shown_files(prompt)
    return Repository(
        target=files.get(target, ""), others={p: t for p, t in files.items() if p != target}
    )
