"""mypy: error count under mypy's defaults (an empty configuration), per repository.

The naive path runs the ``mypy`` command on each repository. The fast path calls mypy's API in
a long-lived worker with a warm cache, and checks many repositories in one build where that
cannot change the result: a repository made of one top-level module that imports neither
itself nor anything relative has no module another file could see, so it is checked under a
unique module name beside the others (``<unit>_<name>.py``), and each error line is counted for
the repository it came from. Other repositories are checked one by one. Exit status 2 (a
blocking error such as a syntax error, or a crash) is missing evidence, not a count; a batch
that hits one is re-checked repository by repository so that only the culprit is missing.

What the warm cache may serve, so that the count is the one a fresh ``mypy`` run gives whatever
the cache holds and in whatever order repositories come:

- **A repository checked on its own** is checked where the measurement wrote it, as it is, in a
  folder no check used before (``repositories``: a fresh temporary folder per measurement,
  :func:`assay.metrics.engine.measure`). mypy trusts a cached module without reading it again
  only when its path, size and modification second all match; a new path makes it compare the
  file's hash. A module whose text and dependencies are unchanged is then served with the errors
  the cache recorded for it, and one whose text or any dependency changed is checked again:
  mypy's own incremental check, which the codebase sets' 104 repositories count the same with as
  without (measured against fresh copies, in shuffled order). The files a codebase's
  repositories share are so analysed once per worker, not once per repository.
- **The batched modules** are checked under names built from unit ids, which recur from stage to
  stage with other texts, and an error line is credited by its path. Each is written as a
  private copy that ends with a comment naming this check (:func:`checked_text`): its text is
  new to the cache every time, so mypy checks it and prints its errors under this path.
"""

from __future__ import annotations

import ast
import uuid
from collections.abc import Sequence
from pathlib import Path

from assay.metrics.records import ToolResult
from assay.metrics.units import Unit

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


def checked_text(text: str, check: str) -> str:
    """``text`` made new to mypy's cache by a last comment line naming ``check`` (the lines
    before it, and so every error's line, are unchanged)."""
    ending = "" if text.endswith("\n") or not text else "\n"
    return f"{text}{ending}# assay: mypy check {check}\n"


def measure(repository: Path, config_file: Path, cache_dir: Path) -> ToolResult:
    from mypy import api

    try:
        stdout, stderr, status = api.run(arguments(repository, config_file, cache_dir))
    except Exception as exc:  # noqa: BLE001 - any tool crash is missing evidence for this repository
        return ToolResult.failed(TOOL, f"{type(exc).__name__}: {exc}")
    return interpret(stdout, stderr, status)


def batch_name(unit: Unit) -> str | None:
    """The unique module file name to check ``unit`` under in a shared build, or ``None``."""
    python = [path for path in unit.files if path.endswith(".py")]
    if len(python) != 1 or "/" in python[0]:
        return None
    stem = python[0].removesuffix(".py")
    if not stem.isidentifier():
        return None
    try:
        tree = ast.parse(unit.files[python[0]])
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] == stem
        ):
            return None
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == stem for a in node.names):
            return None
    return f"{unit.unit_id}_{stem}.py"


def measure_many(
    units: Sequence[Unit],
    repositories: Path,
    batch_dir: Path,
    config_file: Path,
    cache_dir: Path,
) -> dict[str, ToolResult]:
    """Error counts for ``units``: the batchable ones as private copies in one mypy build in
    ``batch_dir``, the others each where it is, ``repositories/<unit id>`` (written for this
    measurement, a path no earlier check used: mypy then compares each file's hash with its
    cache rather than trusting a matching size and second)."""
    from mypy import api

    results: dict[str, ToolResult] = {}
    batch: dict[str, str] = {}
    check = uuid.uuid4().hex
    for unit in units:
        name = batch_name(unit)
        if name is None:
            results[unit.unit_id] = measure(repositories / unit.unit_id, config_file, cache_dir)
            continue
        path = batch_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = next(t for p, t in unit.files.items() if p.endswith(".py"))
        path.write_text(checked_text(text, check), encoding="utf-8")
        batch[str(path)] = unit.unit_id
    if not batch:
        return results
    arguments_ = arguments(batch_dir, config_file, cache_dir)[:-1] + sorted(batch)
    try:
        stdout, _stderr, status = api.run(arguments_)
    except Exception:  # noqa: BLE001 - a crashed batch is re-checked repository by repository
        status, stdout = 2, ""
    if status not in (0, 1):
        for unit_id in batch.values():
            results[unit_id] = measure(repositories / unit_id, config_file, cache_dir)
        return results
    errors = dict.fromkeys(batch.values(), 0)
    for line in stdout.splitlines():
        if ": error:" in line:
            source = batch.get(line.split(":", 1)[0])
            if source is not None:
                errors[source] += 1
    for unit_id, count in errors.items():
        results[unit_id] = ToolResult(tool=TOOL, values={"errors": float(count)})
    return results
