"""The Dask client of a stage: connected before any work starts, or one line saying why not."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from distributed import Client

from assay.config.params import Compute
from assay.core.errors import ComputeError


@contextlib.contextmanager
def connect(compute: Compute) -> Iterator[Client]:
    """A client of ``compute.scheduler`` with at least one worker; :class:`ComputeError` (one
    line, before any work) if the scheduler cannot be reached or has no worker."""
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # an unreachable scheduler is reported once, below
    try:
        client = Client(
            compute.scheduler,
            timeout=compute.connect_timeout_seconds,
            set_as_default=False,
        )
    except (OSError, TimeoutError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ComputeError(
            f"compute.scheduler {compute.scheduler}: cannot be reached within "
            f"{compute.connect_timeout_seconds:g} s ({reason}); nothing was run"
        ) from None
    finally:
        quiet.setLevel(level)
    try:
        try:
            client.wait_for_workers(1, timeout=compute.connect_timeout_seconds)
        except TimeoutError:
            raise ComputeError(
                f"compute.scheduler {compute.scheduler}: no worker joined within "
                f"{compute.connect_timeout_seconds:g} s; nothing was run"
            ) from None
        yield client
    finally:
        client.close()
