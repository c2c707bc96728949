"""Worker side: the pinned sandbox image on the worker's engine, verified, or the worker refused.

:class:`SandboxPlugin` is registered by every sandbox stage. On each worker (including one that
joins or restarts later) it compares the worker's Docker engine with the reference engine (the
one the self-test ran on), ``docker load``s the shipped archive when the engine lacks the pinned
image id, and checks that the loaded image has exactly that id. A ready worker then offers
``sandbox_slots_per_worker`` units of the image's resource (:mod:`~assay.compute.resources`), a
refused one none: cells ask for one unit each, so they go to every ready worker (one that joins
mid-stage too) and at most that many run at once on one. The outcome is kept per process in
:data:`_states`; :func:`evaluate_cells` reads it, so a refused worker turns every cell it is
given anyway (no worker ready) into an ``evaluator-failure`` (missing evidence, never
``incorrect``).

Cleanup on the worker side: as it starts, a worker removes every container a dead process of
its host left (a nanny restarting a killed worker runs this); :func:`end_stage` removes every
container of a stage that has ended, failed or been cancelled, after stopping its cells here.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

from distributed import Worker, WorkerPlugin, get_worker
from docker import errors as docker_errors

from assay.compute.engine import EngineIdentity, identity
from assay.compute.placed import Placed
from assay.compute.resources import offer
from assay.sandbox.engine_api import docker_client
from assay.sandbox.image import image_present
from assay.sandbox.owners import remove_orphans, remove_stage
from assay.sandbox.results import (
    CorrectnessResult,
    EvaluatorFailureReason,
    SandboxRequest,
    evaluator_failure,
)
from assay.sandbox.runner import (
    SandboxCancelled,
    cancel_stage,
    evaluate,
    remove_all_live,
)

LOAD_TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class WorkerState:
    """One worker process's readiness for one pinned image."""

    refusal: EvaluatorFailureReason | None
    detail: str
    engine: str
    loaded: bool


_states: dict[str, WorkerState] = {}
_states_lock = threading.Lock()


def check_worker(image_id: str, reference: EngineIdentity, archive: bytes | None) -> WorkerState:
    """Remove what dead processes of this host left, compare, load if needed, verify. Never
    raises: a problem is a refusal."""
    try:
        api = docker_client()
        try:
            remove_orphans(api)
            mine = identity(api)
            differences = reference.differences(mine)
            if differences:
                reason: EvaluatorFailureReason = (
                    "worker-seccomp-mismatch"
                    if any(d.startswith("seccomp") for d in differences)
                    else "worker-engine-mismatch"
                )
                return WorkerState(reason, "; ".join(differences), mine.version, False)
            loaded = False
            if not image_present(api, image_id) and archive is not None:
                api.timeout = LOAD_TIMEOUT_SECONDS
                api.load_image(archive)
                loaded = True
            if not image_present(api, image_id):
                detail = "loaded archive has another id" if loaded else "no archive shipped"
                return WorkerState("worker-image-mismatch", detail, mine.version, loaded)
            return WorkerState(None, "ready", mine.version, loaded)
        finally:
            api.close()
    except (docker_errors.DockerException, OSError) as exc:
        return WorkerState("daemon-unreachable", str(exc).splitlines()[0], "-", False)


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

    async def setup(self, worker: Worker) -> None:
        # in a thread: a docker load takes seconds, and the worker's heartbeats go on meanwhile
        state = await asyncio.to_thread(check_worker, self.image_id, self.reference, self.archive)
        with _states_lock:
            _states[self.image_id] = state
        self.archive = None  # keep the worker's memory; the state says whether it was loaded
        await offer(worker, self.name, self.slots if state.refusal is None else 0)

    def teardown(self, worker: object) -> None:
        remove_all_live()


def plugin_name(image_id: str) -> str:
    """The plugin's name, and the resource a worker ready for ``image_id`` offers."""
    return f"assay-sandbox-{image_id.removeprefix('sha256:')[:16]}"


def readiness(image_id: str) -> tuple[str | None, str, str, bool]:
    """Run on every worker by the client: (refusal, detail, engine, loaded)."""
    state = _states.get(image_id)
    if state is None:
        return ("worker-image-mismatch", "plugin not set up", "-", False)
    return (state.refusal, state.detail, state.engine, state.loaded)


class CellCancelled(Exception):
    """A cell of a stage that was cancelled before its container started (its result is
    not wanted: the client has released it)."""


def evaluate_cells(requests: list[SandboxRequest], stage: str) -> list[Placed[CorrectnessResult]]:
    """Sandboxed cells of ``stage`` on this worker, one after another, each in its own
    containers (the task holds one of the worker's slots: a unit of its image resource); a
    refused worker's cells are evaluator failures."""
    address = get_worker().address
    state = _states.get(requests[0].image) if requests else None
    if state is None:
        return [Placed(evaluator_failure("worker-image-mismatch"), address) for _ in requests]
    if state.refusal is not None:
        failure = evaluator_failure(state.refusal)
        return [Placed(failure, address, state.engine) for _ in requests]
    placed = []
    for request in requests:
        try:
            result = evaluate(request, stage=stage)
        except SandboxCancelled:
            raise CellCancelled(f"stage {stage} was cancelled") from None
        placed.append(Placed(result, address, state.engine))
    return placed


def end_stage(stage: str, *, cancelled: bool) -> int:
    """On every worker when a stage ends: stop its cells here if it was cancelled, then
    force-remove every container of it on this worker's engine (after a successful gather,
    only ones a dead worker left) and every container a dead process of this host left."""
    if cancelled:
        cancel_stage(stage)
    try:
        api = docker_client()
        try:
            return remove_stage(api, stage) + remove_orphans(api)
        finally:
            api.close()
    except (docker_errors.DockerException, OSError):
        return 0
