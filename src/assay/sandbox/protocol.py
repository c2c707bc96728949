"""Host side of the supervisor protocol (see ``sandbox/supervisor.py``): payload, records,
typed comparison. Pure functions; no Docker here.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

from assay.fixtures.model import SourceFile
from assay.sandbox.policy import OUTPUT_CAP_BYTES, cpu_budget_seconds, wall_ceiling_seconds

SECRET_BYTES = 32
RECORD_OVERHEAD_BYTES = 4096
"""Reserved out of the output cap for the ready and done records and per-case framing."""
MAX_ANSWER_BYTES = 16_384


def module_name(target: str) -> str:
    """``app/routes.py`` → ``app.routes``."""
    return target.removesuffix(".py").replace("/", ".")


def combine(files: tuple[SourceFile, ...], target: str, candidate: str) -> list[tuple[str, str]]:
    """The arm's repository with the candidate appended to the target file."""
    combined = []
    for source in files:
        text = source.text
        if source.path == target:
            text = text.rstrip("\n") + "\n\n\n" + candidate.rstrip("\n") + "\n"
        combined.append((source.path, text))
    return combined


def answer_budget(case_count: int) -> int:
    """Per-case answer bytes such that every record of a run fits the output cap."""
    return min(
        MAX_ANSWER_BYTES, (OUTPUT_CAP_BYTES - RECORD_OVERHEAD_BYTES) // max(case_count, 1) // 2
    )


def encoded_size(value: Any) -> int:
    """Bytes of ``value`` as the case child encodes it; TypeError/ValueError if not JSON."""
    return len(json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False))


def payload_bytes(
    *,
    secret: bytes,
    files: list[tuple[str, str]],
    target: str,
    cases: tuple[Any, ...],
    answer_cap: int,
    case_deadline: float,
) -> bytes:
    """The framed stdin payload: ``<length>\\n<JSON>``. Expected values are never in it.

    One candidate: its combined repository ``files``, the module of ``target`` to import, the
    case inputs to run in this container, in order, and the per-case answer cap. The case
    deadline travels with the CPU budget and wall-clock ceiling derived from it (see
    :mod:`assay.sandbox.policy`)."""
    body = json.dumps(
        {
            "secret": secret.hex(),
            "files": files,
            "module": module_name(target),
            "cases": list(cases),
            "answer_cap": answer_cap,
            "case_deadline": case_deadline,
            "cpu_budget": cpu_budget_seconds(case_deadline),
            "wall_ceiling": wall_ceiling_seconds(case_deadline),
            "output_cap": OUTPUT_CAP_BYTES,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    return str(len(body)).encode("ascii") + b"\n" + body


def verify_record(secret: bytes, line: bytes) -> dict[str, Any] | None:
    """The body of an authenticated supervisor line, or None if it is not one."""
    mac, space, body = line.partition(b" ")
    if not space or len(mac) != 64:
        return None
    expected = hmac.new(secret, body, hashlib.sha256).hexdigest().encode("ascii")
    if not hmac.compare_digest(mac, expected):
        return None
    try:
        record = json.loads(body)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def typed_equal(expected: Any, actual: Any) -> bool:
    """Equality with exact types at every level: ``1 != 1.0 != True``, ``[] != {}``."""
    if type(expected) is not type(actual):
        return False
    if isinstance(expected, list):
        return len(expected) == len(actual) and all(map(typed_equal, expected, actual))
    if isinstance(expected, dict):
        return expected.keys() == actual.keys() and all(
            typed_equal(value, actual[key]) for key, value in expected.items()
        )
    return bool(expected == actual)


@dataclass
class StreamDemuxer:
    """Splits Docker's multiplexed attach stream (8-byte headers) into supervisor lines.

    Counts every payload byte of stdout and stderr against the output cap. Bytes on stderr
    are never a record: they make the stream unauthenticated.
    """

    cap: int = OUTPUT_CAP_BYTES
    buffer: bytes = b""
    stdout: bytes = b""
    total_bytes: int = 0
    stderr_seen: bool = False

    def feed(self, data: bytes) -> list[bytes]:
        self.buffer += data
        lines: list[bytes] = []
        while len(self.buffer) >= 8:
            stream = self.buffer[0]
            size = int.from_bytes(self.buffer[4:8], "big")
            if len(self.buffer) < 8 + size:
                break
            chunk = self.buffer[8 : 8 + size]
            self.buffer = self.buffer[8 + size :]
            self.total_bytes += size
            if stream == 1:
                self.stdout += chunk
            elif size:
                self.stderr_seen = True
        while b"\n" in self.stdout:
            line, _, self.stdout = self.stdout.partition(b"\n")
            lines.append(line)
        return lines

    @property
    def over_cap(self) -> bool:
        return self.total_bytes > self.cap
