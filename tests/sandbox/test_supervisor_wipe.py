"""The supervisor's /tmp wipe on this machine, without Docker: any depth, any path length, any
mode, and never a step outside the folder it empties (``sandbox/supervisor.py`` is stdlib-only,
so it loads here as it runs in the container)."""

from __future__ import annotations

import importlib.util
import os
import socket
from pathlib import Path
from types import ModuleType

import pytest

SUPERVISOR = Path(__file__).parents[2] / "sandbox" / "supervisor.py"


@pytest.fixture
def supervisor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("assay_sandbox_supervisor", SUPERVISOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(module, "TMP_DIR", str(tmp_path / "tmp"))
    return module


def nest(start: Path, name: str, levels: int) -> None:
    """``levels`` folders named ``name`` under ``start``, made through relative steps (the whole
    path may be longer than any system call accepts), each then made read-only."""
    fd = os.open(start, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.chmod(name, 0o500, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def test_wipe_empties_tmp_however_deep_long_or_locked(
    supervisor: ModuleType, tmp_path: Path
) -> None:
    tmp = tmp_path / "tmp"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    nest(tmp, "d", 1100)  # past Python's recursion limit
    nest(tmp, "n" * 250, 24)  # ~6,000 characters: past PATH_MAX
    (tmp / "locked").mkdir()
    (tmp / "locked" / "file").write_text("x")
    (tmp / "locked" / "file").chmod(0)
    (tmp / "locked").chmod(0)
    os.mkfifo(tmp / "fifo")
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(tmp / "socket"))
    (tmp / "loop-a").symlink_to(tmp / "loop-b")
    (tmp / "loop-b").symlink_to(tmp / "loop-a")
    (tmp / "out").symlink_to(outside)
    with open(os.fsencode(tmp) + b"/.\xff\nodd", "wb") as odd:
        odd.write(b"x")
    many = tmp / "many"
    many.mkdir()
    for index in range(2000):
        (many / str(index)).touch()

    supervisor.wipe_tmp()

    assert os.listdir(tmp) == []
    assert [path.name for path in outside.iterdir()] == ["keep"]  # never followed a link
