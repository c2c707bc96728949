"""radon: SLOC, LLOC, cyclomatic complexity (McCabe), Halstead volume, Maintainability Index.

Whole-repository figures over its ``.py`` files: SLOC, LLOC, cyclomatic complexity and Halstead
volume (each module's total) are sums. Cyclomatic complexity is the sum of the McCabe
complexity of every block ``radon cc`` reports as a function, method or closure (classes are
left out: their figure aggregates their methods), so a new one-branch function adds 1. The
Maintainability Index is the mean of the modules' MI weighted by their SLOC (the plain mean
when no module has source lines).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from radon.metrics import h_visit_ast, mi_compute
from radon.raw import analyze
from radon.visitors import ComplexityVisitor, Function

from assay.metrics.file_figures import remembered
from assay.metrics.records import ToolResult
from assay.metrics.units import python_files

TOOL = "radon"
METRICS = ("sloc", "lloc", "cyclomatic_complexity", "halstead_volume", "maintainability_index")


class _FileFigures(NamedTuple):
    sloc: int
    lloc: int
    cyclomatic: int
    volume: float
    mi: float


def _function_complexity(function: Function) -> int:
    return int(function.complexity) + sum(_function_complexity(c) for c in function.closures)


def _block_complexity(visitor: ComplexityVisitor) -> int:
    functions = list(visitor.functions) + [m for c in visitor.classes for m in c.methods]
    return sum(_function_complexity(f) for f in functions)


@remembered(TOOL, Path(__file__))
def _file_numbers(text: str) -> _FileFigures:
    """One parse and one raw analysis per file; the MI from the same parameters ``mi_visit``
    computes (``radon.metrics.mi_parameters``: volume, complexity, LLOC, multi-line comments)."""
    tree = ast.parse(text)
    raw = analyze(text)
    complexity = ComplexityVisitor.from_ast(tree)
    volume = h_visit_ast(tree).total.volume
    comments = (raw.comments + raw.multi) / float(raw.sloc) * 100 if raw.sloc != 0 else 0
    return _FileFigures(
        sloc=raw.sloc,
        lloc=raw.lloc,
        cyclomatic=_block_complexity(complexity),
        volume=float(volume),
        mi=float(mi_compute(volume, complexity.total_complexity, raw.lloc, comments)),
    )


def _file_figures(text: str) -> _FileFigures:
    sloc, lloc, cyclomatic, volume, mi = _file_numbers(text)
    return _FileFigures(int(sloc), int(lloc), int(cyclomatic), float(volume), float(mi))


def measure(files: Mapping[str, str]) -> ToolResult:
    figures: list[_FileFigures] = []
    for path, text in python_files(files):
        try:
            figures.append(_file_figures(text))
        except SyntaxError as exc:
            return ToolResult.failed(TOOL, f"syntax error in {path}: {exc.msg} (line {exc.lineno})")
        except Exception as exc:  # noqa: BLE001 - any tool crash is missing evidence for this repository
            return ToolResult.failed(TOOL, f"{path}: {type(exc).__name__}: {exc}")
    total_sloc = sum(f.sloc for f in figures)
    if total_sloc:
        mi = sum(f.mi * f.sloc for f in figures) / total_sloc
    else:
        mi = sum(f.mi for f in figures) / len(figures) if figures else 100.0
    return ToolResult(
        tool=TOOL,
        values={
            "sloc": float(total_sloc),
            "lloc": float(sum(f.lloc for f in figures)),
            "cyclomatic_complexity": float(sum(f.cyclomatic for f in figures)),
            "halstead_volume": sum(f.volume for f in figures),
            "maintainability_index": mi,
        },
    )
