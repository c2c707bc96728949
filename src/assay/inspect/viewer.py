"""A static Inspect viewer of the study: ``inspect_ai.log.bundle_log_dir`` (what ``inspect view
bundle`` runs) over the ``inspect_logs`` stage's logs.

The bundle is Inspect's own viewer (HTML and JavaScript, about 11 MB) with a copy of every log
and a listing of them; it needs no network. It reads the logs with ``fetch``, which a browser
refuses for ``file://`` pages, so it is opened through any static web server on this machine
(``python -m http.server --bind 127.0.0.1``). Its ``index.html`` names the folder the logs were
bundled from by its absolute path (Inspect writes it there), which is why the bundle is built by
one command into a folder of the user's choosing, not as a pipeline output (docs/inspect.md).
"""

from __future__ import annotations

from pathlib import Path

from assay.core.errors import InputError, MissingEvidence

LOG_PATTERN = "*.json"


class ViewerError(InputError):
    """The bundle's folder cannot be used (it holds files); nothing was written."""


def bundle(logs: Path, dest: Path) -> int:
    """Bundle every log in ``logs`` with Inspect's viewer into ``dest`` (new or empty; never
    overwritten); the number of logs bundled."""
    count = len(list(logs.glob(LOG_PATTERN))) if logs.is_dir() else 0
    if count == 0:
        raise MissingEvidence(f"{logs}: no Inspect logs; run `uv run dvc repro` first")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ViewerError(f"{dest}: exists and is not an empty folder; choose a new one")
    from inspect_ai.log import bundle_log_dir

    bundle_log_dir(log_dir=str(logs), output_dir=str(dest), overwrite=dest.exists())
    return count
