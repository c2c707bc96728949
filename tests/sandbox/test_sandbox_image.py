"""ensure_image: an image still in the daemon leaves its record byte-identical; a missing one is
rebuilt and recorded. save_archive/ensure_loaded: the image stage's archive restores the same id
to an engine that lost it, and an archive of another image is named, not trusted."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from assay.evidence import ImageRecord
from assay.evidence import load_image_record as read_record
from assay.evidence import write_image_record as write_record
from assay.sandbox.image import (
    ensure_image,
    ensure_loaded,
    image_present,
    recipe_digest,
    save_archive,
)


@pytest.mark.docker
def test_present_image_keeps_the_record_byte_identical(sandbox_image: str, tmp_path: Path) -> None:
    record_path = tmp_path / "standard.json"
    first = ensure_image("standard", record_path)
    assert first.image_id == sandbox_image and first.python_version.startswith("3.11.")
    before = record_path.read_bytes()
    stat_before = record_path.stat().st_mtime_ns
    assert ensure_image("standard", record_path) == first
    assert record_path.read_bytes() == before and record_path.stat().st_mtime_ns == stat_before


@pytest.mark.docker
def test_a_recorded_image_missing_from_the_daemon_is_replaced(
    sandbox_image: str, docker_api: docker.APIClient, tmp_path: Path
) -> None:
    record_path = tmp_path / "standard.json"
    stale = ImageRecord(
        kind="standard",
        image_id="sha256:" + "0" * 64,
        python_version="3.11.2",
        recipe_digest=recipe_digest("standard"),
    )
    write_record(stale, record_path)
    rebuilt = ensure_image("standard", record_path)
    assert rebuilt.image_id == sandbox_image
    assert read_record(record_path) == rebuilt
    assert docker_api.inspect_image(rebuilt.image_id)["Id"] == rebuilt.image_id


def test_recipe_digest_depends_on_the_kind() -> None:
    assert recipe_digest("standard") != recipe_digest("packages")


def test_unreadable_record_reads_as_none(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text("{not json", encoding="utf-8")
    assert read_record(tmp_path / "r.json") is None
    assert read_record(tmp_path / "absent.json") is None


@pytest.fixture
def throwaway_image(
    sandbox_image: str, docker_api: docker.APIClient, tmp_path: Path
) -> Iterator[str]:
    """A one-label child of the standard image (nothing depends on it, so it can be removed)."""
    (tmp_path / "Dockerfile").write_text(
        f"FROM {sandbox_image}\nLABEL assay.test={tmp_path.name}\n"
    )
    built = subprocess.run(
        ["docker", "build", "--pull=false", "--network=none", "-q", str(tmp_path)],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    yield built
    subprocess.run(["docker", "rmi", "-f", built], capture_output=True, check=False)


@pytest.mark.docker
def test_the_saved_archive_restores_the_same_id_to_an_engine_that_lost_it(
    throwaway_image: str, docker_api: docker.APIClient, tmp_path: Path
) -> None:
    record = ImageRecord(
        kind="standard", image_id=throwaway_image, python_version="3.11.2",
        recipe_digest="f" * 64,
    )  # fmt: skip
    archive = tmp_path / "standard.tar"
    save_archive(record, archive)
    first = archive.read_bytes()
    save_archive(record, archive)
    assert archive.read_bytes() == first, "docker save is not byte-stable for one image"
    assert ensure_loaded(throwaway_image, archive) is None  # present: nothing loaded

    docker_api.remove_image(throwaway_image, force=True)
    assert not image_present(docker_api, throwaway_image)
    assert ensure_loaded(throwaway_image, archive) is None
    assert docker_api.inspect_image(throwaway_image)["Id"] == throwaway_image

    docker_api.remove_image(throwaway_image, force=True)
    problem = ensure_loaded(throwaway_image, tmp_path / "absent.tar")
    assert problem is not None and "dvc checkout" in problem and "absent.tar" in problem
    assert not image_present(docker_api, throwaway_image)


@pytest.mark.docker
def test_an_archive_of_another_image_is_named_not_trusted(
    throwaway_image: str, sandbox_image: str, tmp_path: Path
) -> None:
    other = ImageRecord(
        kind="standard", image_id=sandbox_image, python_version="3.11.2", recipe_digest="f" * 64
    )
    archive = tmp_path / "other.tar"
    save_archive(other, archive)
    missing = "sha256:" + "1" * 64
    assert ensure_loaded(missing, archive) == f"{archive} does not hold sandbox image {missing}"
