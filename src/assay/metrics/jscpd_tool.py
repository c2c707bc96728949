"""jscpd: clones, duplicated lines and new duplicated lines at its defaults (5 lines, 50 tokens).

jscpd is pinned by ``tools/package-lock.json`` and installed with ``npm ci --prefix tools``.
The fast path runs ``tools/jscpd-batch.js``, which drives jscpd's own detector (the library
behind the ``jscpd`` command, same default options) over many repositories in one Node.js
process, each repository detected on its own; a file's tokens and frames are computed once per
distinct content and replayed for every repository holding it (the repositories of one run are
mostly the same files). The naive path runs the ``jscpd`` command with its JSON reporter. Both
give :class:`Clones`, interpreted here; a test holds them equal, clone by clone.

*New duplicated lines* (SonarQube style) are the lines added or modified by the change that lie
inside a clone fragment of the target file. jscpd matches exact token runs, so it misses
renamed copies and copies below its thresholds. At its defaults it also skips files over 1000
lines or 100 kB; when that happens to the target file its figures are missing, not zero.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from assay.metrics.records import ToolResult
from assay.metrics.units import Unit

TOOL = "jscpd"
METRICS = ("clones", "duplicated_lines", "new_duplicated_lines")
TOOLS_DIR = Path(__file__).resolve().parents[3] / "tools"
"""The folder holding ``package.json``, ``package-lock.json`` and ``jscpd-batch.js``."""

MAX_LINES = 1000
MAX_BYTES = 100 * 1024
"""jscpd's default ``--max-lines`` and ``--max-size`` (100kb): larger files are skipped."""

Fragment = tuple[str, int, int]
"""A clone side: file relative to the repository, first and last line (1-based, inclusive)."""


def pinned_version(tools_dir: Path | None = None) -> str:
    lock = (tools_dir or TOOLS_DIR) / "package-lock.json"
    try:
        packages = json.loads(lock.read_text(encoding="utf-8"))["packages"]
        return str(packages["node_modules/jscpd"]["version"])
    except (OSError, KeyError, ValueError):
        return "unpinned"


def installation_problem(tools_dir: Path | None = None) -> str | None:
    """Why jscpd cannot run as pinned, or ``None`` when it can."""
    folder = tools_dir or TOOLS_DIR
    if shutil.which("node") is None:
        return "node is not installed"
    manifest = folder / "node_modules" / "jscpd" / "package.json"
    try:
        installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    except (OSError, KeyError, ValueError):
        return f"jscpd is not installed (run: npm ci --prefix {folder})"
    pinned = pinned_version(folder)
    if installed != pinned:
        return f"installed jscpd {installed} differs from the pinned {pinned} (run: npm ci --prefix {folder})"
    return None


def skipped_target(unit: Unit) -> str | None:
    """Why jscpd's defaults skip the unit's target file (counting lines as jscpd does), if they do."""
    text = unit.files[unit.target]
    lines = len(text.split("\n"))
    if lines > MAX_LINES or len(text.encode("utf-8")) > MAX_BYTES:
        return f"jscpd skips {unit.target} at its default limits ({MAX_LINES} lines, 100kb)"
    return None


def new_duplicated_lines(unit: Unit, fragments: Iterable[Fragment]) -> int:
    changed = set(unit.changed_lines)
    covered: set[int] = set()
    for path, first, last in fragments:
        if path == unit.target:
            covered.update(range(first, last + 1))
    return len(covered & changed)


class Clones(NamedTuple):
    """What jscpd found in one repository: its clone pairs, and the lines its statistic counts as
    duplicated."""

    pairs: tuple[tuple[Fragment, Fragment], ...]
    duplicated_lines: float


def _result(unit: Unit, clones: Clones) -> ToolResult:
    return ToolResult(
        tool=TOOL,
        values={
            "clones": float(len(clones.pairs)),
            "duplicated_lines": float(clones.duplicated_lines),
            "new_duplicated_lines": float(
                new_duplicated_lines(unit, (side for pair in clones.pairs for side in pair))
            ),
        },
    )


