"""Slicing rules on a tiny sdist built by the test: the import closure, files byte for byte,
emptied __init__ files (to a fixpoint), exclusions, and the hash check of the cache."""

from __future__ import annotations

import hashlib
import io
import tarfile
import tomllib
from pathlib import Path

import pytest

from assay.fixtures import snapshot

CASES = tomllib.loads((Path(__file__).parent / "cases" / "toypkg.toml").read_text("utf-8"))


def _sdist(tmp_path: Path) -> Path:
    path = tmp_path / "toy-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, text in CASES["files"].items():
            data = text.encode()
            info = tarfile.TarInfo(f"toy-1.0/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def _source(sdist: Path) -> snapshot.Source:
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    return snapshot.Source(
        project="toy", version="1.0", sha256=digest, licence="MIT", import_name="toy"
    )


@pytest.mark.parametrize("case", CASES["slice"], ids=[c["root"] for c in CASES["slice"]])
def test_slice_keeps_the_closure_and_empties_outward_inits(tmp_path, case):
    sdist = _sdist(tmp_path)
    spec = snapshot.SliceSpec(
        name="toy", source="toy", root=case["root"], exclude=case["exclude"],
        include=case["include"],
    )  # fmt: skip
    provenance, files = snapshot.build_slice(spec, _source(sdist), sdist)
    emptied = {f.path for f in provenance.files if f.emptied}
    assert emptied == set(case["emptied"])
    assert set(files) == set(case["kept"]) | emptied
    for path in case["kept"]:
        assert files[path] == CASES["files"][path].encode()
    for path in emptied:
        assert files[path] == b""
    assert {f.path: f.sha256 for f in provenance.files} == {
        p: hashlib.sha256(d).hexdigest() for p, d in files.items()
    }


def test_a_cached_sdist_with_another_hash_fails_naming_the_source(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    sdist = _sdist(tmp_path)
    source = _source(sdist)
    folder = snapshot.cache_root() / source.sha256
    folder.mkdir(parents=True)
    (folder / sdist.name).write_bytes(sdist.read_bytes())
    assert snapshot.cached_sdist(source) == folder / sdist.name
    (folder / sdist.name).write_bytes(sdist.read_bytes() + b"tampered")
    with pytest.raises(snapshot.SnapshotError, match="source toy 1.0: sha256 mismatch"):
        snapshot.fetch(source)


def test_an_import_outside_the_slice_is_refused(tmp_path):
    sdist = _sdist(tmp_path)
    spec = snapshot.SliceSpec(name="toy", source="toy", root="toy.core", exclude=["toy.util"])
    with pytest.raises(snapshot.SnapshotError, match="imports toy.util, which is not in the slice"):
        snapshot.build_slice(spec, _source(sdist), sdist)


def test_declaration_errors_name_the_field(tmp_path):
    path = tmp_path / "sources.toml"
    path.write_text(
        '[[source]]\nproject = "toy"\nversion = "1.0"\nsha256 = "' + "0" * 64 + '"\n'
        'licence = "MIT"\nimport_name = "toy"\n\n'
        '[[slice]]\nname = "s"\nsource = "other"\nroot = "toy.core"\n',
        encoding="utf-8",
    )
    with pytest.raises(snapshot.FixtureError, match="slice.s.source"):
        snapshot.load_declaration(path)


def test_offline_a_missing_source_fails_without_fetching(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(snapshot.OFFLINE_ENV, "1")
    source = _source(_sdist(tmp_path))
    with pytest.raises(snapshot.SnapshotError, match="not cached and ASSAY_OFFLINE is set"):
        snapshot.fetch(source)
