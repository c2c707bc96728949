"""Shared, session-scoped builds of the layered-family scenarios (built once per test run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.fixtures.layered import LayeredDeclaration, load_declarations
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import load_scenario

FIXTURES_ROOT = Path(__file__).resolve().parents[2] / "fixtures"
LAYERED_FAMILY = ("layered", "dose", "placement", "chain", "context")


@pytest.fixture(scope="session")
def fixtures_root() -> Path:
    return FIXTURES_ROOT


@pytest.fixture(scope="session")
def scenarios() -> dict[str, Scenario]:
    return {name: load_scenario(name, FIXTURES_ROOT) for name in LAYERED_FAMILY}


@pytest.fixture(scope="session")
def declarations() -> dict[str, LayeredDeclaration]:
    return {d.task.id: d for d in load_declarations(FIXTURES_ROOT / "layered")}
