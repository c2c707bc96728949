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
from typing import TextIO

from tqdm import tqdm

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
