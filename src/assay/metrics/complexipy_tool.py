"""complexipy: cognitive complexity (SonarSource's definition), summed over the ``.py`` files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import complexipy

from assay.metrics.file_figures import remembered
from assay.metrics.records import ToolResult
from assay.metrics.units import python_files

TOOL = "complexipy"
METRICS = ("cognitive_complexity",)


@remembered(TOOL, Path(__file__))
def _file_numbers(text: str) -> tuple[int]:
    return (int(complexipy.code_complexity(text).complexity),)


def _file_complexity(text: str) -> int:
    return int(_file_numbers(text)[0])


def measure(files: Mapping[str, str]) -> ToolResult:
    total = 0
    for path, text in python_files(files):
        try:
            total += _file_complexity(text)
        except Exception as exc:  # noqa: BLE001 - any tool crash is missing evidence for this repository
            return ToolResult.failed(TOOL, f"{path}: {type(exc).__name__}: {exc}")
    return ToolResult(tool=TOOL, values={"cognitive_complexity": float(total)})
