"""The correctness sandbox: generated code runs only inside a hardened, uniquely named
container, under a supervisor it cannot forge. See ``assay.sandbox.policy`` for the flags,
``sandbox/supervisor.py`` for the protocol and ``assay.sandbox.results`` for the outcomes.
"""

from assay.sandbox.parallel import evaluate_many
from assay.sandbox.results import CaseOutcome, CorrectnessResult, SandboxRequest
from assay.sandbox.runner import SandboxCancelled, evaluate

__all__ = [
    "CaseOutcome",
    "CorrectnessResult",
    "SandboxCancelled",
    "SandboxRequest",
    "evaluate",
    "evaluate_many",
]
