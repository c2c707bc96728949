"""Slices of real public code, from pinned and hash-checked package sdists.

``fixtures/codebase/sources.toml`` declares each source (project, exact version, sha256,
licence) and each slice (a root package or module of a source, modules to leave out). The
``snapshot`` stage fetches every sdist once into ``~/.cache/assay/sources/<sha256>/`` with the
package installer the user has configured (``pip download --no-deps --no-binary <project>
--require-hashes``), checks its sha256 on every run (a mismatch fails the stage naming the
source), and writes one folder per slice under ``data/snapshot/<slice>/``::

    tree/<path>         the slice's files, byte for byte as in the sdist (emptied __init__s aside)
    provenance.json     project, version, sha256, licence, root, every file with its sha256

and ``data/snapshot/slices.json``, each slice's name with the sha256 of its provenance.json. That
one file stands for every slice as the subjects stage's dependency (DVC hashes one file, not
the ~60 folders of the trees): a tree file that differs from its provenance digest is refused
when it is read (:func:`read_slice`), and DVC re-runs this stage when any of its files changed.

A slice is its root plus the modules it imports, transitively (the import closure, computed
with grimp over the unpacked sdist), plus every package ``__init__`` those modules need to be
importable. An ``__init__`` that imports a project module outside the slice is replaced by an
empty file. ``python -m assay.snapshot --fetch-only`` fills the cache (and the packages image's wheel
cache) without writing slices, so tests and CI never reach the network.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import Field, ValidationError

from assay.cache import cache_dir
from assay.digest import canonical_json, sha256_file, sha256_hex
from assay.errors import AssayError, boundary
from assay.evidence.paths import snapshot_dir
from assay.fixtures.declaration import read_toml
from assay.fixtures.errors import FixtureError, from_validation_error
from assay.records import Frozen

SOURCES_FILE = Path("fixtures/codebase/sources.toml")
SNAPSHOT_ROOT = snapshot_dir()
PROVENANCE_FILE = "provenance.json"
INDEX_FILE = "slices.json"
TREE_FOLDER = "tree"
FETCH_TIMEOUT_SECONDS = 600
OFFLINE_ENV = "ASSAY_OFFLINE"
"""When set, a source missing from the cache fails instead of being downloaded (tests)."""

ModuleName = str


class SnapshotError(AssayError):
    """A pinned source could not be fetched, failed its hash check, or could not be sliced."""


class Source(Frozen):
    project: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    version: str = Field(pattern=r"^[0-9][A-Za-z0-9.+!-]*$")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    licence: str = Field(min_length=1)
    import_name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")


PINNED = {"project", "version", "sha256", "licence"}
"""What a slice's provenance repeats of its pinned source (the import name is the slice's
business only)."""


class SliceSpec(Frozen):
    name: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
    source: str
    root: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
    exclude: tuple[str, ...] = ()
    """Modules (and their submodules) left out of the closure."""
    include: tuple[str, ...] = ()
    """Modules grimp cannot see (inside namespace packages, which have no ``__init__``); their
    imports are checked like every other module's."""


class Declaration(Frozen):
    sources: tuple[Source, ...] = Field(min_length=1)
    slices: tuple[SliceSpec, ...] = Field(min_length=1)

    def source(self, project: str) -> Source:
        for source in self.sources:
            if source.project == project:
                return source
        raise KeyError(project)


class SliceFile(Frozen):
    path: str
    sha256: str
    emptied: bool = False
    """An ``__init__`` replaced by an empty file (it imported modules outside the slice)."""


class Provenance(Frozen):
    slice: str
    project: str
    version: str
    sha256: str
    licence: str
    root: str
    files: tuple[SliceFile, ...]


def load_declaration(path: Path = SOURCES_FILE) -> Declaration:
    """``sources.toml`` validated; every slice names a declared source, names are unique."""
    raw = read_toml(path)
    try:
        declaration = Declaration.model_validate(
            {"sources": raw.pop("source", ()), "slices": raw.pop("slice", ()), **raw}
        )
    except ValidationError as exc:
        raise from_validation_error(path, exc) from None
    projects = [s.project for s in declaration.sources]
    if len(set(projects)) != len(projects):
        raise FixtureError(path, "source", "a project is declared twice")
    names = [s.name for s in declaration.slices]
    if len(set(names)) != len(names):
        raise FixtureError(path, "slice", "a slice name is declared twice")
    for spec in declaration.slices:
        if spec.source not in projects:
            raise FixtureError(path, f"slice.{spec.name}.source", f"no source {spec.source!r}")
        if spec.root.split(".")[0] != declaration.source(spec.source).import_name:
            raise FixtureError(path, f"slice.{spec.name}.root", "not inside the source's package")
    return declaration


