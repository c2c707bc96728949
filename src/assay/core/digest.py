"""Canonical JSON and sha256: the one way assay turns a value into bytes and a digest.

Canonical JSON sorts keys, uses no insignificant whitespace and keeps non-ASCII text as
UTF-8, so the same value gives the same bytes on every machine and every run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"not canonically serialisable: {type(value).__name__}")


def canonical_json(value: Any) -> bytes:
    """The canonical UTF-8 JSON encoding of ``value`` (pydantic models are dumped in JSON mode)."""
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
        default=_plain,
    ).encode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    """Hex sha256 of bytes (text is encoded as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """The sha256 of a file's bytes, read a block at a time (weights and sdists are large)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def digest_of(value: Any) -> str:
    """sha256 of the canonical JSON of ``value``."""
    return sha256_hex(canonical_json(value))
