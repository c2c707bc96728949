"""Hardened containers for evaluations: create, attach, stream, kill, remove. A container runs
one candidate's cases (:func:`evaluate`), never another candidate's: several candidates in one
container could not be proven to get the verdicts they get alone (a case sees the container's
PID counter and its cgroup's cumulative CPU time and peak memory, which no cleanup can reset;
``benchmarks/sandbox_batching.py`` measures what sharing containers gained).

Between cases the supervisor removes whatever the case made and checks the container against
the fingerprint it had when fresh. A case whose leftovers survive that cleanup is charged with
them (outcome ``residue``); when the cleanup could not be verified (not the case's doing) the
case keeps its outcome. Either way that container ends and the remaining cases run in a fresh
one, never charged with what an earlier case left.

Errors are translated here, once: Docker and socket failures before the authenticated ready
record become ``evaluator-failure`` (missing evidence); after it, anything short of a valid
record for every case counts against the candidate (``incorrect``), except a case the host
starved of CPU (``starved``), which is missing evidence (``host-overloaded``) unless another
case failed on the candidate's own account. The supervisor measures deadlines in CPU time and
time not spent waiting for a CPU, so host load slows a case down without timing it out.

A case that times out ends its candidate: the candidate is ``incorrect`` whatever its other
cases give (a verdict's reason is its first failing case, and no case after a timeout comes
before it), and each of them could cost the whole deadline again, as a looping candidate loops
on every input. The container is removed there and the remaining cases are recorded as
``not-run``.

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
from typing import Any, Literal

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


def _ready_in_force(record: dict[str, Any], cases: int) -> bool:
    """The ready record shows the hardening in force and a fresh container."""
    limits = record.get("ipc_limits")
    return (
        record.get("kind") == "ready"
        and record.get("cases") == cases
        and record.get("uid") == 65534
        and record.get("gid") == 65534
        and record.get("no_new_privs") == "1"
        and record.get("seccomp") == "2"
        and record.get("dumpable") == 0
        and record.get("fingerprint") == policy.FRESH_FINGERPRINT
        and isinstance(limits, dict)
        and all(limits.get(name) == value for name, value in policy.IPC_SYSCTLS.items())
        and record.get("msgqueue_limit") == [policy.MSGQUEUE_LIMIT] * 2
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
CLEANUP_STATES = frozenset({"clean", "residue", "unverified"})
"""How the cleanup after a case went (see ``sandbox/supervisor.py``: ``clean_up``)."""
CANDIDATE_FAILURES_EXCLUDE = frozenset({"pass", "starved", "not-run"})
ENDS_THE_CANDIDATE = frozenset({"timeout"})
"""Case outcomes after which the candidate's remaining cases are not run (see the module's
docstring)."""


def _case_outcome(index: int, record: dict[str, Any], expected: Any) -> CaseOutcome | None:
    """The host's outcome of one case record; None if the record is not a valid one. A case
    that left something the cleanup could not remove is charged with it, whatever it answered."""
    if record.get("cleanup") not in CLEANUP_STATES:
        return None
    if record["cleanup"] == "residue":
        return CaseOutcome(index=index, outcome="residue")
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


@dataclass(frozen=True)
class Segment:
    """What one container said about a candidate's cases from some index on."""

    outcomes: tuple[CaseOutcome, ...]
    failure: str | None = None
    """A stream failure (:data:`~assay.sandbox.results.StreamFailureReason`) after the ready
    record: counted against the candidate, whose case held the container then."""


def judge_stream(
    session: StreamSession, request: SandboxRequest, deadline_per_case: float, *, first: int = 0
) -> Segment:
    """After the ready record of a container running ``request``'s cases from ``first`` on:
    a valid ``case`` record for each, in order, then ``done``. ``done`` comes early right after
    a case whose cleanup was not clean: the remaining cases then run in a fresh container. A case
    in :data:`ENDS_THE_CANDIDATE` ends the segment at once (the container is removed mid-run)."""
    outcomes: list[CaseOutcome] = []
    for index in range(first, len(request.expected)):
        record = session.next_record(time.monotonic() + deadline_per_case)
        if isinstance(record, str):
            return Segment(tuple(outcomes), record)
        outcome = (
            _case_outcome(index, record, request.expected[index])
            if record.get("kind") == "case" and record.get("index") == index - first
            else None
        )
        if outcome is None:
            return Segment(tuple(outcomes), "tampering")
        outcomes.append(outcome)
        if outcome.outcome in ENDS_THE_CANDIDATE:
            return Segment(tuple(outcomes))
        if record["cleanup"] != "clean":
            break
    done = session.next_record(time.monotonic() + deadline_per_case)
    if isinstance(done, str):
        return Segment(tuple(outcomes), done)
    if done.get("kind") != "done":
        return Segment(tuple(outcomes), "tampering")
    return Segment(tuple(outcomes))


def _candidate_failures(outcomes: Sequence[CaseOutcome]) -> list[CaseOutcome]:
    return [case for case in outcomes if case.outcome not in CANDIDATE_FAILURES_EXCLUDE]


