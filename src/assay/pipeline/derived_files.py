"""Stage outputs that mirror a declaration, one file per entry (the params stage's sections,
the code stage's digests): a file is rewritten only when its text changes, so its modification
time and DVC's hash of it stay put, and a file whose entry is gone is removed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def replace_files(folder: Path, texts: Mapping[str, str], pattern: str = "*.json") -> list[str]:
    """Make ``folder``'s files matching ``pattern`` exactly ``texts`` (name → text); the names
    whose text was written (new or changed), in ``texts`` order."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in texts.items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(name)
    for stale in folder.glob(pattern):
        if stale.name not in texts:
            stale.unlink()
    return written
