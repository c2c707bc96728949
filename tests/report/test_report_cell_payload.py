"""The page's cell data (assay.report.cell_payload): every text stored once, lines shared with
an earlier text copied, and every byte back when decoded (case table in cases/cell_payload.yaml)."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.core.errors import EvidenceError
from assay.report.cell_payload import FORMAT, LineStore, decode, embedded, texts

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "cell_payload.yaml").read_text())
BASE = [f"line {n}" for n in range(40)]


def _expand(text: str) -> str:
    """``{base}`` and ``{base|line N=new}`` as the case table describes them."""

    def one(match: re.Match[str]) -> str:
        lines = list(BASE)
        if match.group(1):
            old, new = match.group(1).split("=")
            lines[BASE.index(old)] = new
        return "\n".join(lines) + "\n"

    return re.sub(r"\{base(?:\|([^}]*))?\}", one, text)


def _literal_lines(store: LineStore) -> int:
    return sum(len(p.split("\n")) for t in store.texts for p in t if isinstance(p, str))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_texts_are_stored_once_and_decode_byte_for_byte(case: dict[str, Any]) -> None:
    given = [_expand(text) for text in case["texts"]]
    store = LineStore()
    indexes = [store.add(text) for text in given]
    decoded = texts(store.texts)
    assert [decoded[i] for i in indexes] == given
    assert len(store.texts) == case["stored"]
    assert _literal_lines(store) == case["literal_lines"]
    # every copy names an earlier text and lines it has
    lengths = [len(text.split("\n")) for text in decoded]
    for number, pieces in enumerate(store.texts):
        for piece in pieces:
            if not isinstance(piece, str):
                source, start, length = piece
                assert source < number and start + length <= lengths[source], piece


def _payload(document: dict[str, Any]) -> str:
    text = json.dumps(document).encode()
    return base64.b64encode(gzip.compress(text, mtime=0)).decode()


def test_a_payload_decodes_to_the_cells_with_their_texts() -> None:
    store = LineStore()
    prompt = store.add("a\nb\nc\nd\n")
    answer = store.add("a\nb\nc\nd\nreturn 1\n")
    cells = [{"cell_id": "s/a/r1", "prompt": prompt, "response": answer, "candidate": None}]
    encoded = _payload({"format": FORMAT, "texts": store.texts, "cells": cells})
    assert decode(encoded) == [
        {"cell_id": "s/a/r1", "prompt": "a\nb\nc\nd\n", "response": "a\nb\nc\nd\nreturn 1\n",
         "candidate": None}
    ]  # fmt: skip
    page = f'<script type="application/octet-stream" id="cell-data">{encoded}</script>'
    assert embedded(page)[0]["prompt"] == "a\nb\nc\nd\n"


def test_a_page_without_cells_or_of_another_format_is_named() -> None:
    with pytest.raises(EvidenceError, match="no cell data"):
        embedded("<html></html>")
    with pytest.raises(EvidenceError, match="format 'other'"):
        decode(_payload({"format": "other", "texts": [], "cells": []}))
