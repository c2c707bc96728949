"""The JavaScript that draws Vega-Lite charts in the page: vega, vega-lite and vega-embed as
bundled by ``vl-convert-python`` (pinned in uv.lock), inlined so the page needs no network.

Bundling takes several seconds, so the bundle is kept under ``~/.cache/assay/report/`` keyed
by the vl-convert version; it is the same bytes for the same version.
"""

from __future__ import annotations

import os
from importlib.metadata import version
from pathlib import Path

import vl_convert


def cache_dir() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "assay" / "report"


def javascript() -> str:
    """The bundle, safe to put inside ``<script>`` (no ``</script`` in it)."""
    path = cache_dir() / f"vega-embed-vl-convert-{version('vl-convert-python')}.js"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = vl_convert.javascript_bundle()  # type: ignore[call-arg]  # the stub wants a snippet
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    return text.replace("</script", "<\\/script")
