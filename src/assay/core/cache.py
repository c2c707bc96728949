"""Where assay keeps what it fetches, builds or remembers outside the repository:
``<cache>/assay/<kind>/``, ``<cache>`` being ``$XDG_CACHE_HOME`` or ``~/.cache``."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(kind: str) -> Path:
    """``<cache>/assay/<kind>`` (``models``, ``sources``, ``memo``, ``sandbox``)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "assay" / kind
