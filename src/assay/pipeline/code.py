"""``code`` stage: the code each stage runs, as one digest file per stage.

``pipeline/code.toml`` names, for every stage, the files and folders whose change changes that
stage's outputs (its script, the library modules it runs, ``uv.lock`` for the tools' versions,
the sandbox recipe, the fixtures it reads). This stage writes ``data/code/<stage>.json``: each
of those files with its sha256, folders expanded (less what ``.dvcignore`` keeps out of DVC).
Each stage depends on its own digest file instead of on the dozen paths behind it, so DVC hashes
the code once per ``dvc status`` instead of once per stage (1,300 dependencies fewer for the
default study), and an edit still re-runs exactly the stages whose code it touches: their
digest files are the only ones rewritten. This stage itself depends on all of ``src``,
``stages``, ``fixtures``, ``sandbox`` and the rest, so it runs after every edit of them and
prints the stages whose digest changed.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path

from pathspec import GitIgnoreSpec

from assay.digest import sha256_hex
from assay.errors import InputError
from assay.evidence.paths import code_dir
from assay.pipeline.derived_files import replace_files

DECLARATION = Path("pipeline/code.toml")
IGNORE_FILE = Path(".dvcignore")
"""What DVC keeps out of every dependency is kept out of the digests too (the same gitignore
patterns, read the same way), so running assay or its tools never changes a digest."""


class CodeDeclarationError(InputError):
    """``pipeline/code.toml`` is unreadable or names a path that is not there."""


def load_declaration(path: Path = DECLARATION) -> dict[str, tuple[str, ...]]:
    """Stage name → the paths it runs, as declared; every problem names the file and key."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CodeDeclarationError(f"{path}: not found") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CodeDeclarationError(f"{path}: {exc}") from None
    declaration = {}
    for stage, paths in raw.items():
        if not (isinstance(paths, list) and paths and all(isinstance(p, str) for p in paths)):
            raise CodeDeclarationError(f"{path}: {stage}: expected a list of paths")
        for entry in paths:
            relative = Path(entry)
            if relative.is_absolute() or ".." in relative.parts:
                raise CodeDeclarationError(
                    f"{path}: {stage}: {entry} is not a path inside the repository"
                )
            if not relative.exists():
                raise CodeDeclarationError(f"{path}: {stage}: {entry} does not exist")
        declaration[stage] = tuple(paths)
    return declaration


def ignored_by_dvc(ignore_file: Path = IGNORE_FILE) -> GitIgnoreSpec:
    lines = ignore_file.read_text(encoding="utf-8").splitlines() if ignore_file.exists() else []
    return GitIgnoreSpec.from_lines(lines)


def _files(entry: Path, ignored: GitIgnoreSpec) -> Iterator[Path]:
    if entry.is_file():
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
    paths: tuple[str, ...], ignored: GitIgnoreSpec, file_digest: Callable[[Path], str]
) -> dict[str, str]:
    """Every file under ``paths`` (POSIX relative path) → its sha256."""
    return {
        file.as_posix(): file_digest(file)
        for entry in paths
        for file in _files(Path(entry), ignored)
    }


def manifest_text(stage: str, files: dict[str, str]) -> str:
    return json.dumps({"stage": stage, "files": dict(sorted(files.items()))}, indent=1) + "\n"


def publish(declaration: Mapping[str, tuple[str, ...]], folder: Path) -> list[str]:
    """Write ``<stage>.json`` for every declared stage; the stages whose digest changed."""
    ignored = ignored_by_dvc()
    # each file read once, however many stages declare it (src/assay/evidence: about twelve)
    file_digest = cache(_file_digest)
    texts = {
        f"{stage}.json": manifest_text(stage, digests(paths, ignored, file_digest))
        for stage, paths in declaration.items()
    }
    return [name.removesuffix(".json") for name in replace_files(folder, texts)]


def run(path: Path = DECLARATION) -> list[str]:
    return publish(load_declaration(path), code_dir())
