"""The cell browser's data as the page embeds it: every text once, compressed.

A study's prompts repeat: repeats of a cell send the same prompt, the arms of a subject differ
in a few lines of a repository of hundreds of KB, and a chain step's prompt carries the steps
before it. Stored as they are, the prompts of the default study made its page 22.7 MB. Here the
cells' texts (``prompt``, ``response``, ``candidate``: :data:`TEXT_FIELDS`) are kept once each,
in the order the cells first name them, and each new text is written as pieces (:class:`LineStore`):

- a literal: lines no earlier text holds, as one string joined by ``\\n``;
- a copy ``[text, first line, lines]``: that many lines of an earlier text, found by the first
  :data:`SPAN` lines they share (the most recent text holding them), then extended line by line.

A text is its pieces' lines joined by ``\\n`` (``str.split("\\n")`` and ``"\\n".join`` are exact
inverses, so every byte survives). The payload, ``{"format", "texts", "cells"}`` with each cell's
text fields replaced by the text's index (or ``null``), is JSON compressed with gzip (``mtime``
0, so the same cells give the same bytes) and base64-encoded into the page, where the browser's
own ``DecompressionStream("gzip")`` inflates it (``templates/browser.js``). :func:`decode` is
the same decoding in Python: for tests, and for anyone reading a page's cells back.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Sequence

from assay.core.errors import EvidenceError
from assay.report.cell_browser import CellRecord

FORMAT = "assay-cells-v1"
"""Names the payload's layout; the page's script refuses any other."""
TEXT_FIELDS = ("prompt", "response", "candidate")
"""The cell fields stored once each in the payload's ``texts``."""
SPAN = 4
"""Lines a copy must share with an earlier text before it is looked for: a shorter run costs
about as much as the lines themselves."""
LEVEL = 9
"""gzip's compression level: the page is written once and read by every reader."""

Copy = list[int]
"""``[text, first line, lines]``: lines of an earlier text."""
Piece = str | Copy


class LineStore:
    """Distinct texts, each encoded as literal lines and copies of lines of earlier texts."""

    def __init__(self) -> None:
        self.texts: list[list[Piece]] = []
        self._index: dict[str, int] = {}
        self._lines: list[list[str]] = []
        self._seen: dict[tuple[str, ...], tuple[int, int]] = {}
        """Each run of :data:`SPAN` lines: the latest text holding it, and where."""

    def add(self, text: str) -> int:
        """The text's index: a text stored before keeps its own."""
        found = self._index.get(text)
        if found is not None:
            return found
        number = len(self.texts)
        lines = text.split("\n")
        self.texts.append(self._pieces(lines))
        self._lines.append(lines)
        self._index[text] = number
        for start in range(len(lines) - SPAN + 1):
            self._seen[tuple(lines[start : start + SPAN])] = (number, start)
        return number

    def _pieces(self, lines: list[str]) -> list[Piece]:
        pieces: list[Piece] = []
        literal: list[str] = []
        position = 0
        while position < len(lines):
            hit = self._seen.get(tuple(lines[position : position + SPAN]))
            if hit is None:
                literal.append(lines[position])
                position += 1
                continue
            source, start = hit
            earlier = self._lines[source]
            length = SPAN
            while (
                position + length < len(lines)
                and start + length < len(earlier)
                and lines[position + length] == earlier[start + length]
            ):
                length += 1
            if literal:
                pieces.append("\n".join(literal))
                literal = []
            pieces.append([source, start, length])
            position += length
        if literal:
            pieces.append("\n".join(literal))
        return pieces


def payload(cells: Sequence[CellRecord]) -> dict[str, object]:
    """The cells as the page's JSON: every text once, as pieces; each cell names its texts by
    index."""
    store = LineStore()
    rows = []
    for cell in cells:
        row = cell.model_dump(mode="json")
        for field in TEXT_FIELDS:
            value = row[field]
            row[field] = None if value is None else store.add(value)
        rows.append(row)
    return {"format": FORMAT, "texts": store.texts, "cells": rows}


def encode(cells: Sequence[CellRecord]) -> str:
    """The payload as the page embeds it: JSON, gzip (``mtime`` 0), base64."""
    text = json.dumps(payload(cells), ensure_ascii=False, separators=(",", ":"))
    packed = gzip.compress(text.encode("utf-8"), compresslevel=LEVEL, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def texts(encoded: Sequence[Sequence[Piece]]) -> list[str]:
    """Every text of a payload, decoded from its pieces."""
    lines: list[list[str]] = []
    for pieces in encoded:
        mine: list[str] = []
        for piece in pieces:
            if isinstance(piece, str):
                mine.extend(piece.split("\n"))
            else:
                source, start, length = piece
                mine.extend(lines[source][start : start + length])
        lines.append(mine)
    return ["\n".join(mine) for mine in lines]


def decode(encoded: str) -> list[dict[str, object]]:
    """The cells of a payload, each with its texts in place, as the page shows them."""
    document = json.loads(gzip.decompress(base64.b64decode(encoded)))
    if document.get("format") != FORMAT:
        raise EvidenceError(
            f"the page's cell data: format {document.get('format')!r}, not {FORMAT!r}"
        )
    decoded = texts(document["texts"])
    cells: list[dict[str, object]] = document["cells"]
    for cell in cells:
        for field in TEXT_FIELDS:
            index = cell[field]
            cell[field] = None if index is None else decoded[int(str(index))]
    return cells


_EMBEDDED = re.compile(
    r'<script type="application/octet-stream" id="cell-data"[^>]*>([^<]*)</script>'
)


def embedded_data(page: str) -> str:
    """The cell data as a page (``data/report/index.html``) embeds it: base64 text."""
    found = _EMBEDDED.search(page)
    if found is None:
        raise EvidenceError("the page has no cell data")
    return found.group(1)


def embedded(page: str) -> list[dict[str, object]]:
    """The cells a page carries, decoded."""
    return decode(embedded_data(page))
