"""Through real ``dvc repro``: ``compute.scheduler`` pointing at a Dask cluster started as
docs/scale.md, "Start a cluster", says (``dask scheduler``, ``dask worker``) gives the same evidence
and reports, byte for byte, as the local run, with cells and measurements done by each of its two
workers; an unreachable scheduler fails the stage in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from distributed import Client

from tests.conftest import Repo
from tests.dask_cluster import dask_cluster, free_port

RUN = "sim-follower-v1"
SCENARIO = "v1"
CLUSTER_STAGES = tuple(
    f"pipeline/{name}/dvc.yaml:{name}@{item}"
    for name, item in (("selftest", SCENARIO), ("correctness", RUN), ("measure", RUN))
)
COMPARED = (
    "data/report",
    "reports",
    f"data/export/{RUN}",
    f"data/selftest/{SCENARIO}",
    f"data/correctness/{RUN}/correctness.parquet",
    f"data/correctness-versions/{RUN}",
    f"data/measure/{RUN}/metrics.parquet",
)
"""What a researcher reads: the evidence tables the cluster stages write and every report."""
STARTUP_SECONDS = 120
PROVENANCE = re.compile(rb'<p class="provenance" id="provenance">.*?</p>', re.DOTALL)

pytestmark = [pytest.mark.dvc, pytest.mark.docker, pytest.mark.cluster]


def _only_run(repo: Repo, compute: dict[str, object] | None = None) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"] = {RUN: params["runs"][RUN]}
    params["scenarios"] = [SCENARIO]
    if compute is not None:
        params["compute"] = {**params.get("compute", {}), **compute}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def _outputs(root: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for name in COMPARED:
        path = root / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                files[str(file.relative_to(root))] = file.read_bytes()
    return files


def _provenance(page: bytes) -> tuple[bytes, bytes]:
    """The page's provenance line, and the page without it."""
    found = PROVENANCE.search(page)
    assert found is not None
    return found.group(0), page[: found.start()] + page[found.end() :]


def _workers(address: str) -> set[str]:
    with Client(address, set_as_default=False) as client:
        return set(client.scheduler_info(n_workers=-1)["workers"])


def test_repro_on_a_cluster_gives_the_local_reports_byte_for_byte(v1_copy: Repo) -> None:
    """The local run is the shared v1 run (tests/study.py, jscpd included); its copy re-runs the
    cluster stages on a cluster, then whatever reads them."""
    repo = v1_copy
    local = _outputs(repo.path)
    assert any(name.startswith("data/report/") for name in local)
    assert f"data/measure/{RUN}/metrics.parquet" in local
    with dask_cluster(2, cwd=repo.path, env=repo.env, startup_seconds=STARTUP_SECONDS) as address:
        _only_run(repo, {"scheduler": address})
        for stage in CLUSTER_STAGES:
            out = repo.dvc("repro", "--force", "--single-item", stage, timeout=1800).stdout
            assert f"Running stage '{stage}'" in out, out
        repro = repo.dvc("repro", timeout=1800).stdout
        workers = _workers(address)
    assert "Running stage 'report'" in repro
    cluster = _outputs(repo.path)
    assert sorted(cluster) == sorted(local)
    # the page says where it was built: the local run from its commit, the cluster run with
    # params.yaml changed from it (compute.scheduler); all else is the same, byte for byte
    page = "data/report/index.html"
    local_page, cluster_page = _provenance(local[page]), _provenance(cluster[page])
    assert b"with uncommitted changes" not in local_page[0]
    assert b'title="params.yaml">with uncommitted changes to 1 file' in cluster_page[0]
    assert cluster_page[1] == local_page[1]
    differing = [name for name in local if name != page and cluster[name] != local[name]]
    assert differing == []
    for folder in (f"data/correctness/{RUN}", f"data/measure/{RUN}"):
        placements = pq.read_table(repo.path / folder / "placements.parquet")
        placed = set(placements.column("worker").to_pylist())
        assert placed == workers and len(workers) == 2, (folder, placed, workers)  # both worked


def test_an_unreachable_scheduler_fails_the_stage_in_one_line(repo: Repo) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    _only_run(repo, {"scheduler": address, "connect_timeout_seconds": 2})
    result = repo.dvc("repro", CLUSTER_STAGES[0], check=False)
    assert result.returncode != 0
    lines = [
        line for line in (result.stdout + result.stderr).splitlines() if line.startswith("assay:")
    ]
    assert len(lines) == 1, lines
    assert address in lines[0] and "nothing was run" in lines[0], lines
    assert not (repo.path / "data" / "selftest" / SCENARIO).exists()
