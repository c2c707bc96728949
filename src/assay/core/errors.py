"""One root for every error assay raises on purpose, one family per way a caller reacts.

An ``AssayError`` is translated once, at the boundary (:func:`boundary`, used by every
``stages/*.py`` script and by the ``assay`` command): ``assay: <message>`` on stderr, exit 1.
Nothing inside a stage catches its own subset. Expected outcomes (a refused candidate, a
provider fault, a failed pre-flight check) are values, not exceptions.

    AssayError ─┬─ InputError ─────────┬─ ParamsError           params.yaml           fix the named key
                │  (ValueError)        ├─ FixtureError          fixtures/             fix the named file
                │                      ├─ ManipulationError     fixtures/ arms        fix the named lines
                │                      ├─ ProviderConfigError   profile / environment fix the profile or key
                │                      ├─ WeightsError          local model weights   fix the path or run setup
                │                      └─ UsageError            `assay` arguments     exit 2, as argparse
                ├─ EvidenceError ──────── MissingEvidence       data/ lacks a file    run `dvc repro`
                │                         (FileNotFoundError)
                ├─ AuthorizationError ──────────────────────────  params.yaml names another plan: re-approve
                │  (ValueError)
                ├─ LedgerBindingError ──────────────────────────  the ledger is bound elsewhere: send nothing
                │  (RuntimeError)
                ├─ SelfTestFailed ──────────────────────────────  the sandbox failed its references: plan nothing
                │  (RuntimeError)
                ├─ SandboxImageError ──── ImageBuildError       engine unreachable or image unbuildable
                ├─ SnapshotError ───────────────────────────────  a pinned source is unfetchable or tampered: stop
                └─ ChangeError ─────────────────────────────────  a candidate cannot be applied; caught in the
                   (ValueError)                                   metrics engine, where it becomes a missing value

The families live here; each member lives beside the code that raises it (``ParamsError`` in
``assay.config.params``, ``FixtureError`` in ``assay.fixtures.errors``, ``ManipulationError`` in
``assay.fixtures.manipulation``, ``SnapshotError`` in
``assay.fixtures.snapshot``, ``WeightsError`` in ``assay.local.weights``, …). ``SandboxCancelled``
(``assay.sandbox.runner``) is a ``BaseException`` on purpose: a cancellation, not an error.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


class AssayError(Exception):
    """Root of every error assay raises on purpose; its message is one line for the user."""


class InputError(AssayError, ValueError):
    """Something the user wrote is wrong (params, fixtures, profile, arguments): fix and rerun."""


class EvidenceError(AssayError):
    """An artefact under ``data/`` cannot be read or does not fit the others."""


class MissingEvidence(EvidenceError, FileNotFoundError):
    """An artefact under ``data/`` does not exist yet: run the stage that writes it."""


class AuthorizationError(AssayError, ValueError):
    """The authorization in params.yaml does not match the plan."""


class LedgerBindingError(AssayError, RuntimeError):
    """The ledger on disk belongs to another plan, or a paid run's ledger already began."""


class SelfTestFailed(AssayError, RuntimeError):
    """The sandbox did not reproduce the references' correctness: nothing may be planned."""


class SandboxImageError(AssayError):
    """The sandbox image cannot be made ready: the engine is unreachable or the build failed."""


class ComputeError(AssayError):
    """The Dask cluster named in ``params.yaml: compute`` cannot take the work (unreachable
    scheduler, no worker, no worker whose engine or tools match the plan)."""


@contextmanager
def boundary() -> Iterator[None]:
    """Run a stage or command body; an :class:`AssayError` becomes ``assay: <message>`` on
    stderr and exit status 1."""
    try:
        yield
    except AssayError as exc:
        print(f"assay: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
