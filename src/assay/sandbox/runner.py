"""Hardened containers for evaluations: create, attach, stream, kill, remove. One container
runs one candidate (:func:`evaluate`) or several in turn (:func:`evaluate_batch`).

Errors are translated here, once: Docker and socket failures before the authenticated ready
record become ``evaluator-failure`` (missing evidence); after it, anything short of a valid
record for every case counts against the candidate (``incorrect``), except a case the host
starved of CPU (``starved``), which is missing evidence (``host-overloaded``) unless another
case failed on the candidate's own account. The supervisor measures deadlines in CPU time and
time not spent waiting for a CPU, so host load slows a case down without timing it out.

Cleanup: every container is uniquely named ``assay-sandbox-<pid>-<random>``, labelled with its
owner process (and its Dask stage, if any; :mod:`assay.sandbox.owners`), registered while
alive, and force-removed on every exit path. :func:`removal_on_signals` turns SIGTERM/SIGINT
into :class:`SandboxCancelled` in the main thread so ``finally`` blocks run and the caller waits
for removal; a caller killed outright (SIGKILL) closes the attach stream, the supervisor sees
its stdin end and exits, and the daemon auto-removes the container. A container such a caller
had created but not started yet is removed by the next sweep of orphans on that host
(:func:`assay.sandbox.owners.remove_orphans`). :func:`cancel_stage` stops one Dask stage's
cells in this process without touching other stages'.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import select
import signal
import socket
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import docker
from docker import errors as docker_errors

from assay.sandbox import owners, policy, protocol
from assay.sandbox.engine_api import docker_client, remove_container
from assay.sandbox.results import (
    CaseOutcome,
    CorrectnessResult,
    EvaluatorFailureReason,
    SandboxRequest,
    evaluator_failure,
    truncated,
)

READ_CHUNK = 65_536


class SandboxCancelled(BaseException):
    """The caller received SIGTERM or SIGINT; containers were removed before this propagates."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"cancelled by signal {signum}")
        self.signum = signum


_live_lock = threading.Lock()
_live: set[str] = set()
cancelled = threading.Event()
_cancelled_stages: set[str] = set()


def cancel_stage(stage: str) -> None:
    """No container of ``stage`` starts in this process from now on; one being created raises
    :class:`SandboxCancelled` once it exists (the caller then removes it by its label)."""
    with _live_lock:
        _cancelled_stages.add(stage)


def _stopping(stage: str | None) -> bool:
    if cancelled.is_set():
        return True
    with _live_lock:
        return stage is not None and stage in _cancelled_stages


def container_name() -> str:
    return f"{policy.CONTAINER_NAME_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"


def live_count() -> int:
    """Containers this process has created and not yet removed."""
    with _live_lock:
        return len(_live)


def remove_all_live() -> None:
    with _live_lock:
        names = list(_live)
    if not names:
        return
    api = docker_client()
    try:
        for name in names:
            remove_container(api, name)
    finally:
        api.close()


@contextlib.contextmanager
def removal_on_signals() -> Iterator[None]:
    """In the main thread: SIGTERM/SIGINT raise :class:`SandboxCancelled` after every live
    container is removed. Elsewhere: no change (signals are only delivered to the main thread).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    cancelled.clear()

    def cancel(signum: int, frame: FrameType | None) -> None:
        cancelled.set()
        remove_all_live()
        raise SandboxCancelled(signum)

    previous = {sig: signal.signal(sig, cancel) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@dataclass
class StreamSession:
    """The host's view of one running container."""

    sock: socket.socket
    secret: bytes
    demux: protocol.StreamDemuxer = field(default_factory=protocol.StreamDemuxer)
    pending: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    tampered: bool = False
    ended: bool = False

    def next_record(self, deadline: float) -> dict[str, Any] | str:
        """The next authenticated record, or a stream failure reason."""
        while not self.pending:
            if self.tampered or self.demux.stderr_seen:
                return "tampering"
            if self.demux.over_cap:
                return "output-flood"
            if self.ended:
                return "stream-truncated"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "supervisor-silent"
            readable, _, _ = select.select([self.sock], [], [], remaining)
            if not readable:
                continue
            try:
                data = self.sock.recv(READ_CHUNK)
            except OSError:
                data = b""
            if not data:
                self.ended = True
                continue
            for line in self.demux.feed(data):
                record = protocol.verify_record(self.secret, line)
                if record is None or record.get("seq") != self.seq:
                    self.tampered = True
                    break
                self.seq += 1
                self.pending.append(record)
        return self.pending.pop(0)


def _ready_in_force(record: dict[str, Any]) -> bool:
    return (
        record.get("kind") == "ready"
        and record.get("uid") == 65534
        and record.get("gid") == 65534
        and record.get("no_new_privs") == "1"
        and record.get("seccomp") == "2"
        and record.get("dumpable") == 0
    )


