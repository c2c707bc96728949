"""A newcomer's mistakes through what they run — real `dvc repro`, `assay` as a process — on one
studied repository: malformed params.yaml stops `dvc repro` at the `params` stage (or DVC's own
parse) with one line and changes nothing in data/, ledger/ or dvc.lock; refused `run add` calls
change nothing; `assay sql` writes nothing; bytecode from the CLI leaves `dvc status` clean."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import BIN, Repo
from tests.params_cases import PARAMS_CASES, RUN_ADD_CASES, malformed
from tests.study import Study, copy_of

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

RUN = "sim-follower-v1"


_DIGESTS: dict[tuple[str, int, int, int], str] = {}


def _digest(path: Path) -> tuple[str, int]:
    """A file's sha256 and mtime; hashed again only when its inode, size or mtime changes (as git
    and DVC decide what to re-hash): the study's ~260 MB of image archives are read once, not
    twice in every test."""
    stat = path.stat()
    key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        _DIGESTS[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _DIGESTS[key], stat.st_mtime_ns


def _state(repo: Repo) -> dict[str, tuple[str, int]]:
    """Every file of data/ and ledger/ (content and mtime) and every dvc.lock."""
    files = {}
    for top in ("data", "ledger"):
        for path in sorted((repo.path / top).rglob("*")):
            if path.is_file():
                files[path.relative_to(repo.path).as_posix()] = _digest(path)
    for lock in sorted(repo.path.rglob("dvc.lock")):
        name = lock.relative_to(repo.path).as_posix()
        files[name] = (hashlib.sha256(lock.read_bytes()).hexdigest(), 0)
    return files


def _assay(repo: Repo, *args: str):
    return repo.run(str(BIN / "assay"), *args, check=False)


def _changed_stages(repo: Repo) -> str:
    return repo.dvc("status").stdout


@pytest.fixture(scope="module")
def studied(study: Study, tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """A copy of the shared study (tests/study.py) with no bytecode in it: these tests change
    params.yaml and run the CLI in it."""
    repo = copy_of(study, tmp_path_factory.mktemp("newcomer") / "repo")
    for bytecode in list((repo.path / "src").rglob("__pycache__")):
        shutil.rmtree(bytecode)
    repo.env["PYTHONDONTWRITEBYTECODE"] = "1"
    assert _changed_stages(repo).strip() in ("", "Data and pipelines are up to date."), (
        _changed_stages(repo)
    )
    return repo


REPRO_CASES = [case for case in PARAMS_CASES if "repro" in case]


@pytest.mark.parametrize("case", REPRO_CASES, ids=lambda case: case["id"])
def test_malformed_params_stop_dvc_repro_before_any_output_changes(studied, case):
    good = studied.read("params.yaml")
    before = _state(studied)
    studied.write("params.yaml", malformed(good, case))
    try:
        result = studied.dvc("repro", check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0, output
        assert "Traceback" not in output, output
        if case["repro"] == "params-stage":
            lines = [line for line in output.splitlines() if line.startswith("assay: ")]
            assert len(lines) == 1 and case["line"] in lines[0], output
            assert output.count("Running stage") == 1, output
            assert "Running stage 'params'" in output
        else:  # DVC cannot even interpolate dvc.yaml: nothing runs; `assay check` names the key
            assert "Running stage" not in output, output
            check = _assay(studied, "check")
            assert check.returncode != 0 and case["line"] in check.stderr, check.stderr
        assert _state(studied) == before, (
            "a refused params.yaml changed data/, ledger/ or a dvc.lock"
        )
    finally:
        studied.write("params.yaml", good)


@pytest.mark.parametrize(
    "case",
    [c for c in RUN_ADD_CASES if c["id"] in ("empty-name", "name-with-space-and-slash",
                                            "unknown-scenario", "unknown-schedule", "repeats-huge")],
    ids=lambda case: case["id"],
)  # fmt: skip
def test_refused_run_add_changes_nothing(studied, case):
    before = _state(studied)
    params = studied.read("params.yaml")
    result = _assay(studied, "run", "add", *case["args"])
    assert result.returncode != 0
    assert result.stderr.splitlines() == [
        line for line in result.stderr.splitlines() if line.startswith("assay")
    ]
    assert len(result.stderr.splitlines()) == 1 and case["line"] in result.stderr
    assert studied.read("params.yaml") == params
    assert _state(studied) == before


REFUSED_SQL = {
    "copy over evidence": (
        f"COPY (SELECT 1 AS x) TO 'data/structure/{RUN}/verdicts.parquet' (FORMAT parquet)",
        "COPY is not allowed",
    ),
    "copy elsewhere": ("COPY (SELECT * FROM verdicts) TO '../leak.csv'", "COPY is not allowed"),
    "attach": ("ATTACH '../new.duckdb' AS other", "ATTACH is not allowed"),
    "install": ("INSTALL httpfs", "is not allowed"),
    "load": ("LOAD httpfs", "is not allowed"),
    "create": ("CREATE TABLE t AS SELECT 1", "CREATE is not allowed"),
    "drop": ("DROP VIEW verdicts", "DROP is not allowed"),
    "set": ("SET enable_external_access = true", "SET is not allowed"),
    "read outside data": ("SELECT * FROM read_csv('/etc/passwd')", "Permission Error"),
    "empty": ("  -- nothing\n", "empty query"),
    "invalid": ("SELEC 1", "syntax error"),
    "two statements": ("SELECT 1; SELECT 2", "2 statements"),
}


@pytest.mark.parametrize("query,message", REFUSED_SQL.values(), ids=list(REFUSED_SQL))
def test_sql_is_read_only(studied, query, message):
    before = _state(studied)
    result = _assay(studied, "sql", query)
    assert result.returncode != 0
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert _state(studied) == before
    assert not (studied.path.parent / "leak.csv").exists()
    assert not (studied.path.parent / "new.duckdb").exists()


def test_sql_answers_queries_and_the_cli_leaves_dvc_status_clean(studied):
    """Run without PYTHONDONTWRITEBYTECODE, as in a normal shell: bytecode lands in src/ and
    DVC ignores it (.dvcignore). The refusals above restored params.yaml: nothing is stale."""
    studied.env.pop("PYTHONDONTWRITEBYTECODE")
    subjects = yaml.safe_load(studied.read("params.yaml"))["subject_subset"]["v1"]
    cells = str(len(subjects) * 2)  # two arms, one repeat
    counted = _assay(studied, "sql", f"SELECT count(*) AS n FROM verdicts WHERE run = '{RUN}'")
    assert counted.returncode == 0 and counted.stdout.split() == ["n", cells], counted
    described = _assay(studied, "sql", "DESCRIBE verdicts")
    assert described.returncode == 0 and "verdict" in described.stdout
    listed = _assay(studied, "run", "list")
    assert listed.returncode == 0
    (row,) = [line for line in listed.stdout.splitlines() if line.startswith(RUN)]
    assert row.split()[:6] == [RUN, "sim-follower", "simulated", "v1", "executed:", cells]
    assert "free" in row
    assert _assay(studied, "check").returncode == 0
    assert list((studied.path / "src" / "assay").rglob("__pycache__")), "no bytecode written"
    studied.run("python", "-c", "import assay.fixtures.scenarios, assay.pipeline.report")
    assert _changed_stages(studied).strip() in ("", "Data and pipelines are up to date."), (
        _changed_stages(studied)
    )
