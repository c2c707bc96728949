"""params.yaml: compute — local by default, a scheduler address, limits validated by key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from assay.config.params import Compute, ParamsError, validate_params

BAD = [
    ({"scheduler": "http://host:8786"}, "compute.scheduler"),
    ({"scheduler": "tcp://host"}, "compute.scheduler"),
    ({"sandbox_slots_per_worker": 0}, "compute.sandbox_slots_per_worker"),
    ({"sandbox_slots_per_worker": "2"}, "compute.sandbox_slots_per_worker"),
    ({"measure_cells_per_task": 0}, "compute.measure_cells_per_task"),
    ({"connect_timeout_seconds": 0}, "compute.connect_timeout_seconds"),
    ({"workers": 3}, "compute.workers: unknown key"),
]


def test_local_is_the_default_and_an_address_is_distributed():
    assert Compute().scheduler == "local" and not Compute().distributed
    assert Compute(scheduler="tcp://10.0.0.5:8786").distributed


@pytest.mark.parametrize(("compute", "key"), BAD)
def test_a_bad_compute_section_names_its_key(compute, key):
    raw = yaml.safe_load(Path("params.yaml").read_text(encoding="utf-8"))
    raw["compute"] = compute
    with pytest.raises(ParamsError, match=key.replace(".", r"\.")):
        validate_params(raw)


@pytest.mark.process
def test_the_stages_that_can_use_a_cluster_import_dask_only_when_one_is_named():
    """A local self-test, correctness or measure stage starts without Dask (about 0.4 s each)."""
    probe = (
        "import sys\n"
        "import assay.pipeline.selftest, assay.pipeline.correctness, assay.pipeline.measure\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed'}))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    assert loaded.strip() == "[]"
