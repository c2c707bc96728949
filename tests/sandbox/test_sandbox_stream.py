"""The host's judgement of the supervisor stream after the ready record, without Docker: a
socket pair stands in for the attach stream. After ready, every failure counts against the
candidate."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
from collections.abc import Iterator

import pytest
from sandbox_testkit import CORPUS_FILES, CORPUS_TARGET, RIGHT

from assay.sandbox import SandboxRequest
from assay.sandbox.runner import StreamSession, judge_stream

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


CASE0 = {"kind": "case", "unit": 0, "index": 0, "outcome": "answered", "value": 3}
CASE1 = {"kind": "case", "unit": 0, "index": 1, "outcome": "answered", "value": 5}


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
    result = judge_stream(
        StreamSession(sock=host, secret=SECRET, seq=1), REQUEST, deadline_per_case=0.5
    )
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


STARVED = {"kind": "case", "unit": 0, "index": 1, "outcome": "starved"}


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
