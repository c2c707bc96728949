"""A rehearsal of three paid models: serial against parallel runs, side by side in one process.

    uv run python benchmarks/rehearsal.py [--median 0.15] [--sigma 0.5] [--faults 0.01]
                                          [--scenarios v1 ...] [--repeats 2]

A copy of the working tree (tracked and unignored files, as the tests' ``repo`` fixture makes
it) keeps only the scenarios named (default v1) and three paid models, one run per model and
scenario (v1 at 2 repeats: 48 calls a run; every set of the default study, ``--scenarios all``,
is the seed's full study, about 950 calls a model), every run's profile at its own
OpenRouter-compatible server on 127.0.0.1 (the tests' raw-socket server,
tests/providers/provider_server.py), all with the same key. Each chat answer takes a
log-normal time (median ``--median`` s, ``--sigma``), and a call fails with a 429 or a 503 with
probability ``--faults``; both are drawn from a seed per (run, request number), so the serial
and the parallel pass see the same latencies and faults (a paid run halts at its first fault, as
it must). The runs are planned once; each pass authorizes them in its own copy and times
``dvc repro send`` with ``sending.parallel_runs_per_key`` 1 (serial: one run after another, what
the study did before the send stage) and 3 (parallel).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "providers"))

from provider_server import LocalServer, Reply, Seen  # the tests' loopback server

BIN = Path(sys.executable).parent
CASES = ROOT / "tests" / "providers" / "cases"
MODELS = ("rehearse-a", "rehearse-b", "rehearse-c")
RUNS: list[str] = []
"""Every run of the rehearsal, a model's runs in a row: set by ``main`` from ``--scenarios``."""
SCENARIO_OF: dict[str, str] = {}
API = "/api/v1"


def _env(path: Path) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(path / "src"), "DVC_NO_ANALYTICS": "1",
            "OPENROUTER_API_KEY": "sk-or-v1-rehearsal"}  # fmt: skip


def _run(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        args, check=False, cwd=path, env=_env(path), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def copy_tree(target: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout  # fmt: skip
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file() and not name.endswith("dvc.lock"):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "copy"]):
        _run(target, "git", "-c", "user.email=b@assay.invalid", "-c", "user.name=b", *args)


class Model:
    """One run's server: log-normal latency, seeded faults, every chat request's times."""

    def __init__(self, run: str, median: float, sigma: float, faults: float) -> None:
        self.server = LocalServer()
        self.calls: list[tuple[float, float]] = []
        checks = yaml.safe_load((CASES / "checks.yaml").read_text(encoding="utf-8"))
        completion = yaml.safe_load((CASES / "pipeline.yaml").read_text(encoding="utf-8"))
        completion = completion["completion"]
        routes = self.server.routes
        routes[f"{API}/models"] = Reply(body=json.dumps(checks["models"]).encode())
        listing = {"data": {"id": "anthropic/claude-3-haiku", "endpoints": [checks["endpoint"]]}}
        routes[f"{API}/models/anthropic/claude-3-haiku/endpoints"] = Reply(
            body=json.dumps(listing).encode()
        )
        credit = 100_000  # covers the ceilings of every run about to begin on the one key
        key = {"data": {"label": "sk-or-v1-reh...sal", "limit": credit, "limit_remaining": credit}}
        routes[f"{API}/key"] = Reply(body=json.dumps(key).encode())
        self.numbers = itertools.count(1)
        lock = threading.Lock()

        def answer(seen: Seen) -> Reply:
            arrived = time.monotonic()
            with lock:
                number = next(self.numbers)
            draw = random.Random(f"{run}#{number}")
            time.sleep(median * math.exp(sigma * draw.gauss(0, 1)))
            self.calls.append((arrived, time.monotonic()))
            if draw.random() < faults:
                status = draw.choice((429, 503))
                body = {"error": {"code": status, "message": "rehearsed fault"}}
                return Reply(status=status, body=json.dumps(body).encode())
            return Reply(body=json.dumps({"id": f"gen-{number}", **completion}).encode())

        routes[f"{API}/chat/completions"] = answer
        self.server.start()

    def reset(self) -> None:
        """A new pass: request numbers (and so latencies and faults) start again at 1."""
        self.numbers = itertools.count(1)
        self.calls.clear()
        self.server.requests.clear()


