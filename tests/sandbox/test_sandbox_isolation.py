"""Isolation that sharing cannot break: a case gets exactly the verdict it gets alone.

Candidates never share a container (see ``assay.sandbox.runner``); the cases of one candidate
do, one after another. So the contamination pairs (``cases/contamination.toml``) put A, a
hostile case that leaves something behind, and then B correct and B wrong into one container as
the cases of one candidate, under the real policy (the IPC limits refuse to create the objects)
and with the IPC limits lifted (the supervisor's cleanup alone must remove them). The property
test runs every hostile entry followed by B correct and B wrong through ``evaluate_many``, the
path the correctness stage uses, and compares each B with B alone. A supervisor whose cleanup is
sabotaged shows what happens when cleanup fails: residue is charged to the case that left it,
an unverifiable cleanup charges nobody, and the remaining cases run in a fresh container.
"""

from __future__ import annotations

import os
import subprocess
import threading
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import docker
import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, RIGHT, WRONG, live_containers
from test_sandbox_hostile import TABLE, assert_ends_as_its_row, request_for_row

from assay.fixtures.model import SourceFile
from assay.sandbox import CorrectnessResult, SandboxRequest, evaluate, policy, runner
from assay.sandbox.parallel import default_workers, evaluate_many

CASES_DIR = Path(__file__).parent / "cases"
PAIRS = tomllib.loads((CASES_DIR / "contamination.toml").read_text(encoding="utf-8"))["pair"]
CONTAMINATION_FILES = (
    *CORPUS_FILES,
    SourceFile(
        path="pkg/fresh.py",
        text=(CASES_DIR / "contamination" / "fresh.py").read_text(encoding="utf-8"),
    ),
)
EXPECTED = {1: 3, 2: 5, 3: 7}
"""Input → right answer: 1 is A, 2 is B correct, 3 is B wrong (see contamination.toml)."""
LINUX_MSGQUEUE_BYTES = 819_200
"""The kernel's default RLIMIT_MSGQUEUE, for runs with the IPC limits lifted."""

pytestmark = pytest.mark.docker


def test_every_contamination_file_has_a_row() -> None:
    files = {path.name for path in (CASES_DIR / "contamination").glob("*.py")}
    assert files - {"fresh.py"} == {row["file"] for row in PAIRS}


def pair_request(row: dict[str, Any], inputs: tuple[int, ...], image: str) -> SandboxRequest:
    return SandboxRequest(
        files=CONTAMINATION_FILES,
        target=CORPUS_TARGET,
        candidate=(CASES_DIR / "contamination" / row["file"]).read_text(encoding="utf-8"),
        cases=inputs,
        expected=tuple(EXPECTED[value] for value in inputs),
        image=image,
    )


def corpus_request(candidate: str, image: str) -> SandboxRequest:
    return SandboxRequest(
        files=CORPUS_FILES, target=CORPUS_TARGET, candidate=candidate,
        cases=(1, 2), expected=(3, 5), image=image,
    )  # fmt: skip


@pytest.fixture(params=["policy", "ipc-limits-lifted"])
def ipc_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The real policy, or one without its IPC limits: then the objects A makes really exist,
    and only the supervisor's cleanup stands between them and B."""
    if request.param == "ipc-limits-lifted":
        monkeypatch.setattr(policy, "IPC_SYSCTLS", {})
        monkeypatch.setattr(policy, "MSGQUEUE_LIMIT", LINUX_MSGQUEUE_BYTES)
    return str(request.param)


