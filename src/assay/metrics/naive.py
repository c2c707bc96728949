"""The naive path: every tool as a fresh process per output, before and after.

Nothing is shared between outputs: each output's before- and after-repository is written to its
own folder and each tool runs as its own process on it (the in-process tools of
``assay.metrics.in_process`` via ``python -m assay.metrics.single``; the ``ruff``, ``jscpd`` and
``mypy`` commands, mypy with its default cache location in a fresh folder). The results go through the same interpretation and
row assembly as the fast path, so both must give the same rows. It exists to check and to
benchmark :func:`assay.metrics.engine.measure`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from assay.metrics import in_process, jscpd_tool, mypy_tool, ruff_tool
from assay.metrics.records import MeasureItem, Measurement, ToolResult
from assay.metrics.rows import rows_for
from assay.metrics.units import Unit, write_unit
from assay.metrics.versions import tool_versions
from assay.science.change import ChangeError, describe_change


def _fresh_python_tool(tool: str, unit: Unit, folder: Path, scratch: Path) -> ToolResult:
    unit_json = scratch / f"{unit.unit_id}.json"
    unit_json.write_text(unit.model_dump_json(), encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "assay.metrics.single", tool, str(unit_json), str(folder)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "ASSAY_MEMO": "off"},  # fresh: no figure remembered by another
    )
    if completed.returncode != 0:
        return ToolResult.failed(
            tool, f"exit status {completed.returncode}: {completed.stderr.strip()[-300:]}"
        )
    return ToolResult.model_validate_json(completed.stdout)


def _fresh_mypy(folder: Path, scratch: Path) -> ToolResult:
    config = scratch / "mypy.ini"
    config.write_text(mypy_tool.EMPTY_CONFIG, encoding="utf-8")
    cwd = scratch / "mypy-cwd"
    cwd.mkdir(exist_ok=True)
    completed = subprocess.run(
        [sys.executable, "-m", "mypy", *mypy_tool.arguments(folder, config, None)],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    return mypy_tool.interpret(completed.stdout, completed.stderr, completed.returncode)


def naive_unit_results(unit: Unit, scratch: Path) -> dict[str, ToolResult]:
    root = scratch / "repos"
    folder = write_unit(root, unit)
    results = {
        tool: _fresh_python_tool(tool, unit, folder, scratch) for tool in in_process.tools_for(unit)
    }
    results[ruff_tool.TOOL] = ruff_tool.measure_many(root, [unit.unit_id])[unit.unit_id]
    results[jscpd_tool.TOOL] = jscpd_tool.measure_cli(folder, unit, scratch)
    results[mypy_tool.TOOL] = _fresh_mypy(folder, scratch)
    return results


def measure_naive(items: Sequence[MeasureItem]) -> list[Measurement]:
    versions = tool_versions()
    rows: list[Measurement] = []
    for item in items:
        files = item.file_map()
        with tempfile.TemporaryDirectory(prefix="assay-naive-") as scratch_name:
            scratch = Path(scratch_name)
            before = naive_unit_results(
                Unit(unit_id="before", files=files, target=item.target), scratch
            )
            try:
                change = describe_change(files, item.target, item.candidate)
            except ChangeError as exc:
                rows.extend(rows_for(item.cell_id, before, f"change: {exc}", versions))
                continue
            after_unit = Unit(
                unit_id="after",
                files=change.files,
                target=item.target,
                changed_lines=change.changed_lines,
                definition_lines=change.definition_lines,
            )
            after = naive_unit_results(after_unit, scratch)
            rows.extend(rows_for(item.cell_id, before, after, versions))
    return rows
