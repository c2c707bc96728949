"""Worker side: the pinned sandbox image on the worker's engine, verified, or the worker refused.

:class:`SandboxPlugin` is registered by every sandbox stage. On each worker (including one that
joins or restarts later) it compares the worker's Docker engine with the reference engine (the
one the self-test ran on), ``docker load``s the shipped archive when the engine lacks the pinned
image id, and checks that the loaded image has exactly that id. The outcome is kept per process
in :data:`_states`; :func:`evaluate_cell` reads it, so a refused worker turns every cell it gets
into an ``evaluator-failure`` (missing evidence, never ``incorrect``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from distributed import WorkerPlugin, get_worker
from docker import errors as docker_errors

from assay.compute.engine import EngineIdentity, has_image, identity
from assay.compute.placed import Placed
from assay.sandbox.results import (
    CorrectnessResult,
    EvaluatorFailureReason,
    SandboxRequest,
    evaluator_failure,
)
from assay.sandbox.runner import docker_client, evaluate, live_count, remove_all_live

LOAD_TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class WorkerState:
    """One worker process's readiness for one pinned image."""

    refusal: EvaluatorFailureReason | None
    detail: str
    engine: str
    loaded: bool
    slots: threading.BoundedSemaphore


_states: dict[str, WorkerState] = {}
_states_lock = threading.Lock()


def check_worker(
    image_id: str, reference: EngineIdentity, archive: bytes | None, slots: int
) -> WorkerState:
    """Compare, load if needed, verify. Never raises: a problem is a refusal."""
    gate = threading.BoundedSemaphore(slots)
    try:
        api = docker_client()
        try:
            mine = identity(api)
            differences = reference.differences(mine)
            if differences:
                reason: EvaluatorFailureReason = (
                    "worker-seccomp-mismatch"
                    if any(d.startswith("seccomp") for d in differences)
                    else "worker-engine-mismatch"
                )
                return WorkerState(reason, "; ".join(differences), mine.version, False, gate)
            loaded = False
            if not has_image(api, image_id) and archive is not None:
                api.timeout = LOAD_TIMEOUT_SECONDS
                api.load_image(archive)
                loaded = True
            if not has_image(api, image_id):
                detail = "loaded archive has another id" if loaded else "no archive shipped"
                return WorkerState("worker-image-mismatch", detail, mine.version, loaded, gate)
            return WorkerState(None, "ready", mine.version, loaded, gate)
        finally:
            api.close()
    except (docker_errors.DockerException, OSError) as exc:
        return WorkerState("daemon-unreachable", str(exc).splitlines()[0], "-", False, gate)


class SandboxPlugin(WorkerPlugin):
    """Registered under one name per image id; re-registering (with the archive) replaces it."""

    def __init__(
        self, image_id: str, reference: EngineIdentity, slots: int, archive: bytes | None = None
    ) -> None:
        self.image_id = image_id
        self.reference = reference
        self.slots = slots
        self.archive = archive
        self.name = plugin_name(image_id)

    def setup(self, worker: object) -> None:
        state = check_worker(self.image_id, self.reference, self.archive, self.slots)
        with _states_lock:
            _states[self.image_id] = state
        self.archive = None  # keep the worker's memory; the state says whether it was loaded

    def teardown(self, worker: object) -> None:
        remove_all_live()


def plugin_name(image_id: str) -> str:
    return f"assay-sandbox-{image_id.removeprefix('sha256:')[:16]}"


def readiness(image_id: str) -> tuple[str | None, str, str, bool]:
    """Run on every worker by the client: (refusal, detail, engine, loaded)."""
    state = _states.get(image_id)
    if state is None:
        return ("worker-image-mismatch", "plugin not set up", "-", False)
    return (state.refusal, state.detail, state.engine, state.loaded)


def evaluate_cell(request: SandboxRequest) -> Placed[CorrectnessResult]:
    """One sandboxed cell on this worker, within its slots; a refused worker's cells are
    evaluator failures."""
    address = get_worker().address
    state = _states.get(request.image)
    if state is None:
        return Placed(evaluator_failure("worker-image-mismatch"), address)
    if state.refusal is not None:
        return Placed(evaluator_failure(state.refusal), address, state.engine)
    with state.slots:
        return Placed(evaluate(request), address, state.engine)


def remove_live_containers(settle_seconds: float = 1.0, limit_seconds: float = 10.0) -> int:
    """Cancel on this worker: force-remove every live sandbox container until none has appeared
    for ``settle_seconds`` (a cell already past its start check may still create one)."""
    removed = 0
    end = time.monotonic() + limit_seconds
    quiet_since = time.monotonic()
    while time.monotonic() < end and time.monotonic() - quiet_since < settle_seconds:
        live = live_count()
        if live:
            removed += live
            remove_all_live()
            quiet_since = time.monotonic()
        time.sleep(0.05)
    return removed
