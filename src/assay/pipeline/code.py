"""``code`` stage: the code each stage runs, as one digest file per stage.

A stage's code is derived, not listed: ``stages/<stage>.py`` and every module of ``assay`` its
imports reach (:mod:`assay.core.stage_code`, grimp), with the files packaged beside them (the
report's SQL and templates). ``pipeline/code.toml`` declares, in one place, only what no import
shows: the committed files a module reads (``[modules]``: the sandbox recipe for
``assay.sandbox.image``, the jscpd script for ``assay.metrics.jscpd_tool``, ``uv.lock`` where the
tools' versions are recorded), which every stage importing that module depends on, and what a
stage reads that no module names (``[stages]``: the fixtures). This stage writes
``data/code/<stage>.json``: each of those files with its sha256, folders expanded (less what
``.dvcignore`` keeps out of DVC). Each stage depends on its own digest file instead of on the
dozens of paths behind it, so DVC hashes the code once per ``dvc status`` instead of once per
stage, and an edit still re-runs exactly the stages whose code it touches: their digest files
are the only ones rewritten. This stage itself depends on all of ``src``, ``stages``,
``fixtures``, ``sandbox`` and the rest, so it runs after every edit of them and prints the
stages whose digest changed.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import grimp
from pathspec import GitIgnoreSpec

import assay
from assay.core import stage_code
from assay.core.digest import sha256_hex
from assay.core.errors import InputError
from assay.evidence.paths import code_dir
from assay.pipeline.derived_files import replace_files

DECLARATION = Path("pipeline/code.toml")
SCRIPTS = Path("stages")
SOURCE = Path("src") / stage_code.PACKAGE
IGNORE_FILE = Path(".dvcignore")
"""What DVC keeps out of every dependency is kept out of the digests too (the same gitignore
patterns, read the same way), so running assay or its tools never changes a digest."""


class CodeDeclarationError(InputError):
    """``pipeline/code.toml`` is unreadable, names a path that is not there, a module that is not
    in ``assay``, or leaves out a stage."""


@dataclass(frozen=True)
class Declaration:
    """``pipeline/code.toml``: the inputs no import shows."""

    modules: dict[str, tuple[str, ...]]
    """Module → the committed files it reads; every stage importing the module reads them."""
    stages: dict[str, tuple[str, ...]]
    """Stage → what it reads that no module names (every stage has an entry, maybe empty)."""


def _paths(path: Path, key: str, value: object) -> tuple[str, ...]:
    if not (isinstance(value, list) and all(isinstance(p, str) for p in value)):
        raise CodeDeclarationError(f"{path}: {key}: expected a list of paths")
    for entry in value:
        relative = Path(entry)
        if relative.is_absolute() or ".." in relative.parts:
            raise CodeDeclarationError(
                f"{path}: {key}: {entry} is not a path inside the repository"
            )
        if not relative.exists():
            raise CodeDeclarationError(f"{path}: {key}: {entry} does not exist")
    return tuple(value)


def load_declaration(path: Path = DECLARATION) -> Declaration:
    """The declaration as written; every problem names the file and key."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CodeDeclarationError(f"{path}: not found") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CodeDeclarationError(f"{path}: {exc}") from None
    unknown = sorted(set(raw) - {"modules", "stages"})
    if unknown:
        raise CodeDeclarationError(f"{path}: unknown section {unknown[0]!r} (modules, stages)")
    tables = {}
    for section in ("modules", "stages"):
        table = raw.get(section, {})
        if not isinstance(table, dict):
            raise CodeDeclarationError(f"{path}: {section}: expected a table")
        tables[section] = {
            key: _paths(path, f"{section}.{key}", value) for key, value in table.items()
        }
    return Declaration(modules=tables["modules"], stages=tables["stages"])


def ignored_by_dvc(ignore_file: Path = IGNORE_FILE) -> GitIgnoreSpec:
    lines = ignore_file.read_text(encoding="utf-8").splitlines() if ignore_file.exists() else []
    return GitIgnoreSpec.from_lines(lines)


def _files(entry: Path, ignored: GitIgnoreSpec) -> Iterator[Path]:
    if entry.is_file():
        if not ignored.match_file(entry.as_posix()):  # bytecode beside packaged data
            yield entry
        return
    for child in sorted(entry.iterdir()):
        if ignored.match_file(child.as_posix() + ("/" if child.is_dir() else "")):
            continue
        if child.is_dir():
            yield from _files(child, ignored)
        else:
            yield child


def _file_digest(file: Path) -> str:
    return sha256_hex(file.read_bytes())


def digests(
    paths: Iterable[Path], ignored: GitIgnoreSpec, file_digest: Callable[[Path], str]
) -> dict[str, str]:
    """Every file under ``paths`` (POSIX relative path) → its sha256."""
    return {
        file.as_posix(): file_digest(file) for entry in paths for file in _files(entry, ignored)
    }


def manifest_text(stage: str, files: dict[str, str]) -> str:
    return json.dumps({"stage": stage, "files": dict(sorted(files.items()))}, indent=1) + "\n"


def publish(paths: Mapping[str, Iterable[Path]], folder: Path) -> list[str]:
    """Write ``<stage>.json`` for every stage (stage → its files and folders); the stages whose
    digest changed."""
    ignored = ignored_by_dvc()
    # each file read once, however many stages run it (src/assay/evidence: every stage)
    file_digest = cache(_file_digest)
    texts = {
        f"{stage}.json": manifest_text(stage, digests(sorted(set(files)), ignored, file_digest))
        for stage, files in paths.items()
    }
    return [name.removesuffix(".json") for name in replace_files(folder, texts)]


def stage_paths(
    declaration: Declaration, graph: grimp.ImportGraph, source: Path = SOURCE
) -> dict[str, set[Path]]:
    """Stage → every file and folder whose change changes its outputs: its script, the code of
    ``assay`` the script runs, and what the declaration adds for those modules and the stage."""
    missing = sorted(set(declaration.modules) - set(graph.modules))
    if missing:
        raise CodeDeclarationError(f"{DECLARATION}: modules.{missing[0]}: no such module")
    paths = {}
    for stage, extra in declaration.stages.items():
        script = SCRIPTS / f"{stage}.py"
        if not script.exists():
            raise CodeDeclarationError(f"{DECLARATION}: stages.{stage}: {script} does not exist")
        modules = stage_code.script_modules(script, graph)
        read = {Path(p) for m in modules & set(declaration.modules) for p in declaration.modules[m]}
        code = stage_code.code_files(modules, source)
        paths[stage] = {script, *code, *read, *map(Path, extra)}
    return paths


def _imported_from_here(source: Path) -> None:
    """The graph is of the ``assay`` Python imports; its files must be this repository's."""
    imported = Path(assay.__file__).parent
    if not source.is_dir() or not imported.samefile(source):
        raise CodeDeclarationError(
            f"assay is imported from {imported}, not from this repository's {source}: "
            "run the pipeline in the repository's environment (`uv run dvc repro`)"
        )


def run(path: Path = DECLARATION) -> list[str]:
    _imported_from_here(SOURCE)
    graph = stage_code.build_graph()
    return publish(stage_paths(load_declaration(path), graph), code_dir())