def _unfinished(
    request: SandboxRequest,
    outcomes: Sequence[CaseOutcome],
    rest_are: Literal["no-result", "not-run"] = "no-result",
) -> tuple[CaseOutcome, ...]:
    rest = range(len(outcomes), len(request.expected))
    return (*outcomes, *(CaseOutcome(index=index, outcome=rest_are) for index in rest))


def verdict(
    request: SandboxRequest, outcomes: Sequence[CaseOutcome], stream_failure: str | None = None
) -> CorrectnessResult:
    """The result of a candidate's recorded cases (every case, unless the stream failed)."""
    if stream_failure is not None:
        return CorrectnessResult(
            status="incorrect", reason=stream_failure, cases=_unfinished(request, outcomes)
        )
    failing = _candidate_failures(outcomes)
    if failing:
        return CorrectnessResult(
            status="incorrect", reason=failing[0].outcome, cases=tuple(outcomes)
        )
    if any(case.outcome == "starved" for case in outcomes):
        return evaluator_failure("host-overloaded")
    return CorrectnessResult(status="correct", reason="all-cases-passed", cases=tuple(outcomes))


def _cut_short(
    request: SandboxRequest, outcomes: Sequence[CaseOutcome], reason: EvaluatorFailureReason
) -> CorrectnessResult:
    """A container failed before its ready record: missing evidence, unless a case an earlier
    container ran had already failed on the candidate's own account."""
    failing = _candidate_failures(outcomes)
    if not failing:
        return evaluator_failure(reason)
    return CorrectnessResult(
        status="incorrect", reason=failing[0].outcome, cases=_unfinished(request, outcomes)
    )


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
    """Run one candidate against its cases in a fresh hardened container (a further fresh one
    for the remaining cases whenever a case's cleanup was not clean); labelled with ``stage``
    when it is one of a Dask stage's cells (:func:`cancel_stage` stops them)."""
    failure = _precheck(request)
    if failure is not None:
        return evaluator_failure(failure)
    with removal_on_signals():
        try:
            api = docker_client()
        except (docker_errors.DockerException, OSError):
            return evaluator_failure("daemon-unreachable")
        try:
            try:
                api.ping()
            except (docker_errors.DockerException, OSError):
                return evaluator_failure("daemon-unreachable")
            outcomes: list[CaseOutcome] = []
            while len(outcomes) < len(request.cases):
                segment = _run_container(api, request, len(outcomes), stage)
                if isinstance(segment, str):
                    return _cut_short(request, outcomes, segment)
                outcomes.extend(segment.outcomes)
                if segment.failure is not None:
                    return verdict(request, outcomes, segment.failure)
                if outcomes[-1].outcome in ENDS_THE_CANDIDATE:
                    return verdict(request, _unfinished(request, outcomes, "not-run"))
            return verdict(request, outcomes)
        finally:
            api.close()


def _run_container(
    api: docker.APIClient, request: SandboxRequest, first: int, stage: str | None
) -> Segment | EvaluatorFailureReason:
    """One fresh container for ``request``'s cases from ``first`` on: what it said about them,
    or why it failed before its authenticated ready record."""
    image_id = request.image
    try:
        image = api.inspect_image(image_id)
    except docker_errors.NotFound:
        return "image-missing"
    except (docker_errors.DockerException, OSError):
        return "daemon-unreachable"
    if image.get("Id") != image_id:
        return "image-missing"
    if _stopping(stage):
        raise SandboxCancelled(signal.SIGTERM)
    limits = policy.PROFILES[request.profile]
    name = container_name()
    secret = secrets.token_bytes(protocol.SECRET_BYTES)
    cases = request.cases[first:]
    payload = protocol.payload_bytes(
        secret=secret,
        files=protocol.combine(request.files, request.target, request.candidate),
        target=request.target,
        cases=cases,
        # the whole candidate's budget, so a case's cap is the same in whichever container
        answer_cap=protocol.answer_budget(len(request.cases)),
        case_deadline=limits.case_deadline_seconds,
    )
    startup_end = time.monotonic() + policy.STARTUP_DEADLINE_SECONDS
    with _live_lock:
        _live.add(name)
    sock: socket.socket | None = None
    try:
        try:
            host_config = api.create_host_config(**policy.host_config_options(request.profile))
            api.create_container(
                image_id,
                host_config=host_config,
                **policy.container_options(request.profile, name, owners.labels(stage)),
            )
        except (docker_errors.DockerException, OSError):
            return "container-create-failed"
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
            return "startup-deadline"
        except (docker_errors.DockerException, OSError):
            return "container-start-failed"
        if _stopping(stage):  # cancelled while this container was being created
            raise SandboxCancelled(signal.SIGTERM)
        session = StreamSession(sock=sock, secret=secret)
        ready = session.next_record(startup_end)
        if ready == "supervisor-silent":
            return "startup-deadline"
        if isinstance(ready, str):
            return "startup-failed"
        if not _ready_in_force(ready, len(cases)):
            return "policy-not-in-force"
        deadline_per_case = limits.case_ceiling_seconds + policy.RECORD_SLACK_SECONDS
        return judge_stream(session, request, deadline_per_case, first=first)
    finally:
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()
        remove_container(api, name)
        with _live_lock:
            _live.discard(name)