def prepare(target: Path, models: dict[str, Model], repeats: int) -> None:
    copy_tree(target)
    params = yaml.safe_load((target / "params.yaml").read_text(encoding="utf-8"))
    profile = yaml.safe_load((CASES / "pipeline.yaml").read_text(encoding="utf-8"))["profile"]
    profile.pop("base_path")
    params["scenarios"] = sorted(set(SCENARIO_OF.values()))
    # a ceiling of 0.03 USD a call and plenty of calls: the rehearsal times sending, not budgets
    params["models"] = {
        f"{run}-model": {**profile, "ceiling_usd": 60.0, "base_url": models[run].server.url + API}
        for run in RUNS
    }
    params["runs"] = {
        run: {"model": f"{run}-model", "scenario": SCENARIO_OF[run], "repeats": repeats}
        for run in RUNS
    }
    (target / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), "utf-8")
    _run(target, str(BIN / "dvc"), "repro",
         *(f"pipeline/plan/dvc.yaml:plan@{run}" for run in RUNS))  # fmt: skip


def rehearse(prepared: Path, target: Path, cap: int, models: dict[str, Model]) -> dict[str, Any]:
    shutil.copytree(prepared, target, symlinks=True)
    params = yaml.safe_load((target / "params.yaml").read_text(encoding="utf-8"))
    params["sending"] = {"parallel_runs_per_key": cap}
    (target / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), "utf-8")
    for run in RUNS:
        plan_hash = (target / "data" / "plan" / run / "plan.sha256").read_text().strip()
        _run(target, str(BIN / "python"), "-m", "assay.cli", "authorize", run,
             "--plan-hash", plan_hash)  # fmt: skip
    for model in models.values():
        model.reset()
    started = time.perf_counter()
    _run(target, str(BIN / "dvc"), "repro", "send",
         *(f"pipeline/execute/dvc.yaml:execute@{run}" for run in RUNS))  # fmt: skip
    wall = time.perf_counter() - started
    spans = {run: model.calls[-1][1] - model.calls[0][0] for run, model in models.items()}
    statuses: Counter[str] = Counter()
    for run in RUNS:
        table = pq.read_table(target / "data" / "execute" / run / "cells.parquet")
        statuses.update(table.column("status").to_pylist())
    return {
        "wall": wall,
        "sending": max(m.calls[-1][1] for m in models.values())
        - min(m.calls[0][0] for m in models.values()),
        "spans": spans,
        "requests": sum(len(m.calls) for m in models.values()),
        "statuses": dict(statuses),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--median", type=float, default=0.15, help="median latency, seconds")
    parser.add_argument("--sigma", type=float, default=0.5, help="log-normal sigma")
    parser.add_argument("--faults", type=float, default=0.01, help="429/503 rate per call")
    parser.add_argument(
        "--scenarios",
        nargs="+",
        default=["v1"],
        help="the scenarios each model runs ('all': the default study's)",
    )
    parser.add_argument("--repeats", type=int, default=2, help="repeats of every run")
    args = parser.parse_args()
    scenarios = args.scenarios
    if scenarios == ["all"]:
        scenarios = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))["scenarios"]
    for name in MODELS:
        for scenario in scenarios:
            run = name if len(scenarios) == 1 else f"{name}-{scenario}"
            RUNS.append(run)
            SCENARIO_OF[run] = scenario
    models = {run: Model(run, args.median, args.sigma, args.faults) for run in RUNS}
    work = Path(tempfile.mkdtemp(prefix="assay-rehearsal-"))
    try:
        prepared = work / "prepared"
        prepare(prepared, models, args.repeats)
        results = {cap: rehearse(prepared, work / f"cap{cap}", cap, models) for cap in (1, 3)}
        print(f"latency: log-normal, median {args.median} s, sigma {args.sigma}; "
              f"faults {args.faults:.0%} of calls (429/503, seeded)")  # fmt: skip
        for cap, result in results.items():
            spans = ", ".join(f"{run} {s:.1f} s" for run, s in result["spans"].items())
            print(f"parallel_runs_per_key={cap}: dvc repro {result['wall']:.1f} s, sending "
                  f"{result['sending']:.1f} s, {result['requests']} requests, "
                  f"{result['statuses']}; per run {spans}")  # fmt: skip
        serial, parallel = results[1], results[3]
        print(f"{len(RUNS)} runs ({len(MODELS)} models x {', '.join(scenarios)}), "
              f"{args.repeats} repeats")  # fmt: skip
        print(f"serial sum of the runs' sending spans: {sum(serial['spans'].values()):.1f} s")
        print(f"parallel / serial: dvc repro {parallel['wall'] / serial['wall']:.2f}x, "
              f"sending {parallel['sending'] / serial['sending']:.2f}x")  # fmt: skip
    finally:
        for model in models.values():
            model.server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
