"""Progress of a long stage, on stderr, through tqdm: done/total, rate and ETA.

On a terminal it is tqdm's ordinary bar. Under ``dvc repro`` in a log or CI (stderr is not a
TTY) tqdm's carriage-return redraws would pile up on one line, so each redraw becomes one
plain line instead, and tqdm's ``mininterval`` keeps them to one every
:data:`LOG_INTERVAL_SECONDS` (plus the first and the last): a 30 s stage logs about four lines.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

from tqdm import tqdm

from assay.evidence import CallRecord
from assay.evidence.plan import Plan

LOG_INTERVAL_SECONDS = float(os.environ.get("ASSAY_PROGRESS_INTERVAL", "10"))
TERMINAL_INTERVAL_SECONDS = 0.2


class LogLines(io.TextIOBase):
    """A text stream that turns tqdm's ``\\r<status>`` redraws into ``<status>\\n`` lines."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last_count = ""

    def write(self, text: str) -> int:
        line = text.replace("\r", "").rstrip()
        count = line.rsplit("[", 1)[0]  # the bar and done/total, without times and rate
        if line and count != self.last_count:  # a redraw with nothing done since is dropped
            self.last_count = count
            self.stream.write(line + "\n")
            self.stream.flush()
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def progress(total: int, description: str, unit: str = "cell", initial: int = 0) -> tqdm:
    """A progress bar of ``total`` items labelled ``description``, ``initial`` of them done
    already (use as a context manager)."""
    stream = sys.stderr
    interactive = stream.isatty()
    return tqdm(
        total=total,
        initial=initial,
        desc=description,
        unit=unit,
        file=stream if interactive else LogLines(stream),
        mininterval=TERMINAL_INTERVAL_SECONDS if interactive else LOG_INTERVAL_SECONDS,
        maxinterval=LOG_INTERVAL_SECONDS,
        dynamic_ncols=interactive,
        ncols=None if interactive else 110,
        ascii=not interactive,
        disable=total == 0,
    )


class SpendProgress:
    """A run's calls decided out of its plan's total, with rate and ETA, and for a paid run the
    money reserved (never refunded) and reported so far against the ceiling. The execute loop
    calls :meth:`observe` with each call's record as it is decided."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.reserved = 0.0
        self.reported = 0.0
        self.bar = progress(sum(c.steps for c in plan.cells), f"execute {plan.run}", unit="call")

    def __enter__(self) -> Callable[[CallRecord], None]:
        return self.observe

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.bar.close()

    def observe(self, record: CallRecord) -> None:
        self.reserved += record.reservation_usd
        self.reported += record.cost_usd or 0.0
        if self.plan.budget.paid:
            self.bar.set_postfix_str(
                f"reserved ${self.reserved:.4f} / ceiling ${self.plan.budget.ceiling_usd:.2f}, "
                f"reported ${self.reported:.4f}",
                refresh=False,
            )
        self.bar.update(1)
