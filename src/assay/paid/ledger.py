"""The write-ahead ledger of one run and its content-addressed response store.

Every provider attempt leaves two records, each fsync'd before the next step:

1. ``intent`` (call key, request digest, reservation) *before* the request is sent;
2. ``outcome`` (status, reason, halt, usage, cost, response digest, latency) after it.

The raw response body is stored under ``objects/<sha256>`` before its outcome is written. A
``halt`` record marks the moment admission stopped. The ledger lives outside DVC's outputs
(``params.yaml: ledger_root``), so DVC deleting stage outputs never deletes it, and it is
bound to one plan hash: ``<ledger_root>/<run>/<plan hash>/``.

A paid run's ledger is created by ``assay authorize``, which writes an ``authorization`` record
with a random token and where the ledger was created (``ledger_root`` as params.yaml gave it and
the folder's real path); the same token goes into params.yaml. The execute stage spends only
when the token in params.yaml is the latest one this ledger issued, the ledger is where it was
authorized, and no intent has been written yet. A clone, ``git clean``, a changed or moved
``ledger_root`` carry the token but not the ledger, so they find nothing to spend with.

Each line is a frozen record of ``assay.paid.ledger_records``, written as canonical JSON and read back
into its record. Reading tolerates a torn last line (a crash while writing it): a record that was never fully
written was never followed by a request, because the request is sent only after the intent's
fsync returns.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from pydantic import Field

from assay.core.digest import canonical_json, sha256_hex
from assay.core.errors import LedgerBindingError
from assay.core.records import CallKey, Frozen
from assay.paid.ledger_records import (
    LINE,
    LedgerAuthorization,
    LedgerHalt,
    LedgerHeader,
    LedgerIntent,
    LedgerLine,
    LedgerOutcome,
    Outcome,
)

LEDGER_FILE = "ledger.jsonl"

L = TypeVar("L", LedgerHeader, LedgerAuthorization, LedgerIntent, LedgerOutcome, LedgerHalt)
"""One of the ledger's line records."""


class LedgerState(Frozen):
    intents: dict[CallKey, LedgerIntent]
    """The latest intent of each call."""
    outcomes: dict[CallKey, LedgerOutcome]
    """The latest outcome of each call."""
    halt_reason: str | None
    attempts: dict[CallKey, int] = Field(default_factory=dict)
    """Intents written per call: requests sent (or about to be) for that call."""
    authorization: LedgerAuthorization | None = None
    """The latest ``authorization`` line of a paid ledger: the token params.yaml must carry."""

    @property
    def begun(self) -> bool:
        return bool(self.intents)

    @property
    def reserved_nano_usd(self) -> int:
        """What the intents written so far reserved (never refunded)."""
        return sum(intent.reservation_nano_usd for intent in self.intents.values())

    def completed(self, key: CallKey) -> bool:
        """The call's latest outcome is a completion."""
        outcome = self.outcomes.get(key)
        return outcome is not None and outcome.status == "completed"


def begun_plans(root: Path, run: str) -> dict[str, LedgerState]:
    """The plan hashes under which ``run`` began sending here, with their ledgers' states."""
    run_dir = root / run
    if not run_dir.is_dir():
        return {}
    states = {other.name: Ledger(other).state() for other in sorted(run_dir.iterdir())}
    return {plan_hash: state for plan_hash, state in states.items() if state.begun}


def _refuse_begun(root: Path, run: str, plan_hash: str) -> None:
    """A paid run id whose ledger began under another plan is spent for good."""
    for other in begun_plans(root, run):
        if other != plan_hash:
            raise LedgerBindingError(
                f"run {run!r} already spent under plan {other}; a paid run is never "
                "resumed or re-planned: declare a new run id and authorize its plan"
            )


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _now() -> float:
    return round(time.time(), 6)


