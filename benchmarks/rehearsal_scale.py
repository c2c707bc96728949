"""A rehearsal at scale: what each stage costs at 1x and at 10x the cells, and how large the
HTML page is and how long Chromium takes to open it at ~3,000 and ~10,000 cells.

    uv run python benchmarks/rehearsal_scale.py stages [--scale 10] [--keep DIR]
    uv run python benchmarks/rehearsal_scale.py page [--data DIR --run RUN] [--cells 3000 10000]

``stages``: a clone of HEAD whose params.yaml keeps only v1 and the realistic simulated run
``sim-realistic-v1`` (varied answers, so the sandbox evaluates nearly every candidate rather
than finding it in its cache; see benchmarks/realistic_run.py). ``dvc repro`` at the run's
declared repeats (1x), then again with ``--scale`` times the repeats (only the run's stages, the
params stage, send and report run again), each stage timed from DVC's ``Running stage`` lines
(benchmarks/study.py). The table: every stage of the second pass, its seconds at both sizes,
their ratio, and the ratio per cell (below 1: each cell costs less at scale). ``--keep DIR``
keeps the clone (``DIR/clone/data`` then holds the 10x run) and a copy of the 1x evidence in
``DIR/data-1x``, for ``page``.

``page``: one run's evidence replicated under new run names (plan renamed and re-hashed, every
per-run table's ``run`` column rewritten; the scenario's subjects and prompts shared) until the
study holds about ``--cells`` cells, then the report stage's ``write_all`` (timed) and the page
opened in headless Chromium three times, each in a fresh browser (tests/report/browser.py):
time to the load event and to every chart drawn, from the page's own clock. ``--data DIR --run
RUN`` replicates a real run: ``DIR/clone/data`` of ``stages --keep`` (``sim-realistic-v1`` at
20 repeats, 480 cells a run: ~10,000 cells are 21 runs) or ``DIR/data-1x`` (48 cells a run:
~3,000 cells are 62 runs of one scenario, and the report compares every pair of a scenario's
runs, so its time grows with the square of the runs); without it, a synthetic run written the
way the report tests do (tests/report/evidence.py, 12 subjects × 3 arms, short prompts and
answers).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from study import _load, repro_by_stage, timed  # the whole-study benchmark's timers

from assay import evidence
from assay.evidence.files import read_plan
from assay.paid.plan import Plan

RUN = "sim-realistic-v1"
RUN_STAGES = ("plan", "authorize", "execute", "extract", "structure", "correctness", "measure")
ORDER = ("params", "plan", "authorize", "send", "execute", "extract", "structure",
         "correctness", "measure", "report", "export")  # fmt: skip


# stages


def _cells(data: Path, run: str) -> tuple[int, int]:
    """Calls of the run, and distinct candidate sources among them."""
    cells = pq.read_table(evidence.CELLS.path(run, data), columns=["cell_id"]).num_rows
    sources = pq.read_table(evidence.CANDIDATES.path(run, data), columns=["source"])
    return cells, len({s for s in sources.column("source").to_pylist() if s is not None})


def _by_stage(stages: list[tuple[str, float]]) -> dict[str, float]:
    return {name.rsplit(":", 1)[-1]: seconds for name, seconds in stages}


def _set_repeats(clone: Path, repeats: int | None) -> int:
    params = yaml.safe_load((clone / "params.yaml").read_text(encoding="utf-8"))
    params["scenarios"] = ["v1"]
    params["runs"] = {RUN: params["runs"][RUN]}
    if repeats is not None:
        params["runs"][RUN]["repeats"] = repeats
    (clone / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), "utf-8")
    return int(params["runs"][RUN]["repeats"])


def stages(scale: int, keep: Path | None) -> None:
    work = keep or Path(tempfile.mkdtemp(prefix="assay-scale-"))
    clone = work / "clone"
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        base = _set_repeats(clone, None)
        timed(["uv", "sync", "--frozen", "--compile-bytecode", "-q"], clone, env)
        timed(["npm", "ci", "--prefix", "tools", "--no-audit", "--no-fund", "--silent"], clone,
              env)  # fmt: skip
        passes: list[tuple[int, float, dict[str, float], tuple[int, int]]] = []
        for repeats in (base, base * scale):
            _set_repeats(clone, repeats)
            print(f"repeats {repeats}: load before {_load()}", flush=True)
            total, timings = repro_by_stage(clone, env)
            passes.append((repeats, total, _by_stage(timings), _cells(clone / "data", RUN)))
            print(f"repeats {repeats}: dvc repro {total:.1f} s, load after {_load()}", flush=True)
            if keep and repeats == base:
                shutil.copytree(clone / "data", work / "data-1x",
                                ignore=shutil.ignore_patterns("image"))  # fmt: skip
        (r1, total1, one, (cells1, sources1)), (rn, totaln, many, (cellsn, sourcesn)) = passes
        print(f"\n{RUN}, v1: repeats {r1} -> {rn}: {cells1} -> {cellsn} cells, "
              f"{sources1} -> {sourcesn} distinct candidate sources")  # fmt: skip
        shared = [f"{k} {v:.1f} s" for k, v in one.items() if k not in many]
        print("run once in the first pass (not per cell): " + ", ".join(shared))
        cell_ratio = cellsn / cells1
        print(f"\n| stage | {r1} repeats ({cells1} cells) | {rn} repeats ({cellsn} cells) "
              "| ratio | per-cell ratio |")  # fmt: skip
        print("|---|---:|---:|---:|---:|")
        kinds = {kind: n for n, kind in enumerate(ORDER)}
        rows = sorted(many, key=lambda s: (kinds.get(s.split("@")[0], len(ORDER)), s))
        for stage in rows:
            small, large = one.get(stage), many[stage]
            if small is None:
                print(f"| {stage} | — | {large:.1f} s | | |")
                continue
            ratio = large / small
            print(f"| {stage} | {small:.1f} s | {large:.1f} s | {ratio:.1f}x "
                  f"| {ratio / cell_ratio:.2f} |")  # fmt: skip
        again = sum(one[s] for s in many if s in one)
        print(f"| all of them | {again:.1f} s | {sum(many.values()):.1f} s "
              f"| {sum(many.values()) / again:.1f}x | {sum(many.values()) / again / cell_ratio:.2f} |")  # fmt: skip
        print(f"whole dvc repro: {total1:.1f} s (with the shared stages) and {totaln:.1f} s")
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


# page


def _rename(table: pa.Table, run: str) -> pa.Table:
    index = table.schema.get_field_index("run")
    column = pa.array([run] * table.num_rows, type=table.schema.field(index).type)
    return table.set_column(index, table.schema.field(index), column)


def replicate(source: Path, run: str, target: Path, copies: int) -> list[str]:
    """``copies`` runs ``<run>-NNN`` under ``target``, each ``run``'s evidence renamed."""
    plan = read_plan(run, source)
    for stage in ("subjects", "render"):
        shutil.copytree(source / stage / plan.scenario, target / stage / plan.scenario)
    tables = {t.path(run, source): t for t in evidence.TABLES if t.per == "run"}
    loaded = {path: pq.read_table(path) for path in tables if path.exists()}
    auth = evidence.authorization_file(run, source)
    names = []
    for number in range(copies):
        name = f"{run}-{number:03d}"
        names.append(name)
        renamed = Plan.model_validate({**plan.model_dump(by_alias=True), "run": name})
        evidence.plan_file(name, target).parent.mkdir(parents=True)
        evidence.plan_file(name, target).write_bytes(renamed.canonical())
        evidence.plan_hash_file(name, target).write_text(renamed.hash + "\n")
        if auth.exists():
            decision = evidence.read_authorization(run, source)
            copy = decision.model_copy(update={"run": name, "plan_hash": renamed.hash})
            evidence.authorization_file(name, target).parent.mkdir(parents=True)
            evidence.authorization_file(name, target).write_text(copy.model_dump_json())
        for path, table in tables.items():
            if path in loaded:
                out = table.path(name, target)
                out.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(_rename(loaded[path], name), out)
    return names


