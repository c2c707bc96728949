"""Shared fixtures. ``repo``: a throwaway copy of the working tree (tracked and unignored files)
in its own git repo, for end-to-end DVC runs (tests/pipeline, tests/providers).
``second_engine``: a private dockerd, for tests that need an engine without some image.
Markers by what a test uses (dvc, docker, browser, cluster, process): tests/uses.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests import uses as resources
from tests import workers
from tests.private_engine import private_engine

if TYPE_CHECKING:
    from xdist.workermanage import WorkerController

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

# Tests are hermetic: no result remembered by an earlier session (or test) decides one of theirs
# (assay.core.memo). The memo's own tests and the shared study turn it on with a folder of their own.
os.environ["ASSAY_MEMO"] = "off"
RUNNING = re.compile(r"Running stage '(?:[^':]+:)?([^']+)'")


def pytest_configure(config: pytest.Config) -> None:
    resources.watch()
    for mark, meaning in resources.MARKS.items():
        config.addinivalue_line("markers", f"{mark}: {meaning}")
    for alias, mark in resources.ALIASES.items():
        config.addinivalue_line("markers", f"{alias}: the older name of `{mark}`")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what its fixtures use, and older markers by their current name; then
    group and order the tests for the workers (tests/workers.py)."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        marks = {mark for fixture, mark in resources.FIXTURES.items() if fixture in names}
        marks |= {
            mark for alias, mark in resources.ALIASES.items() if item.get_closest_marker(alias)
        }
        for mark in sorted(marks):
            if item.get_closest_marker(mark) is None:
                item.add_marker(mark)
    workers.assign(items)


def pytest_xdist_node_collection_finished(node: WorkerController, ids: list[str]) -> None:
    """On the controller, for each worker's collection (scripts/test runs pytest-xdist)."""
    workers.check_grouped(node.config, ids)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    resources.running(item)
    try:
        return (yield)
    finally:
        resources.running(None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    torn_down = yield
    resources.check()  # a test that used DVC, Docker, ... unmarked errors here, naming the mark
    return torn_down


def stages_ran(output: str) -> set[str]:
    """The stages a ``dvc repro`` output says it ran, by name (``execute@RUN``), whichever
    dvc.yaml defines them (DVC prints ``pipeline/execute/dvc.yaml:execute@RUN``)."""
    return set(RUNNING.findall(output))


class Repo:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
                    "PYTHONPATH": str(path / "src"), "DVC_NO_ANALYTICS": "1"}  # fmt: skip

    def run(
        self, *args: str, check: bool = True, timeout: float = 600
    ) -> subprocess.CompletedProcess:
        result = subprocess.run(
            args,
            check=False,
            cwd=self.path,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
            )
        return result

    def dvc(
        self, *args: str, check: bool = True, timeout: float = 600
    ) -> subprocess.CompletedProcess:
        return self.run(str(BIN / "dvc"), *args, check=check, timeout=timeout)

    def dvc_process(self, *args: str) -> subprocess.Popen:
        """``dvc`` started in its own process group, so a test can kill it and its stages."""
        return subprocess.Popen(
            [str(BIN / "dvc"), *args],
            cwd=self.path,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def git(self, *args: str) -> subprocess.CompletedProcess:
        return self.run("git", *args)

    def read(self, relative: str) -> str:
        return (self.path / relative).read_text(encoding="utf-8")

    def write(self, relative: str, text: str) -> None:
        (self.path / relative).write_text(text, encoding="utf-8")


@pytest.fixture
def second_engine() -> Iterator[str]:
    """``unix://`` address of a private dockerd with no images (tests/private_engine.py)."""
    with private_engine() as address:
        yield address


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path / "repo")


def make_repo(target: Path, *, with_lock: bool = False) -> Repo:
    """A git repo at ``target`` holding the working tree's tracked and unignored files
    (without the ``dvc.lock`` files unless ``with_lock``: a fresh clone as a user gets it)."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = ROOT / name
        if not source.is_file() or (name.endswith("dvc.lock") and not with_lock):
            continue
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination)
    copy = Repo(target)
    copy.git("init", "-q", "-b", "main")
    copy.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "add", "-A")
    copy.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qm", "copy")
    return copy


def _copy_file(source: str, destination: str) -> None:
    """DVC's cache and the image archives are hard-linked (DVC never writes them in place);
    everything else is copied, so a test's edits stay in its copy."""
    if "/.dvc/cache/" in source or source.endswith(".tar"):
        os.link(source, destination)
    else:
        shutil.copy2(source, destination)


def copy_repo(source: Repo, target: Path) -> Repo:
    """A copy of ``source`` (outputs and DVC cache included) that a test may change."""
    shutil.copytree(source.path, target, symlinks=True, copy_function=_copy_file)
    return Repo(target)


@pytest.fixture(scope="session")
def study(tmp_path_factory: pytest.TempPathFactory):
    """The default study, run once per session through real `dvc repro` (tests/study.py): read
    it, never change it; a test that changes anything takes ``study_copy``."""
    from tests.study import run_study

    return run_study(tmp_path_factory.mktemp("study"))


@pytest.fixture(scope="session")
def v1_run(tmp_path_factory: pytest.TempPathFactory):
    """``sim-follower-v1`` alone on the whole of v1, run once per session through real `dvc
    repro` (tests/study.py: ``run_v1``): read it, never change it; copy it to change it."""
    from tests.study import run_v1

    return run_v1(tmp_path_factory.mktemp("v1"))


@pytest.fixture
def v1_copy(v1_run, tmp_path: Path) -> Repo:
    """A copy of the v1 run's repository (outputs and DVC cache included) to change."""
    from tests.study import copy_of

    return copy_of(v1_run, tmp_path / "repo")


@pytest.fixture
def study_copy(study, tmp_path: Path) -> Repo:
    """A copy of the studied repository (outputs and DVC cache included) to change."""
    from tests.study import copy_of

    return copy_of(study, tmp_path / "repo")
