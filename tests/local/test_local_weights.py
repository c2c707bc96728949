"""The models cache: packaged models copied in from their installed package and hash-checked,
a file named by path checked too, a model folder digested file by file, and one clear line for
every way the weights can be wrong."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from assay.local import weights
from assay.local.settings import LocalModel
from assay.local.weights import PackagedModel, WeightsError, weights_digest, weights_path

GEMMA = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "assay" / "models"


@pytest.fixture
def packaged(monkeypatch) -> tuple[str, bytes]:
    """A model 'shipped' in two parts inside an installed package (pytest's own files)."""
    parts = (("pytest", ("__init__.py",)), ("pytest", ("__main__.py",)))
    import pytest as package

    root = Path(package.__file__).parent
    content = b"".join((root / name[0]).read_bytes() for _, name in parts)
    sha = hashlib.sha256(content).hexdigest()
    model = PackagedModel(
        name="tiny", distributions=("pytest",), filename="tiny.gguf", parts=parts, description="t"
    )
    monkeypatch.setitem(weights.PACKAGED, sha, model)
    return sha, content


def test_a_packaged_model_is_assembled_into_the_cache_once(cache, packaged):
    sha, content = packaged
    path = weights_path(LocalModel(weights_sha256=sha))
    assert path == cache / sha / "tiny.gguf"
    assert path.read_bytes() == content
    assert path.stat().st_mode & 0o777 == 0o644
    mtime = path.stat().st_mtime_ns
    assert weights_path(LocalModel(weights_sha256=sha)) == path
    assert path.stat().st_mtime_ns == mtime  # found, not assembled again
    assert not list((cache / sha).glob("*.partial"))


def test_an_altered_cached_file_is_never_used(cache, packaged):
    sha, _ = packaged
    path = weights_path(LocalModel(weights_sha256=sha))
    path.write_bytes(b"other weights")
    with pytest.raises(WeightsError, match="not the declared local.weights_sha256"):
        weights_path(LocalModel(weights_sha256=sha))


def test_unknown_weights_say_where_to_put_them(cache):
    sha = "0" * 64
    with pytest.raises(WeightsError, match=f"{cache}/{sha}/"):
        weights_path(LocalModel(weights_sha256=sha))


def test_an_uninstalled_package_says_to_run_setup(cache, monkeypatch):
    model = PackagedModel(
        name="x", distributions=("no-such-dist",), filename="x.gguf", parts=(), description=""
    )
    monkeypatch.setitem(weights.PACKAGED, "1" * 64, model)
    with pytest.raises(WeightsError, match="run scripts/setup"):
        weights_path(LocalModel(weights_sha256="1" * 64))


def test_a_file_by_path_is_checked(tmp_path):
    file = tmp_path / "m.gguf"
    file.write_bytes(b"weights")
    sha = hashlib.sha256(b"weights").hexdigest()
    assert weights_path(LocalModel(weights_sha256=sha, weights=str(file))) == file
    with pytest.raises(WeightsError, match="has sha256"):
        weights_path(LocalModel(weights_sha256="2" * 64, weights=str(file)))
    with pytest.raises(WeightsError, match="is not here"):
        weights_path(LocalModel(weights_sha256=sha, weights=str(tmp_path / "none.gguf")))


def test_a_model_folder_is_digested_file_by_file(tmp_path):
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "sub" / "w.safetensors").write_bytes(b"w")
    before = weights_digest(folder)
    assert weights_path(LocalModel(weights_sha256=before, weights=str(folder))) == folder
    (folder / "sub" / "w.safetensors").write_bytes(b"W")
    assert weights_digest(folder) != before
    (folder / "sub" / "w.safetensors").write_bytes(b"w")
    (folder / "sub" / "w.safetensors").rename(folder / "w.safetensors")
    assert weights_digest(folder) != before  # a moved file counts too


def test_setup_puts_the_installed_packaged_models_in_the_cache():
    """The default study's model, as scripts/setup left it (the project installs its package)."""
    path = weights_path(LocalModel(weights_sha256=GEMMA))
    assert path.name == "gemma-3-270m-q4_k_m.gguf"
    assert path.stat().st_size == 253_113_024
