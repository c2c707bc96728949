"""Through real ``dvc repro``: ``compute.scheduler`` pointing at a LocalCluster gives the same
reports, byte for byte, as the local run; the unreachable scheduler fails the stage in one line."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import yaml
from conftest import start_cluster

RUN = "sim-follower-v1"
CLUSTER_STAGES = ("selftest@v1", f"correctness@{RUN}", f"measure@{RUN}")


def _only_run(repo, compute: dict | None = None) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"] = {RUN: params["runs"][RUN]}
    params["scenarios"] = [params["runs"][RUN]["scenario"]]
    if compute is not None:
        params["compute"] = {**params.get("compute", {}), **compute}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def _reports(root: Path) -> dict[str, bytes]:
    folder = root / "data" / "report"
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_repro_on_a_cluster_gives_the_local_reports_byte_for_byte(repo):
    _only_run(repo)
    repo.dvc("repro")
    local_reports = _reports(repo.path)
    local_rows = {
        table: (repo.path / "data" / table / RUN / f"{name}.parquet").read_bytes()
        for table, name in (("correctness", "correctness"), ("measure", "metrics"))
    }
    assert local_reports
    with start_cluster(2) as cluster:
        _only_run(repo, {"scheduler": cluster.scheduler_address})
        for stage in CLUSTER_STAGES:
            out = repo.dvc("repro", "--force", "--single-item", stage).stdout
            assert f"Running stage '{stage}'" in out, out
        repro = repo.dvc("repro").stdout
        workers = set(cluster.scheduler_info["workers"])
    assert "Running stage 'report'" in repro
    assert _reports(repo.path) == local_reports
    for table, name in (("correctness", "correctness"), ("measure", "metrics")):
        folder = repo.path / "data" / table / RUN
        assert (folder / f"{name}.parquet").read_bytes() == local_rows[table], table
        placed = set(pq.read_table(folder / "placements.parquet").column("worker").to_pylist())
        assert placed and placed <= workers, (table, placed, workers)


def test_an_unreachable_scheduler_fails_the_stage_in_one_line(repo):
    _only_run(repo, {"scheduler": "tcp://127.0.0.1:9", "connect_timeout_seconds": 2})
    result = repo.dvc("repro", "selftest@v1", check=False)
    assert result.returncode != 0
    lines = [
        line for line in (result.stdout + result.stderr).splitlines() if line.startswith("assay:")
    ]
    assert len(lines) == 1 and "tcp://127.0.0.1:9" in lines[0] and "nothing was run" in lines[0], (
        lines
    )
    assert not (repo.path / "data" / "selftest" / "v1").exists()
