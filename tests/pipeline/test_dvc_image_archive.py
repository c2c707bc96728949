"""Through real `dvc repro`: an engine that lost the pinned sandbox image gets exactly that id back
from the image stage's archive (data/image/<kind>.tar), without the image stage re-running and
with the same correctness rows. Runs against a private dockerd: the shared engine's images are
only read (copied into it), never removed."""

from __future__ import annotations

import json
import subprocess
import time

import docker
import pytest
import yaml

from assay.evidence import ImageRecord
from assay.sandbox.image import ensure_image, image_present, image_reference
from tests.conftest import stages_ran
from tests.private_engine import copy_images
from tests.unavailable import unavailable

RUN = "sim-follower-v1"
CORRECTNESS = f"data/correctness/{RUN}/correctness.parquet"

pytestmark = [pytest.mark.dvc, pytest.mark.docker]


@pytest.fixture(scope="module")
def shared_images(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ImageRecord]:
    """The shared engine's standard and packages images for the current recipes (built only if
    the recipe is new): what the private engine starts from instead of building."""
    folder = tmp_path_factory.mktemp("image")
    try:
        return {
            kind: ensure_image(kind, folder / f"{kind}.json") for kind in ("standard", "packages")
        }
    except Exception as exc:  # noqa: BLE001 - no usable image is a missing requirement
        unavailable(f"the sandbox images are unusable: {exc}")


def _one_small_run(repo) -> None:
    """sim-follower-v1 only, one subject, one repeat: a few sandboxed cells."""
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"] = {RUN: {**params["runs"][RUN], "repeats": 1}}
    params["scenarios"] = ["v1"]
    params["subject_subset"] = {"v1": ["card-mask"]}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def _loaded_since(engine: str, since: float) -> list[str]:
    """The ``load`` events of the private engine since ``since`` (epoch seconds)."""
    events = subprocess.run(
        ["docker", "-H", engine, "events", "--since", f"{since:.3f}", "--until",
         f"{time.time():.3f}", "--filter", "type=image", "--filter", "event=load",
         "--format", "{{json .}}"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return [json.loads(line)["Actor"]["ID"] for line in events.splitlines()]


def test_a_pruned_engine_gets_the_pinned_id_back_from_the_archive(
    repo, second_engine: str, shared_images: dict[str, ImageRecord]
) -> None:
    copy_images(
        [image_reference(kind, record.recipe_digest) for kind, record in shared_images.items()],
        second_engine,
    )
    private = docker.APIClient(base_url=second_engine)
    repo.env["DOCKER_HOST"] = second_engine
    _one_small_run(repo)
    target = f"pipeline/correctness/dvc.yaml:correctness@{RUN}"
    first = stages_ran(repo.dvc("repro", target, timeout=300).stdout)
    assert {"image", f"correctness@{RUN}"} <= first, first
    pinned = json.loads(repo.read(f"data/plan/{RUN}/plan.json"))["sandbox"]["image_id"]
    assert pinned == shared_images["standard"].image_id
    rows = (repo.path / CORRECTNESS).read_bytes()

    # the engine loses both images (packages is built on standard, so it goes first)
    for kind in ("packages", "standard"):
        private.remove_image(shared_images[kind].image_id, force=True)
    assert not image_present(private, pinned)

    # a change that re-runs correctness without touching the image recipe
    script = repo.path / "stages" / "correctness.py"
    script.write_text(script.read_text(encoding="utf-8") + "# touched\n", encoding="utf-8")
    since = time.time()
    second = repo.dvc("repro", target, timeout=300)
    ran = stages_ran(second.stdout)
    assert f"correctness@{RUN}" in ran and "image" not in ran, ran
    assert "warning:" not in second.stderr, second.stderr
    assert _loaded_since(second_engine, since) == [pinned], "the stage did not load the archive"
    assert private.inspect_image(pinned)["Id"] == pinned
    assert (repo.path / CORRECTNESS).read_bytes() == rows
