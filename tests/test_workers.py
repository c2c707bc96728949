"""The worker groups (tests/workers.py) follow the shared runs' fixtures by name, so no other
fixture may take one of those names: a module's own ``study`` fixture would pull its tests into the
shared study's group (and mark them as running DVC, tests/uses.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.workers import SHARED_RUNS, check_grouped

TESTS = Path(__file__).resolve().parent


def _fixtures(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and any(
            "fixture" in ast.unparse(decorator) for decorator in node.decorator_list
        ):
            names.add(node.name)
    return names


def test_only_the_shared_runs_fixtures_take_their_names() -> None:
    taken = {
        str(path.relative_to(TESTS)): sorted(_fixtures(path) & set(SHARED_RUNS))
        for path in TESTS.rglob("*.py")
        if path != TESTS / "conftest.py"
    }
    assert {path: names for path, names in taken.items() if names} == {}
    assert set(SHARED_RUNS) <= _fixtures(TESTS / "conftest.py")


class _Config:
    def __init__(self, dist: str) -> None:
        self.dist = dist

    def getoption(self, name: str, default: object = None) -> object:
        return self.dist if name == "dist" else default


def test_a_worker_collection_without_groups_stops_the_run() -> None:
    grouped = ["tests/a.py::test_x@study", "tests/b.py::test_y[p@q]@tests/b.py"]
    check_grouped(_Config("loadgroup"), grouped)  # type: ignore[arg-type]
    check_grouped(_Config("load"), ["tests/a.py::test_x"])  # type: ignore[arg-type]
    with pytest.raises(pytest.UsageError, match=r"did not group tests/b.py::test_y\[p@q\]"):
        check_grouped(_Config("loadgroup"), ["tests/b.py::test_y[p@q]"])  # type: ignore[arg-type]
