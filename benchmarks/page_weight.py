"""What each part of a report page weighs: the page's own parts as they are in the file, and
its cells as the page gives them back.

    uv run python benchmarks/page_weight.py data/report/index.html [OTHER_PAGE ...]

Reads pages of either layout: the cells as JSON with each distinct prompt once (the page before
issue 50, ``<script type="application/json" id="cell-data">``) or compressed
(:mod:`assay.report.cell_payload`). Prints, per page, a Markdown table: the Vega bundle, the
style, the page's own script, the chart specs, the paired view's data, the cell data as
embedded, and the rest (the HTML of the tables and text); then what the cells hold: each kind of
text (prompts, responses, candidates: distinct texts, their UTF-8 bytes, and the bytes of every
cell's copy), the cells' other fields, and the cells as the former page stored them (JSON with
each distinct prompt once, escaped as Jinja's ``tojson`` escapes) and that JSON gzipped.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from pathlib import Path
from typing import Any

from markupsafe import Markup

from assay.report.cell_payload import TEXT_FIELDS, embedded

MB = 1_000_000
SCRIPT = re.compile(r"<script([^>]*)>(.*?)</script>", re.DOTALL)
STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)


def _parts(page: str) -> dict[str, int]:
    """The page's parts by bytes: the style, each script (by id; the two without one are the
    Vega bundle in ``<head>`` and the page's own script at the end), and the rest."""
    parts = {"style": sum(len(m.group(0).encode()) for m in STYLE.finditer(page))}
    unnamed = iter(("Vega bundle", "page script"))
    for match in SCRIPT.finditer(page):
        found = re.search(r'id="([^"]+)"', match.group(1))
        parts[f"#{found.group(1)}" if found else next(unnamed)] = len(match.group(0).encode())
    parts["HTML (tables, text)"] = len(page.encode()) - sum(parts.values())
    return parts


def _cells(page: str) -> list[dict[str, Any]]:
    """Every cell with its texts in place, from a page of either layout."""
    old = re.search(
        r'<script type="application/json" id="cell-data">(.*?)</script>', page, re.DOTALL
    )
    if old is None:
        return embedded(page)
    data = json.loads(old.group(1))
    prompts = data["prompts"]
    return [
        {**cell, "prompt": None if cell["prompt"] is None else prompts[cell["prompt"]]}
        for cell in data["cells"]
    ]


def _former(cells: list[dict[str, Any]]) -> str:
    """The cells as the page stored them before: each distinct prompt once, ``tojson``-escaped."""
    index: dict[str, int] = {}
    rows = []
    for cell in cells:
        prompt = cell["prompt"]
        if prompt is not None:
            index.setdefault(prompt, len(index))
        rows.append({**cell, "prompt": None if prompt is None else index[prompt]})
    text = json.dumps({"prompts": list(index), "cells": rows}, sort_keys=True)
    escaped = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return str(Markup(escaped.replace("'", "\\u0027")))


def report(path: Path) -> str:
    page = path.read_text(encoding="utf-8")
    total = len(page.encode())
    lines = [f"### {path} ({total / MB:.2f} MB)", "", "| part | MB | share |", "|---|---:|---:|"]
    for name, size in sorted(_parts(page).items(), key=lambda item: -item[1]):
        lines.append(f"| {name} | {size / MB:.3f} | {size / total:.1%} |")
    cells = _cells(page)
    lines += ["", f"{len(cells)} cells:", "", "| text | distinct | MB distinct | MB over cells |",
              "|---|---:|---:|---:|"]  # fmt: skip
    for field in TEXT_FIELDS:
        values = [c[field] for c in cells if c[field] is not None]
        distinct = set(values)
        lines.append(
            f"| {field} | {len(distinct)} | {sum(len(v.encode()) for v in distinct) / MB:.3f} | "
            f"{sum(len(v.encode()) for v in values) / MB:.3f} |"
        )
    others = json.dumps([{k: v for k, v in c.items() if k not in TEXT_FIELDS} for c in cells])
    former = _former(cells).encode()
    lines += [
        "",
        f"- the cells' other fields as JSON: {len(others.encode()) / MB:.3f} MB",
        (
            f"- the cells as the former page stored them: {len(former) / MB:.3f} MB, "
            f"gzipped {len(gzip.compress(former, mtime=0)) / MB:.3f} MB"
        ),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    for path in parser.parse_args().pages:
        print(report(path), end="\n\n")


if __name__ == "__main__":
    main()
