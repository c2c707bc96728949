"""The codebase scenarios, built from a snapshot written once per session from the cached
sdists (pre-fetched by ``python -m assay.fixtures.snapshot --fetch-only``; no test reaches the network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.fixtures import snapshot
from assay.fixtures.codebase import SCENARIO_NAMES, build

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def snapshot_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("snapshot")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(snapshot.OFFLINE_ENV, "1")  # a missing sdist fails; nothing is fetched
        snapshot.run(ROOT / snapshot.SOURCES_FILE, out)
    return out


@pytest.fixture(scope="session")
def codebase_scenarios(snapshot_root: Path):
    return {name: build(name, ROOT / "fixtures", snapshot_root) for name in SCENARIO_NAMES}
