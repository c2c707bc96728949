"""The host's judgement of the supervisor stream after the ready record, without Docker: a
socket pair stands in for the attach stream. After ready, every failure counts against the
candidate; a case whose cleanup left residue is charged with it, and a container whose cleanup
was not clean ends early so the remaining cases run in a fresh one."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
from collections.abc import Iterator

import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, RIGHT

from assay.sandbox import SandboxRequest, policy
from assay.sandbox.results import CaseOutcome
from assay.sandbox.runner import (
    StreamSession,
    _cut_short,
    _ready_in_force,
    judge_stream,
    verdict,
)

SECRET = b"s" * 32
REQUEST = SandboxRequest(
    files=CORPUS_FILES,
    target=CORPUS_TARGET,
    candidate=RIGHT,
    cases=(1, 2),
    expected=(3, 5),
    image="sha256:" + "0" * 64,
)


def record(seq: int, secret: bytes = SECRET, **body: object) -> bytes:
    data = json.dumps(dict(body, seq=seq), sort_keys=True).encode()
    return hmac.new(secret, data, hashlib.sha256).hexdigest().encode() + b" " + data + b"\n"


def frame(data: bytes, stream: int = 1) -> bytes:
    return bytes([stream, 0, 0, 0]) + len(data).to_bytes(4, "big") + data


CASE0 = {"kind": "case", "index": 0, "cleanup": "clean", "outcome": "answered", "value": 3}
CASE1 = {"kind": "case", "index": 1, "cleanup": "clean", "outcome": "answered", "value": 5}


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    host, container = socket.socketpair()
    yield host, container
    host.close()
    container.close()


def judge(
    pair: tuple[socket.socket, socket.socket], stream: bytes, close: bool
) -> tuple[str, str, list[str]]:
    host, container = pair
    container.sendall(stream)
    if close:
        container.close()
    segment = judge_stream(
        StreamSession(sock=host, secret=SECRET, seq=1), REQUEST, deadline_per_case=0.5
    )
    result = verdict(REQUEST, segment.outcomes, segment.failure)
    return result.status, result.reason, [c.outcome for c in result.cases]


def test_valid_stream_is_correct(pair: tuple[socket.socket, socket.socket]) -> None:
    stream = frame(record(1, **CASE0) + record(2, **CASE1) + record(3, kind="done"))
    assert judge(pair, stream, close=True) == ("correct", "all-cases-passed", ["pass", "pass"])


@pytest.mark.parametrize(
    ("stream", "close", "reason", "outcomes"),
    [
        (frame(record(1, **CASE0)), False, "supervisor-silent", ["pass", "no-result"]),
        (frame(record(1, **CASE0)), True, "stream-truncated", ["pass", "no-result"]),
        (
            frame(record(1, **CASE0) + record(2, **CASE1)),
            True,
            "stream-truncated",
            ["pass", "pass"],
        ),
        (
            frame(record(1, secret=b"x" * 32, **CASE0)),
            True,
            "tampering",
            ["no-result", "no-result"],
        ),
        (frame(record(2, **CASE0)), True, "tampering", ["no-result", "no-result"]),
        (
            frame(record(1, **CASE0)) + frame(b"Traceback\n", stream=2),
            True,
            "tampering",
            ["pass", "no-result"],
        ),
        (frame(b"x" * 70_000 + b"\n"), False, "tampering", ["no-result", "no-result"]),
        (frame(b"x" * 70_000), False, "output-flood", ["no-result", "no-result"]),
        (frame(record(1, **CASE1)), True, "tampering", ["no-result", "no-result"]),
        (
            frame(record(1, **dict(CASE0, outcome="pass"))),
            True,
            "tampering",
            ["no-result", "no-result"],
        ),
        (
            frame(record(1, **{k: v for k, v in CASE0.items() if k != "cleanup"})),
            True,
            "tampering",
            ["no-result", "no-result"],
        ),
        (
            frame(record(1, **CASE0) + record(2, kind="done")),
            True,
            "tampering",
            ["pass", "no-result"],
        ),
        (
            frame(record(1, **dict(CASE0, cleanup="residue")) + record(2, **CASE1)),
            True,
            "tampering",
            ["residue", "no-result"],
        ),
    ],
    ids=[
        "silent",
        "truncated",
        "no-done",
        "forged-mac",
        "replayed-seq",
        "stderr",
        "garbage-line",
        "flood",
        "out-of-order",
        "unknown-outcome",
        "no-cleanup-state",
        "done-too-early",
        "case-after-unclean-cleanup",
    ],
)
def test_any_stream_failure_after_ready_is_incorrect(
    pair: tuple[socket.socket, socket.socket],
    stream: bytes,
    close: bool,
    reason: str,
    outcomes: list[str],
) -> None:
    status, got_reason, got_outcomes = judge(pair, stream, close)
    assert (status, got_reason, got_outcomes) == ("incorrect", reason, outcomes)


STARVED = {"kind": "case", "index": 1, "cleanup": "clean", "outcome": "starved"}


@pytest.mark.parametrize(
    ("first", "expected"),
    [
        (CASE0, ("evaluator-failure", "host-overloaded", [])),
        (dict(CASE0, value=4), ("incorrect", "wrong-value", ["wrong-value", "starved"])),
    ],
    ids=["only-starved", "starved-and-wrong"],
)
def test_a_case_the_host_starved_is_missing_unless_another_case_is_wrong(
    pair: tuple[socket.socket, socket.socket], first: dict, expected: tuple
) -> None:
    stream = frame(record(1, **first) + record(2, **STARVED) + record(3, kind="done"))
    assert judge(pair, stream, close=True) == expected


@pytest.mark.parametrize(("cleanup", "outcome"), [("residue", "residue"), ("unverified", "pass")])
def test_a_container_whose_cleanup_was_not_clean_ends_after_that_case(
    pair: tuple[socket.socket, socket.socket], cleanup: str, outcome: str
) -> None:
    """Residue is charged to the case that left it, whatever it answered; a cleanup that could
    not be verified charges nobody. Either way the container stops there, intact."""
    host, container = pair
    container.sendall(frame(record(1, **dict(CASE0, cleanup=cleanup)) + record(2, kind="done")))
    container.close()
    segment = judge_stream(
        StreamSession(sock=host, secret=SECRET, seq=1), REQUEST, deadline_per_case=0.5
    )
    assert segment.failure is None
    assert [case.outcome for case in segment.outcomes] == [outcome]


def test_a_case_that_times_out_ends_the_candidate(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    """The segment ends at the timeout without waiting for the supervisor's next record (it
    runs the next case until the container is removed)."""
    host, container = pair
    timed_out = {"kind": "case", "index": 0, "cleanup": "clean", "outcome": "timeout"}
    container.sendall(frame(record(1, **timed_out)))  # no `done`, and the stream stays open
    segment = judge_stream(
        StreamSession(sock=host, secret=SECRET, seq=1), REQUEST, deadline_per_case=5.0
    )
    assert segment.failure is None
    assert [(case.index, case.outcome) for case in segment.outcomes] == [(0, "timeout")]


def test_cases_not_run_after_a_timeout_are_not_failures() -> None:
    outcomes = (
        CaseOutcome(index=0, outcome="pass"),
        CaseOutcome(index=1, outcome="timeout"),
        CaseOutcome(index=2, outcome="not-run"),
    )
    result = verdict(REQUEST.model_copy(update={"cases": (1, 2, 3), "expected": (3, 5, 7)}),
                     outcomes)  # fmt: skip
    assert (result.status, result.reason) == ("incorrect", "timeout")
    assert verdict(REQUEST, (CaseOutcome(index=0, outcome="pass"),
                             CaseOutcome(index=1, outcome="not-run"))).status == "correct"  # fmt: skip


def test_a_fresh_container_takes_over_at_the_next_case(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    host, container = pair
    continued = {"kind": "case", "index": 0, "cleanup": "clean", "outcome": "answered", "value": 5}
    container.sendall(frame(record(1, **continued) + record(2, kind="done")))
    container.close()
    segment = judge_stream(
        StreamSession(sock=host, secret=SECRET, seq=1), REQUEST, deadline_per_case=0.5, first=1
    )
    assert segment.failure is None
    assert [(case.index, case.outcome) for case in segment.outcomes] == [(1, "pass")]


@pytest.mark.parametrize(
    ("earlier", "expected"),
    [
        ((), ("evaluator-failure", "startup-deadline", [])),
        (("pass",), ("evaluator-failure", "startup-deadline", [])),
        (("residue",), ("incorrect", "residue", ["residue", "no-result"])),
    ],
)
def test_a_later_container_that_fails_to_start_is_missing_unless_a_case_already_failed(
    earlier: tuple[str, ...], expected: tuple
) -> None:
    outcomes = [CaseOutcome(index=i, outcome=o) for i, o in enumerate(earlier)]  # type: ignore[arg-type]
    result = _cut_short(REQUEST, outcomes, "startup-deadline")
    assert (result.status, result.reason, [c.outcome for c in result.cases]) == expected


READY = {
    "kind": "ready",
    "cases": 2,
    "uid": 65534,
    "gid": 65534,
    "no_new_privs": "1",
    "seccomp": "2",
    "dumpable": 0,
    "fingerprint": policy.FRESH_FINGERPRINT,
    "ipc_limits": policy.IPC_SYSCTLS,
    "msgqueue_limit": [0, 0],
}


@pytest.mark.parametrize(
    "change",
    [
        {"fingerprint": {**READY["fingerprint"], "sysv_shm": [0]}},  # type: ignore[dict-item]
        {"fingerprint": {**READY["fingerprint"], "tmp": ["stash"]}},  # type: ignore[dict-item]
        {"fingerprint": {**READY["fingerprint"], "processes": [1, 7]}},  # type: ignore[dict-item]
        {"ipc_limits": {**READY["ipc_limits"], "kernel.shmmni": "4096"}},  # type: ignore[dict-item]
        {"ipc_limits": {}},
        {"msgqueue_limit": [819200, 819200]},
        {"cases": 1},
    ],
    ids=["shm", "tmp", "process", "ipc-limit", "no-limits", "msgqueue", "case-count"],
)
def test_a_container_that_is_not_fresh_or_lacks_the_ipc_limits_is_refused(change: dict) -> None:
    assert _ready_in_force(READY, 2)
    assert not _ready_in_force({**READY, **change}, 2)
