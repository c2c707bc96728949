"""Schedules: the order in which a run's cells execute. Pure functions; the order is in the plan.

Both schedules are blocked by subject (every cell of one subject runs before the next subject
starts) and vary which arm runs first, so no arm always runs first:

- ``subject-counterbalanced-v1``: block ``b`` (subject ``i``, repeat ``r``) runs the arms in
  canonical order when ``i + r`` is even and reversed when odd.
- ``subject-rotated-v1``: block ``b = i * repeats + r`` starts ``b`` arms later (rotation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from assay.core.records import Frozen

ScheduleName = Literal["subject-counterbalanced-v1", "subject-rotated-v1"]


class ScheduledCell(Frozen):
    subject: str
    arm: str
    repeat: int
    """1-based repeat number."""


def _counterbalanced(
    subject_index: int, repeat_index: int, block: int, arms: Sequence[str]
) -> list[str]:
    return list(arms) if (subject_index + repeat_index) % 2 == 0 else list(reversed(arms))


def _rotated(subject_index: int, repeat_index: int, block: int, arms: Sequence[str]) -> list[str]:
    shift = block % len(arms)
    return list(arms[shift:]) + list(arms[:shift])


_ARM_ORDERS: dict[str, Callable[[int, int, int, Sequence[str]], list[str]]] = {
    "subject-counterbalanced-v1": _counterbalanced,
    "subject-rotated-v1": _rotated,
}

SCHEDULES: tuple[str, ...] = tuple(_ARM_ORDERS)

_SCENARIO_DEFAULTS = {
    "v1": "subject-counterbalanced-v1",
    "layered": "subject-counterbalanced-v1",
    "codebase": "subject-counterbalanced-v1",
    "codebase-noimport": "subject-counterbalanced-v1",
    "codebase-near": "subject-counterbalanced-v1",
    "bank": "subject-counterbalanced-v1",
    "bank-new": "subject-counterbalanced-v1",
}


def default_schedule(scenario: str, arms: int | None = None) -> str:
    """The seed's schedule for a scenario: counterbalanced for the two-arm sets, rotated for
    the many-arm sets (dose, placement, chain, context). A built-in scenario is known by name;
    any other (a declared one) follows the same rule by its number of ``arms``."""
    if scenario in _SCENARIO_DEFAULTS:
        return _SCENARIO_DEFAULTS[scenario]
    return "subject-counterbalanced-v1" if arms == 2 else "subject-rotated-v1"


def schedule(
    name: str, subjects: Sequence[str], arms: Sequence[str], repeats: int
) -> tuple[ScheduledCell, ...]:
    """Every (subject, arm, repeat) exactly once, blocked by subject, in the named order."""
    if name not in _ARM_ORDERS:
        raise ValueError(f"unknown schedule {name!r} (known: {', '.join(SCHEDULES)})")
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if len(arms) < 2 or len(set(arms)) != len(arms):
        raise ValueError(f"need at least two distinct arms, got {list(arms)}")
    order = _ARM_ORDERS[name]
    cells: list[ScheduledCell] = []
    for i, subject in enumerate(subjects):
        for r in range(repeats):
            block = i * repeats + r
            for arm in order(i, r, block, arms):
                cells.append(ScheduledCell(subject=subject, arm=arm, repeat=r + 1))
    return tuple(cells)