# -- fetching -------------------------------------------------------------------------------


def cache_root() -> Path:
    return cache_dir("sources")


def cached_sdist(source: Source) -> Path | None:
    """The cached sdist of ``source``, hash-checked; ``None`` when it is not cached.

    A cached file whose sha256 differs from the declaration fails loudly, naming the source:
    it is never silently replaced.
    """
    folder = cache_root() / source.sha256
    files = sorted(folder.glob("*.tar.gz")) if folder.is_dir() else []
    if not files:
        return None
    if len(files) != 1:
        raise SnapshotError(f"{folder} holds {len(files)} sdists; expected one")
    actual = sha256_file(files[0])
    if actual != source.sha256:
        raise SnapshotError(
            f"source {source.project} {source.version}: sha256 mismatch for {files[0]} "
            f"(declared {source.sha256}, found {actual}); the cached sdist was altered. "
            f"Delete {folder} to fetch it again."
        )
    return files[0]


def _pip_command() -> list[str]:
    from assay.sandbox.image import ImageBuildError, pip_command

    try:
        return pip_command()
    except ImageBuildError as exc:
        raise SnapshotError(str(exc)) from None


def fetch(source: Source) -> Path:
    """The sdist of ``source``: from the cache, or downloaded once (hash-checked) into it."""
    cached = cached_sdist(source)
    if cached is not None:
        return cached
    if os.environ.get(OFFLINE_ENV):
        raise SnapshotError(
            f"source {source.project} {source.version} is not cached and {OFFLINE_ENV} is set; "
            "pre-fetch it with `python -m assay.snapshot --fetch-only`"
        )
    folder = cache_root() / source.sha256
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".fetch-") as work:
        requirement = Path(work) / "requirement.txt"
        requirement.write_text(
            f"{source.project}=={source.version} --hash=sha256:{source.sha256}\n", encoding="utf-8"
        )
        download = Path(work) / "download"
        try:
            completed = subprocess.run(
                [*_pip_command(), "download", "--quiet", "--no-deps", "--no-binary", source.project,
                 "--require-hashes", "--dest", str(download), "-r", str(requirement)],
                capture_output=True, text=True, timeout=FETCH_TIMEOUT_SECONDS, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise SnapshotError(
                f"source {source.project} {source.version}: download took over "
                f"{FETCH_TIMEOUT_SECONDS} s"
            ) from None
        if completed.returncode != 0:
            tail = (completed.stderr or completed.stdout)[-1500:]
            raise SnapshotError(
                f"source {source.project} {source.version}: download failed: {tail}"
            )
        sdists = sorted(download.glob("*.tar.gz"))
        if len(sdists) != 1 or sha256_file(sdists[0]) != source.sha256:
            raise SnapshotError(
                f"source {source.project} {source.version}: the download is not the declared "
                f"sdist (sha256 {source.sha256})"
            )
        staged = Path(work) / source.sha256
        staged.mkdir()
        shutil.move(sdists[0], staged / sdists[0].name)
        os.replace(staged, folder)
    result = cached_sdist(source)
    assert result is not None
    return result


def fetch_all(declaration: Declaration) -> dict[str, Path]:
    """Every source's sdist; missing ones are downloaded concurrently (each is mostly waiting
    on the index and on the installer preparing its metadata)."""
    with ThreadPoolExecutor(max_workers=len(declaration.sources)) as pool:
        paths = list(pool.map(fetch, declaration.sources))
    return {source.project: path for source, path in zip(declaration.sources, paths, strict=True)}


# -- slicing --------------------------------------------------------------------------------


def unpack(sdist: Path, destination: Path) -> None:
    with tarfile.open(sdist, "r:gz") as archive:
        archive.extractall(destination, filter="data")


def package_parent(unpacked: Path, import_name: str) -> Path:
    """The folder holding the package ``import_name`` (``<sdist>/`` or ``<sdist>/src/``)."""
    candidates = sorted(
        (p.parent.parent for p in unpacked.rglob(f"{import_name}/__init__.py")),
        key=lambda p: len(p.parts),
    )
    if not candidates:
        raise SnapshotError(f"no package {import_name!r} in {unpacked.name}")
    return candidates[0]


def module_file(parent: Path, module: ModuleName) -> Path:
    path = parent.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


@dataclass(frozen=True)
class SourceTree:
    """An unpacked sdist: the folder holding its package, and grimp's import graph of it."""

    parent: Path
    import_name: str
    graph: Any


@contextlib.contextmanager
def unpacked(source: Source, sdist: Path) -> Iterator[SourceTree]:
    """The sdist unpacked into a temporary folder (removed afterwards), its graph built once."""
    import grimp

    with tempfile.TemporaryDirectory(prefix="assay-snapshot-") as work:
        unpack(sdist, Path(work))
        parent = package_parent(Path(work), source.import_name)
        sys.path.insert(0, str(parent))
        try:
            graph = grimp.build_graph(source.import_name, cache_dir=None)
        finally:
            sys.path.remove(str(parent))
        yield SourceTree(parent=parent, import_name=source.import_name, graph=graph)


def import_closure(
    tree: SourceTree, root: ModuleName, exclude: Iterable[ModuleName]
) -> set[ModuleName]:
    """``root`` and its submodules, plus every module they import, transitively."""
    excluded = set(exclude)

    def is_excluded(module: ModuleName) -> bool:
        return any(module == e or module.startswith(e + ".") for e in excluded)

    graph = tree.graph
    if root not in graph.modules:
        raise SnapshotError(f"no module {root!r} in {tree.import_name}")
    start = {m for m in graph.modules if m == root or m.startswith(root + ".")}
    start = {m for m in start if not is_excluded(m)}
    seen, pending = set(start), list(start)
    while pending:
        for imported in graph.find_modules_directly_imported_by(pending.pop()):
            if imported not in seen and not is_excluded(imported):
                seen.add(imported)
                pending.append(imported)
    return seen


def _is_module(parent: Path, module: ModuleName) -> bool:
    path = parent.joinpath(*module.split("."))
    return (path / "__init__.py").is_file() or path.with_suffix(".py").is_file()


def _imported_modules(parent: Path, init: Path, package: ModuleName) -> set[ModuleName]:
    """The modules the ``__init__`` of ``package`` imports (``from m import name`` counts as
    importing ``m``, ``from pkg import sub`` as importing ``pkg.sub`` when that is a module)."""
    found: set[ModuleName] = set()
    for node in ast.walk(ast.parse(init.read_bytes())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if _is_module(parent, submodule) else base)
    return found


def slice_files(
    parent: Path, import_name: str, modules: set[ModuleName]
) -> tuple[dict[str, bytes], set[str]]:
    """The slice's files by POSIX path, and the paths of emptied ``__init__`` files.

    Every module is copied byte for byte, with every package ``__init__`` on the way to one;
    an ``__init__`` that imports a project module outside the slice is replaced by an empty
    file.
    """
    packages: set[ModuleName] = set()
    for module in modules:
        parts = module.split(".")
        packages.update(
            package
            for package in (".".join(parts[:i]) for i in range(1, len(parts)))
            if (parent.joinpath(*package.split(".")) / "__init__.py").is_file()
        )  # namespace packages have no __init__ to copy
    inside = modules | packages
    originals = {module: module_file(parent, module) for module in sorted(inside)}
    imports = {
        module: {
            m for m in _imported_modules(parent, path, module)
            if m == import_name or m.startswith(import_name + ".")
        }
        for module, path in originals.items()
        if path.name == "__init__.py" and path.stat().st_size
    }  # fmt: skip
    # An emptied package no longer provides what its __init__ imported, so an __init__ that
    # imports from it must be emptied too: repeat until nothing changes.
    emptied_packages: set[ModuleName] = set()
    while True:
        provided = inside - emptied_packages
        newly = {
            m for m, found in imports.items() if m not in emptied_packages and found - provided
        }
        if not newly:
            break
        emptied_packages |= newly
    files: dict[str, bytes] = {}
    emptied: set[str] = set()
    for module, path in originals.items():
        relative = path.relative_to(parent).as_posix()
        if module in emptied_packages:
            files[relative] = b""
            emptied.add(relative)
        else:
            files[relative] = path.read_bytes()
    return files, emptied


def _check_closed(
    parent: Path, top: str, modules: set[ModuleName], emptied: set[str], name: str
) -> None:
    """Every project import of every kept slice module resolves inside the slice."""
    for module in sorted(modules):
        path = module_file(parent, module)
        if path.relative_to(parent).as_posix() in emptied:
            continue
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for imported in _imported_modules(parent, path, package):
            if (
                (imported == top or imported.startswith(top + "."))
                and _is_module(parent, imported)
                and imported not in modules
                and _is_module_file(parent, imported)
            ):
                raise SnapshotError(
                    f"slice {name}: {module} imports {imported}, which is not in the slice "
                    "(declare it in `include` if grimp cannot see it)"
                )


def _is_module_file(parent: Path, module: ModuleName) -> bool:
    """A module with its own file (not a namespace package folder, not an emptied package)."""
    path = parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file()


def build_slice(
    spec: SliceSpec, source: Source, sdist: Path
) -> tuple[Provenance, dict[str, bytes]]:
    with unpacked(source, sdist) as tree:
        return slice_tree(spec, source, tree)


def slice_tree(
    spec: SliceSpec, source: Source, tree: SourceTree
) -> tuple[Provenance, dict[str, bytes]]:
    modules = import_closure(tree, spec.root, spec.exclude) | set(spec.include)
    files, emptied = slice_files(tree.parent, source.import_name, modules)
    _check_closed(tree.parent, source.import_name, modules, emptied, spec.name)
    for path, data in files.items():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise SnapshotError(f"slice {spec.name}: {path} is not UTF-8") from None
    provenance = Provenance(
        slice=spec.name,
        **source.model_dump(include=PINNED),
        root=spec.root,
        files=tuple(
            SliceFile(path=path, sha256=sha256_hex(data), emptied=path in emptied)
            for path, data in sorted(files.items())
        ),
    )
    return provenance, files


def write_slice(destination: Path, provenance: Provenance, files: dict[str, bytes]) -> str:
    """Write the slice's tree and provenance.json; the sha256 of the provenance written."""
    tree = destination / TREE_FOLDER
    for path, data in files.items():
        target = tree / PurePosixPath(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    record = canonical_json(provenance) + b"\n"
    (destination / PROVENANCE_FILE).write_bytes(record)
    return sha256_hex(record)


def read_slice(name: str, root: Path = SNAPSHOT_ROOT) -> tuple[Provenance, dict[str, str]]:
    """A written slice, every file checked against its provenance digest."""
    folder = root / name
    try:
        provenance = Provenance.model_validate_json((folder / PROVENANCE_FILE).read_bytes())
    except FileNotFoundError:
        raise SnapshotError(
            f"slice {name} is missing under {root}: run the snapshot stage (`dvc repro snapshot`)"
        ) from None
    files = {}
    for entry in provenance.files:
        data = (folder / TREE_FOLDER / PurePosixPath(entry.path)).read_bytes()
        if sha256_hex(data) != entry.sha256:
            raise SnapshotError(f"slice {name}: {entry.path} differs from its provenance digest")
        files[entry.path] = data.decode("utf-8")
    return provenance, files


def run(declaration_path: Path = SOURCES_FILE, out: Path = SNAPSHOT_ROOT) -> list[Provenance]:
    """The ``snapshot`` stage: fetch (or reuse) and check every source, write every slice."""
    declaration = load_declaration(declaration_path)
    sdists = fetch_all(declaration)
    results = []
    index = {}
    for source in declaration.sources:
        specs = [spec for spec in declaration.slices if spec.source == source.project]
        if not specs:
            continue
        with unpacked(source, sdists[source.project]) as tree:
            for spec in specs:
                provenance, files = slice_tree(spec, source, tree)
                index[provenance.slice] = write_slice(out / spec.name, provenance, files)
                results.append(provenance)
    (out / INDEX_FILE).write_bytes(canonical_json(index) + b"\n")
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assay.snapshot", description=__doc__)
    parser.add_argument(
        "--fetch-only",
        action="store_true",
        help="fill the caches (sdists, and the packages image's wheels); write no slice",
    )
    parser.add_argument("--sources", type=Path, default=SOURCES_FILE)
    args = parser.parse_args(argv)
    with boundary():
        if args.fetch_only:
            prefetch(args.sources)
        else:
            for provenance in run(args.sources):
                print(f"snapshot: {provenance.slice} ({provenance.project} {provenance.version}, "
                      f"{len(provenance.files)} files)", file=sys.stderr)  # fmt: skip
    return 0


def prefetch(declaration_path: Path = SOURCES_FILE) -> None:
    """Fill the caches: every declared sdist and the packages sandbox image's wheels."""
    from assay.sandbox.image import download_wheels, wheel_cache

    for project, path in fetch_all(load_declaration(declaration_path)).items():
        print(f"snapshot: {project} cached at {path}", file=sys.stderr)
    download_wheels(wheel_cache())
    print(f"snapshot: packages image wheels cached at {wheel_cache()}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
