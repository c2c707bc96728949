"""The snapshot stage through real `dvc repro`: slices from the cached sdists, and a tampered
cached sdist fails the stage naming the source (the cache is a per-test copy)."""

import hashlib
import json
import shutil

import pytest

from assay.fixtures import snapshot
from assay.fixtures.snapshot import SnapshotError
from tests.conftest import stages_ran

pytestmark = pytest.mark.dvc


def _private_cache(repo, tmp_path):
    cache = tmp_path / "xdg"
    declaration = snapshot.load_declaration(repo.path / snapshot.SOURCES_FILE)
    for source in declaration.sources:
        cached = snapshot.cached_sdist(source)
        assert cached is not None, "run `python -m assay.fixtures.snapshot --fetch-only` first"
        destination = cache / "assay" / "sources" / source.sha256
        destination.mkdir(parents=True)
        shutil.copy2(cached, destination / cached.name)
    repo.env["XDG_CACHE_HOME"] = str(cache)
    repo.env["ASSAY_OFFLINE"] = "1"
    return cache


def test_snapshot_writes_provenance_then_fails_on_a_tampered_source(repo, tmp_path):
    cache = _private_cache(repo, tmp_path)
    repo.dvc("repro", "snapshot")
    declaration = snapshot.load_declaration(repo.path / snapshot.SOURCES_FILE)
    for spec in declaration.slices:
        provenance = json.loads(repo.read(f"data/snapshot/{spec.name}/provenance.json"))
        source = declaration.source(spec.source)
        assert (provenance["project"], provenance["version"], provenance["sha256"]) == (
            source.project, source.version, source.sha256)  # fmt: skip
        assert all(len(f["sha256"]) == 64 for f in provenance["files"])
    # the one file the subjects stages depend on names every slice's provenance by digest
    index = json.loads(repo.read(f"data/snapshot/{snapshot.INDEX_FILE}"))
    assert index == {
        spec.name: hashlib.sha256(
            (repo.path / "data" / "snapshot" / spec.name / "provenance.json").read_bytes()
        ).hexdigest()
        for spec in declaration.slices
    }

    # a slice file edited by hand is refused when read, and the next `dvc repro` restores it
    # (DVC sees the snapshot stage's output changed and checks it out from its run cache, or
    # re-runs the stage), so slices.json can stand for every file
    first = declaration.slices[0].name
    entry = json.loads(repo.read(f"data/snapshot/{first}/provenance.json"))["files"][0]["path"]
    edited = repo.path / "data" / "snapshot" / first / "tree" / entry
    pristine = edited.read_bytes()
    edited.write_bytes(pristine + b"# edited\n")
    with pytest.raises(SnapshotError, match=f"slice {first}: {entry} differs from its provenance"):
        snapshot.read_slice(first, repo.path / "data" / "snapshot")
    restored = repo.dvc("repro", "snapshot").stdout
    assert "Stage 'snapshot' is cached - skipping run, checking out outputs" in restored or (
        "snapshot" in stages_ran(restored)
    )
    assert edited.read_bytes() == pristine
    snapshot.read_slice(first, repo.path / "data" / "snapshot")

    victim = declaration.sources[-1]
    (sdist,) = (cache / "assay" / "sources" / victim.sha256).glob("*.tar.gz")
    sdist.write_bytes(sdist.read_bytes() + b"\0")
    failed = repo.dvc("repro", "-f", "snapshot", check=False)
    assert failed.returncode != 0
    message = failed.stdout + failed.stderr
    assert f"source {victim.project} {victim.version}: sha256 mismatch" in message
