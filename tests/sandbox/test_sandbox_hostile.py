"""The hostile corpus: every entry ends as its table row says, within its wall-clock ceiling,
and leaves no container behind."""

from __future__ import annotations

import os
import time
import tomllib
from pathlib import Path
from typing import Any

import docker
import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, live_containers

from assay.sandbox import CorrectnessResult, SandboxRequest, evaluate
from assay.sandbox.policy import (
    CONTAINER_NAME_PREFIX,
    PROFILES,
    RECORD_SLACK_SECONDS,
    STARTUP_DEADLINE_SECONDS,
)

CASES_DIR = Path(__file__).parent / "cases"
TABLE = tomllib.loads((CASES_DIR / "hostile.toml").read_text(encoding="utf-8"))["case"]


def test_every_corpus_file_has_a_row() -> None:
    files = {path.name for path in (CASES_DIR / "hostile").glob("*.py")}
    assert files == {row["file"] for row in TABLE}


def request_for_row(row: dict[str, Any], image: str) -> SandboxRequest:
    expected = (
        tuple(row["expected"])
        if "expected" in row
        else ((row["expected_value"],) if "expected_value" in row else (3,))
    )
    return SandboxRequest(
        files=CORPUS_FILES,
        target=CORPUS_TARGET,
        candidate=(CASES_DIR / "hostile" / row["file"]).read_text(encoding="utf-8"),
        cases=tuple(row.get("cases", [1])),
        expected=expected,
        image=image,
    )


def assert_ends_as_its_row(row: dict[str, Any], result: CorrectnessResult) -> None:
    assert result.status == row["status"], (row["file"], result)
    assert [case.index for case in result.cases] == list(range(len(row.get("cases", [1]))))
    assert {case.outcome for case in result.cases} <= set(row["outcomes"]), (row["file"], result)
    if "exception_type" in row:
        assert {case.exception_type for case in result.cases} == {row["exception_type"]}
    if "exception_message" in row:  # "" = no message could be had safely
        assert {case.exception_message for case in result.cases} == {
            row["exception_message"] or None
        }
    if "actual" in row:
        assert {case.actual for case in result.cases} == {row["actual"]}


@pytest.mark.docker
@pytest.mark.parametrize("row", TABLE, ids=[row["file"].removesuffix(".py") for row in TABLE])
def test_hostile_candidate(
    row: dict[str, Any], sandbox_image: str, docker_api: docker.APIClient
) -> None:
    request = request_for_row(row, sandbox_image)
    cases = request.cases
    started = time.monotonic()
    result = evaluate(request)
    elapsed = time.monotonic() - started

    assert_ends_as_its_row(row, result)
    budget = STARTUP_DEADLINE_SECONDS + len(cases) * (
        PROFILES["standard"].case_ceiling_seconds + RECORD_SLACK_SECONDS
    )
    assert elapsed < budget
    assert live_containers(docker_api, f"{CONTAINER_NAME_PREFIX}{os.getpid()}-") == []
