"""The deviations the realistic stand-in makes, by name (the keys of a profile's
``deviations``). Kept apart from their implementation so the profile can name them without
importing it."""

from __future__ import annotations

from typing import Literal

Deviation = Literal[
    "mixed",
    "helper-in-branch",
    "stub",
    "extra-function",
    "module-statement",
    "decorator",
    "helper-import",
    "syntax-error",
    "truncated",
    "two-versions",
    "diff-only",
    "no-return",
    "tuple-return",
    "name-typo",
    "slow",
    "debug-loop",
    "memory-hog",
]
"""In the order the draw walks them (a profile's own key order never matters)."""

DEVIATIONS: tuple[Deviation, ...] = Deviation.__args__  # type: ignore[attr-defined]
