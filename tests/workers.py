"""How ``scripts/test`` shares the suite among its pytest-xdist workers (``--dist loadgroup``).

Each test is put in a group, and a group runs whole on one worker: the tests of a shared run
(the ``study`` and ``v1_run`` fixtures of tests/study.py) share its group, so the run happens once
and its repository is never used by two workers at once; every other test shares its module's
group, so a module-scoped fixture is set up once. Groups are ordered longest first, roughly (the
shared runs, then modules that run DVC, Docker, a browser or a cluster, then the rest), so the
short ones fill the workers' last minutes."""

from __future__ import annotations

import pytest

SHARED_RUNS = {"study": "study", "study_copy": "study", "v1_run": "v1", "v1_copy": "v1"}
"""Session fixture → the group of the tests that use it."""

HEAVY = ("dvc", "docker", "browser", "cluster")
"""Markers (tests/uses.py) of the tests that take seconds, not milliseconds."""


def group(item: pytest.Item) -> str:
    names = set(getattr(item, "fixturenames", ()))
    shared = sorted({SHARED_RUNS[name] for name in names if name in SHARED_RUNS})
    return "+".join(shared) if shared else item.nodeid.split("::")[0]


def assign(items: list[pytest.Item]) -> None:
    """Mark every item with its group, and order the items group by group, longest first."""
    groups = {id(item): group(item) for item in items}
    rank: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        name = groups[id(item)]
        item.add_marker(pytest.mark.xdist_group(name))
        heavy = any(item.get_closest_marker(mark) for mark in HEAVY)
        here = 0 if name in SHARED_RUNS.values() or "+" in name else 1 if heavy else 2
        rank[name] = min(rank.get(name, here), here)
        first.setdefault(name, index)
    position = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda i: (rank[groups[id(i)]], first[groups[id(i)]], position[id(i)]))


def check_grouped(config: pytest.Config, ids: list[str]) -> None:
    """Every test id a ``--dist loadgroup`` worker collected carries its group (pytest-xdist
    appends ``@group``). Where one does not, xdist would spread a shared run's tests over every
    worker and run the study once per worker (pytest-xdist issue 1386, with pytest 9.2): stop."""
    if config.getoption("dist", None) != "loadgroup":
        return
    ungrouped = [nodeid for nodeid in ids if "@" not in nodeid.rpartition("]")[2]]
    if ungrouped:
        raise pytest.UsageError(
            f"pytest-xdist did not group {ungrouped[0]} (and {len(ungrouped) - 1} more): this "
            "pytest and pytest-xdist pair ignores xdist_group; use the locked versions (uv sync)"
        )
