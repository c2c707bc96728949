"""API keys: read from the environment, refused when malformed, and removed from every message.

A key with whitespace or a control character (a CRLF ``.env``, a key file with a trailing
newline) would be rejected by the HTTP layer with the header, key included, in the error; such
a key is refused before any request, by a message that names the variable and never the value.
Redaction removes the key in every form a message can carry it: raw, ``repr``-escaped,
URL-encoded and base64 (alone or as HTTP Basic credentials).
"""

from __future__ import annotations

import base64
import unicodedata
from collections.abc import Mapping
from urllib.parse import quote, quote_plus

REDACTED = "[redacted]"


def key_problem(name: str, key: str) -> str | None:
    """Why the key in ``name`` cannot be sent, in words without the key; ``None`` when usable."""
    if not key:
        return f"{name} is not set: put it in .env and run with `uv run --env-file .env ...`"
    odd = [c for c in key if c.isspace() or unicodedata.category(c).startswith("C")]
    if odd:
        shown = ", ".join(sorted({_name(c) for c in odd}))
        return (
            f"{name} contains {shown}, which no API key holds (a .env or key file saved with "
            f"CRLF line ends or a trailing newline?): re-save it as one line without spaces; "
            "nothing was sent"
        )
    return None


def _name(char: str) -> str:
    names = {"\r": "a carriage return", "\n": "a line feed", "\t": "a tab", " ": "a space"}
    return names.get(char, f"the character U+{ord(char):04X}")


def read_key(name: str, env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """``(key, None)`` when usable, else ``(None, why)``."""
    key = env.get(name, "")
    problem = key_problem(name, key)
    return (None, problem) if problem else (key, None)


def forms(key: str) -> tuple[str, ...]:
    """Every text form of ``key`` a message could carry, longest first."""
    raw = key.encode("utf-8", "surrogatepass")
    found = {
        key,
        repr(key)[1:-1],
        key.encode("unicode_escape").decode("ascii"),
        quote(key, safe=""),
        quote_plus(key),
        quote(key),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
    }
    for prefix in (b":", b"Bearer "):
        found.add(base64.b64encode(prefix + raw).decode())
    unpadded = {form.rstrip("=") for form in found}
    every = found | {form for form in unpadded if len(form) >= 8}
    return tuple(sorted((f for f in every if f), key=len, reverse=True))


def redact_text(text: str, key: str | None) -> str:
    if not key:
        return text
    for form in forms(key):
        text = text.replace(form, REDACTED)
    return text


def redact_bytes(data: bytes, key: str | None) -> bytes:
    if not key:
        return data
    for form in forms(key):
        data = data.replace(form.encode("utf-8", "surrogatepass"), REDACTED.encode())
    return data
