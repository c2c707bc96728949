"""The sandbox runtime a plan binds: the Docker engine and client, and the runtime policy
(limits, profiles, deadlines; :func:`assay.sandbox.policy.describe`).

The self-test records the runtime its checks ran on, the plan pins it (so it is in the plan
hash), and the correctness stage evaluates nothing on another one: a cell evaluated under a
different engine or policy than its plan's is missing evidence, never a verdict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from assay.compute.engine import local_identity
from assay.sandbox import policy
from assay.sandbox.results import EvaluatorFailureReason


def live_runtime() -> dict[str, Any]:
    """This machine's engine and client, and the policy in force, as JSON values."""
    return {
        "engine": local_identity().model_dump(),
        "policy": json.loads(json.dumps(policy.describe())),
    }


def _differences(planned: Any, live: Any, where: str = "") -> list[str]:
    if isinstance(planned, dict) and isinstance(live, dict):
        return [
            difference
            for key in sorted(planned.keys() | live.keys())
            for difference in _differences(
                planned.get(key), live.get(key), f"{where}.{key}" if where else key
            )
        ]
    return [] if planned == live else [f"{where or 'all'}: {live!r} (planned {planned!r})"]


def runtime_mismatch(pinned: Mapping[str, Any]) -> tuple[EvaluatorFailureReason, str] | None:
    """Why the live runtime is not the one ``pinned`` (a plan's ``sandbox``) binds, as the
    evaluator-failure reason and a line naming what differs; None when it is."""
    live = live_runtime()
    policy_differences = _differences(pinned.get("policy"), live["policy"])
    if policy_differences:
        return "plan-policy-mismatch", "sandbox policy " + "; ".join(policy_differences)
    engine_differences = _differences(pinned.get("engine"), live["engine"])
    if engine_differences:
        return "plan-engine-mismatch", "Docker engine " + "; ".join(engine_differences)
    return None
