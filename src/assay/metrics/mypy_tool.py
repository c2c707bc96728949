"""mypy: error count under mypy's defaults (an empty configuration), one repository at a time.

The fast path calls mypy's API in a long-lived worker with a warm cache; the naive path runs the
``mypy`` command. Both read the same arguments and interpret the output the same way. Exit
status 2 (a blocking error such as a syntax error, or a crash) is missing evidence, not a count.
"""

from __future__ import annotations

from pathlib import Path

from assay.metrics.records import ToolResult

TOOL = "mypy"
METRICS = ("errors",)
EMPTY_CONFIG = "[mypy]\n"


def arguments(repository: Path, config_file: Path, cache_dir: Path | None) -> list[str]:
    cache = ["--cache-dir", str(cache_dir)] if cache_dir is not None else []
    return [
        "--config-file",
        str(config_file),
        *cache,
        "--no-error-summary",
        "--hide-error-context",
        "--no-color-output",
        "--no-pretty",
        str(repository),
    ]


def interpret(stdout: str, stderr: str, status: int) -> ToolResult:
    if status not in (0, 1):
        detail = next((line for line in (stdout + "\n" + stderr).splitlines() if line.strip()), "")
        return ToolResult.failed(TOOL, f"mypy exit status {status}: {detail}")
    errors = sum(1 for line in stdout.splitlines() if ": error:" in line)
    return ToolResult(tool=TOOL, values={"errors": float(errors)})


def measure(repository: Path, config_file: Path, cache_dir: Path) -> ToolResult:
    from mypy import api

    try:
        stdout, stderr, status = api.run(arguments(repository, config_file, cache_dir))
    except Exception as exc:
        return ToolResult.failed(TOOL, f"{type(exc).__name__}: {exc}")
    return interpret(stdout, stderr, status)