class Ledger:
    """Append-only, fsync'd records of one run under one plan hash."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / LEDGER_FILE
        self.objects = directory / "objects"

    @classmethod
    def at(cls, root: Path, run: str, plan_hash: str) -> Ledger:
        """The ledger of ``run`` under ``plan_hash``, for reading; creates nothing."""
        return cls(root / run / plan_hash)

    @classmethod
    def authorize(cls, root: Path, run: str, plan_hash: str, *, ledger_root: str) -> str:
        """Create (or re-authorize) the paid ledger of ``run`` under ``plan_hash`` and return
        a fresh random token for params.yaml. Refuses once the run has begun spending: a paid
        run is authorized once, and a new authorization needs a new run id."""
        _refuse_begun(root, run, plan_hash)
        ledger = cls.open(root, run, plan_hash, paid=True)
        if ledger.state().begun:
            raise LedgerBindingError(
                f"run {run!r} already began spending under plan {plan_hash}: a paid run is "
                "authorized once; declare a new run id and authorize its plan"
            )
        token = secrets.token_hex(16)
        ledger._append(
            LedgerAuthorization(
                type="authorization",
                token=token,
                ledger_root=ledger_root,
                location=str(ledger.directory.resolve()),
                at=_now(),
            )
        )
        return token

    @classmethod
    def open(cls, root: Path, run: str, plan_hash: str, *, paid: bool) -> Ledger:
        """Open (creating if needed) the ledger of ``run`` bound to ``plan_hash``.

        A paid run refuses when another plan's ledger for the same run id has begun: a new
        plan needs a new run id, authorization and budget.
        """
        if paid:
            _refuse_begun(root, run, plan_hash)
        ledger = cls.at(root, run, plan_hash)
        ledger.objects.mkdir(parents=True, exist_ok=True)
        if not ledger.path.exists():
            ledger._append(
                LedgerHeader(type="header", run=run, plan_hash=plan_hash, paid=paid, at=_now())
            )
            _fsync_dir(ledger.directory)
        header = next(ledger.records(), None)
        if not isinstance(header, LedgerHeader) or header.plan_hash != plan_hash:
            raise LedgerBindingError(f"{ledger.path}: ledger is bound to another plan hash")
        return ledger

    @contextmanager
    def exclusive(self) -> Iterator[Ledger]:
        """Hold the ledger for one execute invocation; a second process at the same time is
        refused rather than allowed to read the same unbegun state and send too."""
        fd = os.open(self.directory / ".lock", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise LedgerBindingError(
                    f"{self.directory}: another process is executing this run now; wait for it "
                    "(nothing was sent by this one)"
                ) from None
            yield self
        finally:
            os.close(fd)

    def _append(self, line: L) -> L:
        """Append ``line`` (fsync'd) and return it."""
        data = canonical_json(line.model_dump(mode="json")) + b"\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return line

    def records(self) -> Iterator[LedgerLine]:
        """Every complete line, in the order written, as its record."""
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    return  # torn last line: never completed, never acted on
                yield LINE.validate_json(raw)

    def state(self) -> LedgerState:
        intents: dict[CallKey, LedgerIntent] = {}
        outcomes: dict[CallKey, LedgerOutcome] = {}
        attempts: dict[CallKey, int] = {}
        halt_reason = None
        authorization = None
        for line in self.records():
            if isinstance(line, LedgerIntent):
                intents[line.key] = line
                attempts[line.key] = attempts.get(line.key, 0) + 1
            elif isinstance(line, LedgerOutcome):
                outcomes[line.key] = line
            elif isinstance(line, LedgerHalt) and halt_reason is None:
                halt_reason = line.reason
            elif isinstance(line, LedgerAuthorization):
                authorization = line
        return LedgerState(
            intents=intents,
            outcomes=outcomes,
            halt_reason=halt_reason,
            attempts=attempts,
            authorization=authorization,
        )

    def write_intent(
        self, key: CallKey, *, request_digest: str, reservation_nano_usd: int
    ) -> LedgerIntent:
        return self._append(
            LedgerIntent(
                type="intent",
                key=key,
                request_digest=request_digest,
                reservation_nano_usd=reservation_nano_usd,
                at=_now(),
            )
        )

    def write_outcome(
        self, key: CallKey, outcome: Outcome, *, raw: bytes, text: str | None
    ) -> LedgerOutcome:
        """Store the raw body and the completion text, then record the outcome."""
        response_digest = self.store(raw) if raw else None
        text_digest = self.store(text.encode("utf-8")) if text is not None else None
        return self._append(LedgerOutcome.of(key, outcome, response_digest, text_digest, _now()))

    def write_halt(self, reason: str) -> None:
        self._append(LedgerHalt(type="halt", reason=reason, at=_now()))

    def store(self, body: bytes) -> str:
        """Store a response body content-addressed (fsync'd); returns its sha256."""
        digest = sha256_hex(body)
        target = self.objects / digest
        if not target.exists():
            temporary = self.objects / f".{digest}.tmp"
            with temporary.open("wb") as handle:
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
            _fsync_dir(self.objects)
        return digest

    def load(self, digest: str) -> bytes:
        return (self.objects / digest).read_bytes()

    def find(self, digest: str) -> bytes | None:
        """The stored body of ``digest``; ``None`` when this ledger never stored it."""
        stored = self.objects / digest
        return stored.read_bytes() if stored.is_file() else None

    def text(self, outcome: LedgerOutcome) -> str | None:
        """The completion text an outcome names (``None``: it had none)."""
        digest = outcome.text_digest
        return self.load(digest).decode("utf-8") if digest else None
