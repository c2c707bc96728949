"""SonarQube-style new lines: added or modified target lines that hold code.

The change's lines come from a difflib diff of the target before and after (what an SCM blame
gives SonarQube); a line holds code when it is neither blank nor a comment only. The
before-repository has no new code, so its value is 0 by definition.
"""

from __future__ import annotations

import platform

from assay.metrics.records import ToolResult

TOOL = "difflib"
METRICS = ("new_lines",)


def version() -> str:
    return f"python-{platform.python_version()}"


def is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def measure(target_text: str, changed_lines: tuple[int, ...]) -> ToolResult:
    lines = target_text.splitlines()
    new = sum(1 for number in changed_lines if is_code(lines[number - 1]))
    return ToolResult(tool=TOOL, values={"new_lines": float(new)})
