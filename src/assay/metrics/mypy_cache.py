"""Where a measuring process keeps mypy's incremental cache: a slot of its own that outlives it.

A fresh cache costs each measure worker a cold build of mypy's standard library stubs (about
4 s of CPU on the project's machine) before its first repository; a study starts two workers in
every measure stage. What the cache may serve is the standard library's stubs and installed
packages, and the modules of repositories checked before as far as mypy's own incremental check
allows: a repository is written where no earlier check was (the measurement's fresh temporary
folder: :func:`assay.metrics.mypy_tool.measure_many`), so mypy compares every file's hash, and a
batched module is a private copy whose text is new to the cache; the counts do not depend on
what the slot saw before.

Slots live under the memo root (``<memo>/mypy/<mypy version>/slot-N``, :mod:`assay.core.memo`), so
``ASSAY_MEMO=off`` or an empty ``ASSAY_MEMO_DIR`` starts cold as before. A process takes the
first slot whose lock file it can lock (``flock``, held until the process ends): mypy's cache
is never written by two processes at once.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from assay.core.memo import memo_root

SLOTS = 64
"""More than the measure processes of one host at once (workers per stage, Dask workers)."""

_held: dict[Path, tuple[int, Path]] = {}
"""Per cache root: the locked file descriptor and the slot it holds (one slot per process)."""


def _mypy_version() -> str:
    from mypy.version import __version__

    return __version__


def slot(fallback: Path) -> Path:
    """This process's cache folder: a locked persistent slot, or ``fallback`` when the memo is
    off or every slot is taken."""
    root = memo_root()
    if root is None:
        return fallback
    base = root / "mypy" / _mypy_version()
    if base in _held:
        return _held[base][1]
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        return fallback
    for index in range(SLOTS):
        try:
            descriptor = os.open(base / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return fallback
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            continue
        _held[base] = (descriptor, base / f"slot-{index}")
        return _held[base][1]
    return fallback