SUPERVISOR_OUTCOMES = frozenset(
    {
        "wrong-type",
        "timeout",
        "abnormal-exit",
        "tampering",
        "output-flood",
        "oversized-answer",
        "starved",
    }
)
"""Case outcomes the supervisor decides itself; ``pass`` and ``wrong-value`` only the host does."""


def _case_outcome(index: int, record: dict[str, Any], expected: Any) -> CaseOutcome | None:
    """The host's outcome of one case record; None if the record is not a valid one."""
    outcome = record.get("outcome")
    if outcome == "answered" and "value" in record:
        if protocol.typed_equal(expected, record["value"]):
            return CaseOutcome(index=index, outcome="pass")
        actual = json.dumps(record["value"], ensure_ascii=False, sort_keys=True)
        return CaseOutcome(index=index, outcome="wrong-value", actual=truncated(actual))
    if outcome == "exception" and isinstance(record.get("exception_type"), str):
        message = record.get("exception_message")
        return CaseOutcome(
            index=index,
            outcome="exception",
            exception_type=record["exception_type"],
            exception_message=truncated(message) if isinstance(message, str) else None,
        )
    if outcome in SUPERVISOR_OUTCOMES:
        return CaseOutcome.model_validate({"index": index, "outcome": outcome})
    return None


def judge_stream(
    session: StreamSession, request: SandboxRequest, deadline_per_case: float
) -> CorrectnessResult:
    """After the ready record of a one-unit container: every case must have a valid record, in
    order, then ``done``."""
    result, _ = judge_unit(session, request, deadline_per_case, unit=0, last=True)
    return result


def judge_unit(
    session: StreamSession,
    request: SandboxRequest,
    deadline_per_case: float,
    *,
    unit: int,
    last: bool,
) -> tuple[CorrectnessResult, bool]:
    """The result of ``unit`` (its cases' records, in order; ``done`` after the ``last`` one),
    and whether the stream is still intact after it. A stream failure counts against the unit
    whose case was running (its candidate held the container then), never against a later one.
    """
    outcomes: list[CaseOutcome] = []
    stream_failure: str | None = None
    for index, expected in enumerate(request.expected):
        record = session.next_record(time.monotonic() + deadline_per_case)
        if isinstance(record, str):
            stream_failure = record
            break
        if (
            record.get("kind") != "case"
            or record.get("unit") != unit
            or record.get("index") != index
        ):
            stream_failure = "tampering"
            break
        outcome = _case_outcome(index, record, expected)
        if outcome is None:
            stream_failure = "tampering"
            break
        outcomes.append(outcome)
    if stream_failure is None and last:
        done = session.next_record(time.monotonic() + deadline_per_case)
        if isinstance(done, str) or done.get("kind") != "done":
            stream_failure = done if isinstance(done, str) else "tampering"
    if stream_failure is not None:
        outcomes.extend(
            CaseOutcome(index=index, outcome="no-result")
            for index in range(len(outcomes), len(request.expected))
        )
        failed = CorrectnessResult(status="incorrect", reason=stream_failure, cases=tuple(outcomes))
        return failed, False
    failing = [case for case in outcomes if case.outcome not in ("pass", "starved")]
    if not failing and any(case.outcome == "starved" for case in outcomes):
        return evaluator_failure("host-overloaded"), True
    if failing:
        result = CorrectnessResult(
            status="incorrect", reason=failing[0].outcome, cases=tuple(outcomes)
        )
        return result, True
    return CorrectnessResult(
        status="correct", reason="all-cases-passed", cases=tuple(outcomes)
    ), True


def _precheck(request: SandboxRequest) -> EvaluatorFailureReason | None:
    if not request.cases or len(request.cases) != len(request.expected):
        return "invalid-request"
    if not (request.image.startswith("sha256:") and len(request.image) == 71):
        return "image-not-pinned"
    try:
        sizes = [protocol.encoded_size(value) for value in (*request.cases, *request.expected)]
    except (TypeError, ValueError):  # not JSON (a TOML datetime, NaN): cannot cross the protocol
        return "invalid-request"
    budget = protocol.answer_budget(len(request.cases))
    if any(size > budget for size in sizes[len(request.cases) :]):
        return "expected-too-large"
    return None


def evaluate(request: SandboxRequest, *, stage: str | None = None) -> CorrectnessResult:
    """Run one candidate against its cases in a fresh hardened container (labelled with
    ``stage`` when it is one of a Dask stage's cells)."""
    return evaluate_batch([request], stage=stage)[0]


