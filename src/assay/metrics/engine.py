"""The fast path: every output measured before and after, with as few processes as possible.

* "before" is measured once per ``repo_key``, not once per output;
* every repository is written once into one temporary tree;
* the Python tools (radon, complexipy, lizard, grimp) run in-process in a pool of ``workers``
  processes, with per-file results cached; mypy runs through its API in the same workers with
  a warm per-worker cache that outlives the stage (``mypy_cache``), many single-module
  repositories per build (see ``mypy_tool``);
* ruff and jscpd each run once over the whole tree (one process each) while the pool works;
* a unit measured before with the same files, change and tool versions is not measured again
  (:mod:`assay.core.memo`; only units every tool measured are remembered).

``measure`` may be called from several threads of one process at once (a Dask worker runs two
measure tasks side by side): mypy's API keeps process-wide state (two builds at once end in
``INTERNAL ERROR``), so the tools that run inside this process take :data:`IN_PROCESS` in turn,
and so does planning the units, which parses every candidate: CPython 3.11's AST constructor
counts its recursion depth per interpreter, not per thread, so two threads parsing at once can
fail with ``SystemError: AST constructor recursion depth mismatch`` (CPython gh-106905).
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from pathlib import Path

from assay.core.memo import Memo, code_digest, key_of
from assay.core.progress import progress
from assay.metrics import in_process, jscpd_tool, mypy_cache, mypy_tool, ruff_tool
from assay.metrics.records import MeasureItem, Measurement, ToolResult
from assay.metrics.rows import rows_for
from assay.metrics.units import Unit, chunked, write_unit
from assay.metrics.versions import environment_digest, tool_versions
from assay.science.change import ChangeError, describe_change

REPOSITORIES = "repos"
MYPY_CONFIG = "mypy.ini"
IN_PROCESS = threading.Lock()
"""Held while this process parses or measures Python (never two mypy builds or two ``ast.parse``
at once)."""


class _Worker:
    """Per-process state: where mypy keeps its cache and where grimp stages repositories."""

    work: Path | None = None


def _start_worker(work: str) -> None:
    _Worker.work = Path(work)


def _measure_chunk(units: list[Unit]) -> dict[str, dict[str, ToolResult]]:
    work = _Worker.work
    assert work is not None, "worker not started"
    results = {unit.unit_id: in_process.results(unit, work) for unit in units}
    checked = mypy_tool.measure_many(
        units,
        work / REPOSITORIES,
        work / "mypy-batch" / units[0].unit_id,
        work / MYPY_CONFIG,
        mypy_cache.slot(work / f"mypy-cache-{os.getpid()}"),
    )
    for unit_id, result in checked.items():
        results[unit_id][mypy_tool.TOOL] = result
    return results


def plan_units(
    items: Sequence[MeasureItem],
) -> tuple[list[Unit], dict[str, str], dict[str, Unit | str]]:
    """Before-units (one per repo key), the before-unit of each repo key, and each cell's after-unit
    (or the reason the change could not be made). Cells with the same candidate for the same
    repository share one after-unit: the same repository after the change, measured once."""
    before_units: list[Unit] = []
    before_of: dict[str, str] = {}
    after_of: dict[str, Unit | str] = {}
    after_by_change: dict[tuple[str, str], Unit | str] = {}
    for index, item in enumerate(items):
        files = item.file_map()
        if item.repo_key not in before_of:
            unit_id = f"b{len(before_units):05d}"
            before_of[item.repo_key] = unit_id
            before_units.append(Unit(unit_id=unit_id, files=files, target=item.target))
        else:
            first = before_units[int(before_of[item.repo_key][1:])]
            if (first.files, first.target) != (files, item.target):
                raise ValueError(f"repo_key {item.repo_key!r} names two different repositories")
        same = after_by_change.get((item.repo_key, item.candidate))
        if same is not None:
            after_of[item.cell_id] = same
            continue
        try:
            change = describe_change(files, item.target, item.candidate)
        except ChangeError as exc:
            after_of[item.cell_id] = f"change: {exc}"
        else:
            after_of[item.cell_id] = Unit(
                unit_id=f"a{index:05d}",
                files=change.files,
                target=item.target,
                changed_lines=change.changed_lines,
                definition_lines=change.definition_lines,
            )
        after_by_change[(item.repo_key, item.candidate)] = after_of[item.cell_id]
    return before_units, before_of, after_of


def measure(items: Sequence[MeasureItem], *, workers: int = 2) -> list[Measurement]:
    """Long-form rows for every item, in item order then metric order."""
    if len({item.cell_id for item in items}) != len(items):
        raise ValueError("cell ids must be unique")
    if not items:
        return []
    versions = tool_versions()
    with IN_PROCESS:
        before_units, before_of, after_of = plan_units(items)
    after_units = {u.unit_id: u for u in after_of.values() if isinstance(u, Unit)}
    units = before_units + list(after_units.values())
    memo = Memo("metrics")
    keys = {unit.unit_id: unit_key(unit, versions) for unit in units} if memo.enabled else {}
    results = {
        unit_id: remembered
        for unit_id, key in keys.items()
        if (remembered := _recalled(memo.get(key))) is not None
    }
    todo = [unit for unit in units if unit.unit_id not in results]
    if todo:
        with tempfile.TemporaryDirectory(prefix="assay-measure-") as scratch:
            work = Path(scratch)
            root = work / REPOSITORIES
            for unit in todo:
                write_unit(root, unit)
            (work / MYPY_CONFIG).write_text(mypy_tool.EMPTY_CONFIG, encoding="utf-8")
            measured = _measure_units(todo, work, workers)
        for unit_id, by_tool in measured.items():
            if keys and all(result.missing_reason is None for result in by_tool.values()):
                memo.put(keys[unit_id], {t: r.model_dump(mode="json") for t, r in by_tool.items()})
        results |= measured
    rows: list[Measurement] = []
    for item in items:
        after = after_of[item.cell_id]
        after_results = after if isinstance(after, str) else results[after.unit_id]
        rows.extend(
            rows_for(item.cell_id, results[before_of[item.repo_key]], after_results, versions)
        )
    return rows


def unit_key(unit: Unit, versions: dict[str, str]) -> str:
    """What decides a unit's metrics: its files, where the change landed, the tools' versions
    and the packages installed beside them, which mypy reads (not its id, which only names it
    within one measurement)."""
    return key_of(
        {
            "unit": unit.model_dump(mode="json", exclude={"unit_id"}),
            "tools": versions,
            "environment": environment_digest(),
            "code": code_digest(Path(__file__).parent, jscpd_tool.TOOLS_DIR / "jscpd-batch.js"),
        }
    )


def _recalled(found: object) -> dict[str, ToolResult] | None:
    if not isinstance(found, dict):
        return None
    try:
        return {tool: ToolResult.model_validate(result) for tool, result in found.items()}
    except ValueError:
        return None


def _measure_units(units: list[Unit], work: Path, workers: int) -> dict[str, dict[str, ToolResult]]:
    root = work / REPOSITORIES
    results: dict[str, dict[str, ToolResult]] = {unit.unit_id: {} for unit in units}
    pool: ProcessPoolExecutor | None = None
    futures: list[Future[dict[str, dict[str, ToolResult]]]] = []
    if workers > 1 and len(units) > 1:
        # Spawned, not forked: complexipy and grimp keep Rust thread pools that a forked child
        # inherits locked, so a fork after they ran in this process can hang the worker.
        pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(str(work),),
        )
        size = max(2, len(units) // (workers * 8) + 1)
        futures = [pool.submit(_measure_chunk, chunk) for chunk in chunked(units, size)]
    try:
        with ThreadPoolExecutor(max_workers=2) as batch:
            ruff_future = batch.submit(ruff_tool.measure_many, root, [u.unit_id for u in units])
            jscpd_future = batch.submit(jscpd_tool.measure_many, root, units)
            with progress(len(units), "measure repositories", unit="repo") as bar:
                if pool is None:
                    with IN_PROCESS:
                        _start_worker(str(work))
                        python_results = [_measure_chunk(units)]  # one mypy batch for all
                    bar.update(len(units))
                else:
                    for future in as_completed(futures):
                        bar.update(len(future.result()))
                    python_results = [future.result() for future in futures]
            batch_results = {
                ruff_tool.TOOL: ruff_future.result(),
                jscpd_tool.TOOL: jscpd_future.result(),
            }
    finally:
        if pool is not None:
            pool.shutdown()
    for chunk_results in python_results:
        for unit_id, by_tool in chunk_results.items():
            results[unit_id].update(by_tool)
    for tool, by_unit in batch_results.items():
        for unit_id, result in by_unit.items():
            results[unit_id][tool] = result
    return results
