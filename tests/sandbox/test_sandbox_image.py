"""ensure_image: an image still in the daemon leaves its record byte-identical; a missing one is
rebuilt and recorded."""

from __future__ import annotations

from pathlib import Path

import docker
import pytest

from assay.evidence import ImageRecord
from assay.evidence import load_image_record as read_record
from assay.evidence import write_image_record as write_record
from assay.sandbox.image import ensure_image, recipe_digest


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
