"""Host side of the supervisor protocol, without Docker."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from assay.fixtures.model import SourceFile
from assay.sandbox import protocol


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        (3, 3, True),
        (3, 3.0, False),
        (1, True, False),
        (0, False, False),
        ([1, "a"], [1, "a"], True),
        ([1], [1.0], False),
        ({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}, True),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ({"a": 1}, {"a": True}, False),
        ([], {}, False),
        ("3", 3, False),
        (None, None, True),
    ],
)
def test_typed_equal(expected: object, actual: object, equal: bool) -> None:
    assert protocol.typed_equal(expected, actual) is equal


def test_only_lines_with_the_secret_are_records() -> None:
    secret = b"k" * 32
    body = b'{"kind":"ready","seq":0}'
    mac = hmac.new(secret, body, hashlib.sha256).hexdigest().encode()
    assert protocol.verify_record(secret, mac + b" " + body) == {"kind": "ready", "seq": 0}
    assert protocol.verify_record(b"x" * 32, mac + b" " + body) is None
    assert protocol.verify_record(secret, mac + b" " + body + b" ") is None
    assert protocol.verify_record(secret, b"0" * 64 + b" " + body) is None
    assert protocol.verify_record(secret, body) is None


def frame(stream: int, data: bytes) -> bytes:
    return bytes([stream, 0, 0, 0]) + len(data).to_bytes(4, "big") + data


def test_demuxer_splits_lines_across_frames_and_counts_every_byte() -> None:
    demux = protocol.StreamDemuxer()
    stream = frame(1, b"one\ntw") + frame(1, b"o\n")
    assert demux.feed(stream[:5]) == []
    assert demux.feed(stream[5:]) == [b"one", b"two"]
    assert demux.total_bytes == 8 and not demux.stderr_seen
    demux.feed(frame(2, b"!"))
    assert demux.stderr_seen
    demux.feed(frame(1, b"x" * 70_000))
    assert demux.over_cap


def test_candidate_is_appended_to_the_target_only() -> None:
    files = (SourceFile(path="a.py", text="A = 1\n"), SourceFile(path="app/b.py", text="B = 2"))
    combined = dict(protocol.combine(files, "app/b.py", "def implement(v):\n    return v\n"))
    assert combined["a.py"] == "A = 1\n"
    assert combined["app/b.py"] == "B = 2\n\n\ndef implement(v):\n    return v\n"
    assert protocol.module_name("app/b.py") == "app.b"


def test_payload_never_holds_expected_values() -> None:
    payload = protocol.payload_bytes(
        secret=b"s" * 32, files=[("a.py", "")], target="a.py", cases=(1,), answer_cap=99,
        case_deadline=5.0,
    )  # fmt: skip
    length, _, body = payload.partition(b"\n")
    assert int(length) == len(body)
    assert b"expected" not in body
    assert json.loads(body)["module"] == "a"


def test_answer_budget_keeps_all_records_under_the_cap() -> None:
    for count in (1, 3, 10, 100):
        assert count * protocol.answer_budget(count) * 2 <= protocol.OUTPUT_CAP_BYTES
