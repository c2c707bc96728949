"""Units of work: one repository (a before- or an after-repository) written under a shared root.

Every tool reads the same tree: ``<root>/<unit_id>/<repository files>``. Batch tools (ruff,
jscpd) take many unit folders in one process and their findings are mapped back to units by
the first path component.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from assay.core.records import Frozen


class Unit(Frozen):
    """A repository to measure. An after-unit knows where the change landed in its target."""

    unit_id: str
    files: dict[str, str]
    target: str
    changed_lines: tuple[int, ...] = ()
    """Lines of the target added or modified by the change; empty for a before-unit."""
    definition_lines: tuple[int, int] | None = None
    """The appended definition's first and last target line; ``None`` for a before-unit."""

    @property
    def is_after(self) -> bool:
        return self.definition_lines is not None


def write_unit(root: Path, unit: Unit) -> Path:
    folder = root / unit.unit_id
    write_files(folder, unit.files)
    return folder


def write_files(folder: Path, files: Mapping[str, str]) -> None:
    for path, text in files.items():
        destination = folder / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(text, encoding="utf-8")


def read_files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by its relative POSIX path."""
    return {
        path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def python_files(files: Mapping[str, str]) -> list[tuple[str, str]]:
    return sorted((path, text) for path, text in files.items() if path.endswith(".py"))


def unit_of(path: str, root: Path) -> str | None:
    """The unit a reported file belongs to (its first component under ``root``)."""
    try:
        relative = Path(path).resolve().relative_to(root.resolve())
    except ValueError:
        return None
    return relative.parts[0] if relative.parts else None


def chunked(units: Iterable[Unit], size: int) -> list[list[Unit]]:
    chunks: list[list[Unit]] = []
    for unit in units:
        if not chunks or len(chunks[-1]) >= size:
            chunks.append([])
        chunks[-1].append(unit)
    return chunks
