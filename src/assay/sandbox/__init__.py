"""The correctness sandbox: generated code runs only inside a hardened, uniquely named
container, under a supervisor it cannot forge. See ``assay.sandbox.policy`` for the flags,
``sandbox/supervisor.py`` for the protocol and ``assay.sandbox.results`` for the outcomes.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.sandbox.parallel import evaluate_many
    from assay.sandbox.results import CaseOutcome, CorrectnessResult, SandboxRequest
    from assay.sandbox.runner import SandboxCancelled, evaluate

_EXPORTS = {
    "evaluate_many": "assay.sandbox.parallel",
    "CaseOutcome": "assay.sandbox.results",
    "CorrectnessResult": "assay.sandbox.results",
    "SandboxRequest": "assay.sandbox.results",
    "SandboxCancelled": "assay.sandbox.runner",
    "evaluate": "assay.sandbox.runner",
}


def __getattr__(name: str) -> Any:
    """Exports load on first use, so ``assay.sandbox.image``'s daemon check (run on every
    ``dvc repro``) does not import the Docker SDK."""
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'assay.sandbox' has no attribute {name!r}")


__all__ = [
    "CaseOutcome",
    "CorrectnessResult",
    "SandboxCancelled",
    "SandboxRequest",
    "evaluate",
    "evaluate_many",
]
