"""Sandboxed cells evaluated on this machine or on the Dask cluster ``params.yaml: compute``
names (:mod:`~assay.compute.sandbox_cluster`), gathered in request order.

Every ``correct`` or ``incorrect`` result is remembered under the digest of its request, the
sandbox policy version and the Docker engine (:mod:`assay.core.memo`). With ``recall=True`` a
remembered result is taken instead of evaluating the same request again (the correctness
stage: its placement says ``memo``; the self-test, for the references only: its known-wrong
implementation always runs, to show the sandbox works now).

Dask is imported only when a cluster is named: it adds about 0.4 s to the start of every
self-test and correctness stage, which run locally by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assay.compute.engine import EngineIdentity, local_identity
from assay.compute.placed import LOCAL, Placed
from assay.config.params import Compute
from assay.core.memo import Memo, code_digest, key_of
from assay.sandbox.parallel import default_workers, evaluate_many
from assay.sandbox.policy import policy_version
from assay.sandbox.results import CorrectnessResult, SandboxRequest

MEMO = "memo"
"""The worker name of a result remembered from an earlier evaluation of the same request."""
REMEMBERED = ("correct", "incorrect")
SANDBOX_CODE = Path(__file__).resolve().parents[1] / "sandbox"
"""The host side of an evaluation (the image holds the rest, and its id is in the request)."""


def memo_key(request: SandboxRequest, engine: EngineIdentity) -> str:
    return key_of(
        {
            "request": request.model_dump(mode="json"),
            "policy": policy_version(),
            "engine": engine.model_dump(mode="json"),
            "code": code_digest(SANDBOX_CODE),
        }
    )


def evaluate_placed(
    requests: Sequence[SandboxRequest],
    compute: Compute,
    image: str,
    *,
    archive: Path | None = None,
    description: str | None = None,
    recall: bool = False,
) -> list[Placed[CorrectnessResult]]:
    """Every request evaluated, in request order, here or on the cluster ``compute`` names
    (``archive``: the pinned image's ``docker save``, for workers that lack it; with a
    ``description``, progress goes to stderr here). With ``recall``, a request evaluated before
    on this engine under this policy is not evaluated again."""
    if not requests:
        return []
    memo = Memo("sandbox")
    engine = local_identity() if memo.enabled or not compute.distributed else None
    keys = [memo_key(r, engine) for r in requests] if engine is not None and memo.enabled else []
    placed: dict[int, Placed[CorrectnessResult]] = {}
    if recall and keys:
        for index, key in enumerate(keys):
            found = memo.get(key)
            if found is not None:
                placed[index] = Placed(
                    CorrectnessResult.model_validate(found), MEMO, found_engine(engine)
                )
    todo = [i for i in range(len(requests)) if i not in placed]
    for index, result in zip(
        todo,
        _evaluate([requests[i] for i in todo], compute, image, archive, description, len(placed)),
        strict=True,
    ):
        placed[index] = result
        if keys and result.value.status in REMEMBERED:
            memo.put(keys[index], result.value.model_dump(mode="json"))
    return [placed[i] for i in range(len(requests))]


def found_engine(engine: EngineIdentity | None) -> str:
    return engine.version if engine is not None else "-"


def _evaluate(
    requests: Sequence[SandboxRequest],
    compute: Compute,
    image: str,
    archive: Path | None,
    description: str | None,
    remembered: int,
) -> list[Placed[CorrectnessResult]]:
    if not compute.distributed:
        engine = local_identity().version
        results = evaluate_many(
            requests,
            workers=default_workers(),
            description=description,
            already_done=remembered,
        )
        return [Placed(result, LOCAL, engine) for result in results]
    if not requests:
        return []
    from assay.compute.client import connect
    from assay.compute.sandbox_cluster import evaluate_on_cluster

    with connect(compute) as client:
        return evaluate_on_cluster(client, requests, compute, image, archive)
