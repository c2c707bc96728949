"""Real Dask clusters (worker processes) for the compute tests; the sandbox image's record.

The second Docker engine a worker uses to lack the pinned image is tests/conftest.py's
``second_engine`` (tests/private_engine.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from compute_testkit import start_cluster
from distributed import Client, LocalCluster

from assay.evidence import ImageRecord
from assay.fixtures.model import Scenario
from assay.fixtures.scenarios import load_scenario
from tests.unavailable import unavailable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    with start_cluster(2) as running:
        yield running


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster, set_as_default=False) as connected:
        yield connected


@pytest.fixture(scope="session")
def v1() -> Scenario:
    return load_scenario("v1", ROOT / "fixtures")


@pytest.fixture(scope="session")
def sandbox_record(tmp_path_factory: pytest.TempPathFactory) -> ImageRecord:
    """The standard sandbox image's record (built on the shared engine only if its recipe is
    new)."""
    from assay.sandbox.image import ensure_image

    try:
        return ensure_image("standard", tmp_path_factory.mktemp("image") / "standard.json")
    except Exception as exc:  # noqa: BLE001 - no usable image is a missing requirement
        unavailable(f"the sandbox image is unusable: {exc}")


@pytest.fixture(scope="session")
def sandbox_image(sandbox_record: ImageRecord) -> str:
    return sandbox_record.image_id
