"""The self-test covers every subject of the task bank, through real `dvc repro` and Docker.

The shared study (tests/study.py) runs every scenario on two subjects; this test takes a copy of
it, drops the bank's two scenarios from ``subject_subset`` and reproduces their self-tests: both
references of every subject pass every vector on both arms in the sandbox, a known-wrong answer
fails once per subject, and the structural evaluator scores every reference as declared. The
memo of results is on, with the study's own results, as a user's `dvc repro` has it: `bank`
checks what the study has not, and `bank-new`, whose every subject `bank` holds, recalls its
references and runs its first known-wrong check fresh.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from assay.fixtures.scenarios import load_scenario
from tests.conftest import Repo, stages_ran
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

BANK = ("bank", "bank-new")
CHECKS_PER_SUBJECT = 2 * 2 + 1
"""Two arms times two references, and one known-wrong check."""


def test_the_self_test_covers_every_bank_subject(
    study: Study, study_copy: Repo, tmp_path: Path
) -> None:
    repo = study_copy
    memo = tmp_path / "memo"
    shutil.copytree(study.repo.path.parent / "memo", memo)
    repo.env = {**repo.env, "ASSAY_MEMO": "on", "ASSAY_MEMO_DIR": str(memo)}
    params = yaml.safe_load(repo.read("params.yaml"))
    params["subject_subset"] = {
        name: subset for name, subset in params["subject_subset"].items() if name not in BANK
    }
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))

    done = repo.dvc("repro", *(f"pipeline/selftest/dvc.yaml:selftest@{name}" for name in BANK))

    assert {f"selftest@{name}" for name in BANK} <= stages_ran(done.stdout)
    for name in BANK:
        expected = {s.id for s in load_scenario(name, repo.path / "fixtures").subjects}
        realised = pq.read_table(repo.path / "data" / "subjects" / name / "subjects.parquet")
        assert set(realised.column("subject").to_pylist()) == expected
        report = json.loads(repo.read(f"data/selftest/{name}/selftest.json"))
        sandbox, known = report["sandbox"], report["known_answers"]
        assert (sandbox["failures"], known["failures"]) == ([], []), name
        assert sandbox["sandboxed_subjects"] == len(expected)
        assert sandbox["checks"] == CHECKS_PER_SUBJECT * len(expected)
        assert known["structure_checks"] == 2 * len(expected)