def evaluate_batch(
    requests: Sequence[SandboxRequest], *, stage: str | None = None
) -> list[CorrectnessResult]:
    """Run several candidates in fresh hardened containers, as few as possible: one per image
    and profile, and a fresh one for the rest of a batch after a candidate broke its stream.
    Results in request order, each what :func:`evaluate` alone would give: the supervisor runs
    every case of every unit as it would alone (fresh child, every other process killed, /tmp
    wiped, the unit's repository written again). ``stage``: the Dask stage they belong to, if
    any (a label on each container; :func:`cancel_stage` stops them)."""
    results: list[CorrectnessResult | None] = [None] * len(requests)
    pending: dict[tuple[str, str], list[int]] = {}
    for position, request in enumerate(requests):
        failure = _precheck(request)
        if failure is not None:
            results[position] = evaluator_failure(failure)
        else:
            pending.setdefault((request.image, request.profile), []).append(position)
    if pending:
        with removal_on_signals():
            try:
                api = docker_client()
                api.ping()
            except (docker_errors.DockerException, OSError):
                for positions in pending.values():
                    for position in positions:
                        results[position] = evaluator_failure("daemon-unreachable")
                return [result for result in results if result is not None]
            try:
                for positions in pending.values():
                    while positions:
                        judged = _evaluate_in_one_container(
                            api, [requests[position] for position in positions], stage
                        )
                        for position, result in zip(positions, judged, strict=False):
                            results[position] = result
                        positions = positions[len(judged) :]
            finally:
                api.close()
    return [result for result in results if result is not None]


def _evaluate_in_one_container(
    api: docker.APIClient, requests: list[SandboxRequest], stage: str | None
) -> list[CorrectnessResult]:
    """Results for a prefix of ``requests`` (all of them, unless a candidate broke the stream:
    then up to and including that one). Every request shares one image and profile."""
    image_id, profile = requests[0].image, requests[0].profile
    try:
        image = api.inspect_image(image_id)
    except docker_errors.NotFound:
        return [evaluator_failure("image-missing")] * len(requests)
    except (docker_errors.DockerException, OSError):
        return [evaluator_failure("daemon-unreachable")] * len(requests)
    if image.get("Id") != image_id:
        return [evaluator_failure("image-missing")] * len(requests)
    if _stopping(stage):
        raise SandboxCancelled(signal.SIGTERM)
    limits = policy.PROFILES[profile]
    name = container_name()
    secret = secrets.token_bytes(protocol.SECRET_BYTES)
    payload = protocol.payload_bytes(
        secret=secret,
        units=[
            protocol.PayloadUnit(
                files=protocol.combine(request.files, request.target, request.candidate),
                target=request.target,
                cases=request.cases,
                answer_cap=protocol.answer_budget(len(request.cases)),
            )
            for request in requests
        ],
        case_deadline=limits.case_deadline_seconds,
    )
    startup_end = time.monotonic() + policy.STARTUP_DEADLINE_SECONDS
    with _live_lock:
        _live.add(name)
    sock: socket.socket | None = None

    def failed(reason: EvaluatorFailureReason) -> list[CorrectnessResult]:
        return [evaluator_failure(reason)] * len(requests)

    try:
        try:
            host_config = api.create_host_config(**policy.host_config_options(profile))
            api.create_container(
                image_id,
                host_config=host_config,
                **policy.container_options(profile, name, owners.labels(stage)),
            )
        except (docker_errors.DockerException, OSError):
            return failed("container-create-failed")
        try:
            raw = api.attach_socket(
                name, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
            sock = getattr(raw, "_sock", raw)
            api.start(name)
            sock.settimeout(max(startup_end - time.monotonic(), 0.001))
            sock.sendall(payload)
            sock.setblocking(True)
        except TimeoutError:
            return failed("startup-deadline")
        except (docker_errors.DockerException, OSError):
            return failed("container-start-failed")
        if _stopping(stage):  # cancelled while this container was being created
            raise SandboxCancelled(signal.SIGTERM)
        session = StreamSession(
            sock=sock,
            secret=secret,
            demux=protocol.StreamDemuxer(cap=protocol.OUTPUT_CAP_BYTES * len(requests)),
        )
        ready = session.next_record(startup_end)
        if ready == "supervisor-silent":
            return failed("startup-deadline")
        if isinstance(ready, str):
            return failed("startup-failed")
        if not _ready_in_force(ready) or ready.get("cases") != [len(r.cases) for r in requests]:
            return failed("policy-not-in-force")
        deadline_per_case = limits.case_ceiling_seconds + policy.RECORD_SLACK_SECONDS
        judged: list[CorrectnessResult] = []
        for unit, request in enumerate(requests):
            result, intact = judge_unit(
                session, request, deadline_per_case, unit=unit, last=unit == len(requests) - 1
            )
            judged.append(result)
            if not intact:
                break
        return judged
    finally:
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()
        remove_container(api, name)
        with _live_lock:
            _live.discard(name)