def open_times(html: Path, times: int = 3) -> list[tuple[float, float]]:
    """Seconds to the load event and to every chart drawn, each open in a fresh browser."""
    from tests.report.browser import open_page

    results = []
    for _ in range(times):
        with open_page(html) as browser:
            drawn = browser.page.evaluate("performance.now()")
            load = browser.page.evaluate(
                "performance.getEntriesByType('navigation')[0].loadEventEnd"
            )
            assert browser.console_errors == [], browser.console_errors[:3]
            results.append((load / 1000, drawn / 1000))
    return results


def page(data: Path | None, run: str, targets: list[int]) -> None:
    from assay.pipeline.report import write_all
    from tests.report.evidence import write_dose_evidence

    work = Path(tempfile.mkdtemp(prefix="assay-page-"))
    try:
        if data is None:
            data, run = work / "synthetic", "synthetic"
            write_dose_evidence(data, runs=(run,), subjects=12)
            what = "synthetic run (tests/report/evidence.py, 12 subjects x 3 arms)"
        else:
            what = f"{run} of {data}"
        per_run, _ = _cells(data, run)
        print(f"load before {_load()}")
        print(f"\nreplicating {what}: {per_run} cells a run\n")
        print("| cells | runs | report write_all | page | load event | charts drawn |")
        print("|---:|---:|---:|---:|---:|---:|")
        for target in targets:
            copies = max(1, round(target / per_run))
            study = work / f"study-{target}"
            replicate(data, run, study, copies)
            started = time.perf_counter()
            write_all(study, study / "report", work / f"reports-{target}", None)
            seconds = time.perf_counter() - started
            html = study / "report" / "index.html"
            size = html.stat().st_size / 1e6
            opened = open_times(html)
            load = statistics.median(t[0] for t in opened)
            drawn = statistics.median(t[1] for t in opened)
            worst = max(t[1] for t in opened)
            print(f"| {copies * per_run:,} | {copies} | {seconds:.1f} s | {size:.1f} MB "
                  f"| {load:.2f} s | {drawn:.2f} s (worst {worst:.2f} s) |", flush=True)  # fmt: skip
            shutil.rmtree(study)
        print(f"\nload after {_load()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    stage_parser = commands.add_parser("stages", help="per-stage cost at 1x and at --scale x")
    stage_parser.add_argument("--scale", type=int, default=10)
    stage_parser.add_argument("--keep", type=Path, help="keep the clone and data-1x here")
    page_parser = commands.add_parser("page", help="page size and open time at --cells")
    page_parser.add_argument("--data", type=Path, help="a data folder holding --run")
    page_parser.add_argument("--run", default=RUN)
    page_parser.add_argument("--cells", type=int, nargs="+", default=[3000, 10000])
    args = parser.parse_args()
    if args.command == "stages":
        stages(args.scale, args.keep)
    else:
        page(args.data, args.run, args.cells)


if __name__ == "__main__":
    main()