def detect_many(
    root: Path, unit_ids: Sequence[str], tools_dir: Path | None = None
) -> dict[str, Clones | str]:
    """Every unit folder under ``root`` detected by ``tools/jscpd-batch.js`` in one Node.js
    process: its clones, or why there are none."""
    folder = tools_dir or TOOLS_DIR
    problem = installation_problem(folder)
    if problem is None:
        request = [{"id": unit_id, "path": str(root / unit_id)} for unit_id in unit_ids]
        try:
            completed = subprocess.run(
                ["node", str(folder / "jscpd-batch.js")],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                check=False,
                cwd=folder,
            )
            if completed.returncode != 0:
                problem = f"jscpd batch exit status {completed.returncode}: {completed.stderr.strip()[:300]}"
            else:
                reports = {r["id"]: r for r in json.loads(completed.stdout)}
        except (OSError, ValueError) as exc:
            problem = f"jscpd batch failed: {exc}"
    if problem is not None:
        return dict.fromkeys(unit_ids, problem)
    found: dict[str, Clones | str] = {}
    for unit_id in unit_ids:
        report = reports.get(unit_id)
        if report is None or report.get("error"):
            found[unit_id] = f"jscpd: {report.get('error') if report else 'no report'}"
            continue
        found[unit_id] = Clones(
            pairs=tuple(((a, a_start, a_end), (b, b_start, b_end))
                        for a, a_start, a_end, b, b_start, b_end in report["clones"]),
            duplicated_lines=report["duplicatedLines"],
        )  # fmt: skip
    return found


def measure_many(
    root: Path, units: Sequence[Unit], tools_dir: Path | None = None
) -> dict[str, ToolResult]:
    """Clone figures for every unit folder under ``root`` from one Node.js process."""
    if not units:
        return {}
    found = detect_many(root, [u.unit_id for u in units], tools_dir)
    return {unit.unit_id: _figures(unit, found[unit.unit_id]) for unit in units}


def detect_cli(repository: Path, scratch: Path, tools_dir: Path | None = None) -> Clones | str:
    """The naive way: one ``jscpd`` command (JSON reporter) for one repository."""
    folder = tools_dir or TOOLS_DIR
    problem = installation_problem(folder)
    if problem is not None:
        return problem
    output = scratch / "jscpd-report"
    command = [
        str(folder / "node_modules" / ".bin" / "jscpd"),
        "--silent",
        "--absolute",
        "--reporters",
        "json",
        "--output",
        str(output),
        str(repository),
    ]
    completed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        cwd=scratch,
        env={**os.environ, "NO_COLOR": "1"},
    )
    if completed.returncode != 0:
        return f"jscpd exit status {completed.returncode}: {completed.stderr.strip()[:300]}"
    try:
        report = json.loads((output / "jscpd-report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"jscpd report unreadable: {exc}"

    def side(entry: dict[str, Any]) -> Fragment:
        path = Path(entry["name"]).resolve().relative_to(repository.resolve()).as_posix()
        return (path, int(entry["start"]), int(entry["end"]))

    return Clones(
        pairs=tuple((side(d["firstFile"]), side(d["secondFile"])) for d in report["duplicates"]),
        duplicated_lines=report["statistics"]["total"]["duplicatedLines"],
    )


def measure_cli(
    repository: Path, unit: Unit, scratch: Path, tools_dir: Path | None = None
) -> ToolResult:
    """The naive way's figures for one repository."""
    return _figures(unit, detect_cli(repository, scratch, tools_dir))


def _figures(unit: Unit, clones: Clones | str) -> ToolResult:
    """The unit's figures from what jscpd found, or why there are none: its limits skip the
    target (whatever it found elsewhere), or jscpd itself failed (the message)."""
    skipped = skipped_target(unit)
    if skipped is not None:
        return ToolResult.failed(TOOL, skipped)
    if isinstance(clones, str):
        return ToolResult.failed(TOOL, clones)
    return _result(unit, clones)