@pytest.fixture
def containers_started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many containers the runner starts (one entry each)."""
    started: list[int] = []
    lock = threading.Lock()
    real = runner._run_container

    def counting(*args: Any, **kwargs: Any) -> Any:
        with lock:
            started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "_run_container", counting)
    yield started


def outcome(result: CorrectnessResult, position: int) -> tuple[str, str | None]:
    case = result.cases[position]
    return case.outcome, case.actual


def test_every_contamination_pair_leaves_b_as_alone(
    ipc_mode: str,
    containers_started: list[int],
    sandbox_image: str,
    docker_api: docker.APIClient,
) -> None:
    """A, B correct and B wrong as the cases of one candidate, in one container: each B's case
    ends as B alone does, and the container never had to be replaced (the cleanup after A was
    clean every time: B really ran where A had been)."""
    requests = []
    for row in PAIRS:
        requests += [
            pair_request(row, (1, 2, 3), sandbox_image),
            pair_request(row, (2,), sandbox_image),
            pair_request(row, (3,), sandbox_image),
        ]
    results = evaluate_many(requests, workers=default_workers())
    assert len(containers_started) == len(requests)
    for index, row in enumerate(PAIRS):
        together, correct_alone, wrong_alone = results[3 * index : 3 * index + 3]
        assert outcome(correct_alone, 0) == ("pass", None), (row["file"], correct_alone)
        assert outcome(wrong_alone, 0) == ("wrong-value", "null"), (row["file"], wrong_alone)
        assert outcome(together, 0) == ("pass", None), (row["file"], ipc_mode, together)
        assert outcome(together, 1) == outcome(correct_alone, 0), (row["file"], ipc_mode)
        assert outcome(together, 2) == outcome(wrong_alone, 0), (row["file"], ipc_mode)
    assert live_containers(docker_api, f"{policy.CONTAINER_NAME_PREFIX}{os.getpid()}-") == []


def test_for_every_hostile_entry_the_verdicts_in_a_run_equal_the_verdicts_alone(
    sandbox_image: str, docker_api: docker.APIClient
) -> None:
    """Every hostile entry (the corpus, and each contamination pair's A as a candidate of its
    own), each followed by B correct and B wrong, through evaluate_many as the correctness stage
    runs them: the hostile entry ends as its row says, and every B exactly as B alone."""
    right, wrong = corpus_request(RIGHT, sandbox_image), corpus_request(WRONG, sandbox_image)
    triples: list[tuple[SandboxRequest, SandboxRequest, SandboxRequest]] = [
        (request_for_row(row, sandbox_image), right, wrong) for row in TABLE
    ]
    triples += [
        tuple(pair_request(row, (value,), sandbox_image) for value in (1, 2, 3))  # type: ignore[misc]
        for row in PAIRS
    ]
    requests = [request for triple in triples for request in triple]
    results = evaluate_many(requests, workers=default_workers())
    distinct_bs = {(b.candidate, b.cases): b for _, *bs in triples for b in bs}
    alone = {key: evaluate(b) for key, b in distinct_bs.items()}
    assert [alone[(RIGHT, (1, 2))].status, alone[(WRONG, (1, 2))].status] == [
        "correct",
        "incorrect",
    ]
    for position, (hostile, *bs) in enumerate(triples):
        hostile_result, *b_results = results[3 * position : 3 * position + 3]
        if position < len(TABLE):
            assert_ends_as_its_row(TABLE[position], hostile_result)
        else:
            assert hostile_result.status == "correct", hostile.candidate
        for b, result in zip(bs, b_results, strict=True):
            assert result == alone[(b.candidate, b.cases)], (position, hostile.candidate[:80])
    assert live_containers(docker_api, f"{policy.CONTAINER_NAME_PREFIX}{os.getpid()}-") == []


SABOTAGE = '''"""A supervisor whose cleanup is broken on purpose (a test image only)."""
import os
import sys

sys.path.insert(0, "/opt/assay")
import real_supervisor as real

SABOTAGE = {sabotage!r}
if SABOTAGE == "keep-ipc-objects":
    real.remove_ipc_objects = lambda: None
elif SABOTAGE == "unreadable-state":
    fresh = []
    honest = real.fingerprint

    def fingerprint():
        if fresh:
            raise OSError("cannot read the state")
        fresh.append(honest())
        return fresh[0]

    real.fingerprint = fingerprint
try:
    real.main()
except real.HostGone:
    pass
os._exit(0)
'''


@pytest.fixture(scope="module")
def sabotaged_image(
    sandbox_image: str, docker_api: docker.APIClient, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str], str]]:
    """``sabotage`` → the id of the sandbox image with a supervisor broken that way (built here
    from the real image and the real supervisor, removed afterwards)."""
    supervisor = Path(__file__).parents[2] / "sandbox" / "supervisor.py"
    built: list[str] = []

    def build(sabotage: str) -> str:
        context = tmp_path_factory.mktemp(f"sabotage-{sabotage}")
        (context / "real_supervisor.py").write_text(supervisor.read_text(encoding="utf-8"))
        (context / "supervisor.py").write_text(SABOTAGE.format(sabotage=sabotage))
        (context / "Dockerfile").write_text(
            f"FROM {sandbox_image}\nCOPY real_supervisor.py supervisor.py /opt/assay/\n"
        )
        tag = f"assay-test-sabotage:{sabotage}-{os.getpid()}"
        subprocess.run(
            ["docker", "build", "--pull=false", "--network=none", "-q", "-t", tag, str(context)],
            check=True, capture_output=True,
        )  # fmt: skip
        built.append(tag)
        return str(docker_api.inspect_image(tag)["Id"])

    yield build
    for tag in built:
        docker_api.remove_image(tag, force=True)


def test_residue_the_cleanup_cannot_remove_is_charged_to_the_case_that_left_it(
    sabotaged_image: Callable[[str], str],
    containers_started: list[int],
    monkeypatch: pytest.MonkeyPatch,
    docker_api: docker.APIClient,
) -> None:
    """With the IPC limits lifted and a supervisor that leaves IPC objects: A's shared memory
    survives, A is charged with it (``residue``), and B correct and B wrong run in a fresh
    container, each ending as alone."""
    monkeypatch.setattr(policy, "IPC_SYSCTLS", {})
    monkeypatch.setattr(policy, "MSGQUEUE_LIMIT", LINUX_MSGQUEUE_BYTES)
    image = sabotaged_image("keep-ipc-objects")
    row = next(row for row in PAIRS if row["file"] == "sysv_shm.py")
    result = evaluate(pair_request(row, (1, 2, 3), image))
    assert (result.status, result.reason) == ("incorrect", "residue")
    assert [(case.outcome, case.actual) for case in result.cases] == [
        ("residue", None),
        ("pass", None),
        ("wrong-value", "null"),
    ]
    assert len(containers_started) == 2
    assert live_containers(docker_api, f"{policy.CONTAINER_NAME_PREFIX}{os.getpid()}-") == []


def test_a_cleanup_that_cannot_be_verified_charges_nobody_and_the_rest_run_fresh(
    sabotaged_image: Callable[[str], str],
    containers_started: list[int],
    sandbox_image: str,
    docker_api: docker.APIClient,
) -> None:
    """A supervisor that cannot read the container's state after a case: that case keeps its
    own outcome, and every remaining case runs in a fresh container, so the candidate's result
    is the one the real supervisor gives."""
    image = sabotaged_image("unreadable-state")
    row = next(row for row in PAIRS if row["file"] == "special_files.py")
    result = evaluate(pair_request(row, (1, 2, 3), image))
    assert len(containers_started) == 3
    honest = evaluate(pair_request(row, (1, 2, 3), sandbox_image))
    assert result == honest
    assert [case.outcome for case in result.cases] == ["pass", "pass", "wrong-value"]
    assert live_containers(docker_api, f"{policy.CONTAINER_NAME_PREFIX}{os.getpid()}-") == []
