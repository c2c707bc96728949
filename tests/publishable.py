"""Scan what is published (the report's files, an export bundle) for hidden fields.

The hidden fields are read from the study's own subjects (``data/subjects/*/scenario.json``):
every test vector's input and expected value, and every reference solution. A published file
may hold a reference solution only inside what a candidate returned (a simulated model answers
with the references as declared): the responses and extracted candidates of ``data/`` are cut
out of the text before references are looked for. Vector values are looked for everywhere, in
the forms the pipeline writes them (the value itself for a string, its JSON as the correctness
stage stores it, a 200-character prefix of a longer one), in the text as it is and with its
JSON and HTML escapes decoded once and twice (a JSON string inside JSON inside HTML).

Values shorter than ``MIN_CHARS`` (``0``, ``true``, ``"a"``) would match any page by chance;
they are counted as unscannable rather than searched (:attr:`Hidden.scannable`).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from assay.report.cell_payload import embedded

MIN_CHARS = 6
PREFIX_CHARS = 199
"""The correctness stage cuts stored values at 200 characters (199 and an ellipsis)."""


@dataclass(frozen=True)
class Hidden:
    scenario: str
    subject: str
    field: str
    """``vector <index> input``, ``vector <index> expected`` or ``reference:<name>``."""
    needles: tuple[str, ...]

    @property
    def scannable(self) -> bool:
        return bool(self.needles)

    @property
    def reference(self) -> bool:
        return self.field.startswith("reference:")


def _needles(value: object, *, as_json: bool = True) -> tuple[str, ...]:
    forms = (
        {json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)} if as_json else set()
    )
    if isinstance(value, str):
        forms.add(value)
    forms |= {form[:PREFIX_CHARS] for form in forms if len(form) > PREFIX_CHARS}
    return tuple(sorted(f for f in forms if len(f.strip()) >= MIN_CHARS))


def hidden_fields(data: Path) -> list[Hidden]:
    """Every hidden vector value and reference solution of every realised scenario."""
    found = []
    for path in sorted((data / "subjects").glob("*/scenario.json")):
        scenario = json.loads(path.read_text(encoding="utf-8"))
        for subject in scenario["subjects"]:
            task = subject["task"]
            name = (scenario["name"], task["id"])
            for index, vector in enumerate(task["vectors"]):
                for field in ("input", "expected"):
                    found.append(Hidden(*name, f"vector {index} {field}", _needles(vector[field])))
            for kind, source in sorted(task["references"].items()):
                # the source itself: its JSON form is looked for in the decoded views
                found.append(Hidden(*name, f"reference:{kind}", _needles(source, as_json=False)))
    return found


def returned_texts(data: Path) -> set[str]:
    """What candidates returned: every response and extracted candidate under ``data``."""
    texts: set[str] = set()
    for pattern, column in (("execute/*/cells.parquet", "text"),
                            ("extract/*/candidates.parquet", "source")):  # fmt: skip
        for path in data.glob(pattern):
            texts |= {t for t in pq.read_table(path, columns=[column]).column(0).to_pylist() if t}
    return texts


_JSON_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _unescape_json(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        return chr(int(code[1:], 16)) if code.startswith("u") else _SIMPLE[code]

    return _JSON_ESCAPE.sub(one, text)


def views(text: str) -> list[str]:
    """The text, and its JSON and HTML escapes decoded (once, twice)."""
    once = _unescape_json(text)
    return [text, once, _unescape_json(once), html.unescape(text), html.unescape(once)]


def published_text(path: Path) -> str:
    """A published file as text: a Parquet table's rows as JSON, the report page with its
    compressed cells decoded (as JSON after the page), any other file decoded."""
    if path.suffix == ".parquet":
        return json.dumps(pq.read_table(path).to_pylist(), ensure_ascii=False, default=str)
    text = path.read_bytes().decode("utf-8", errors="replace")
    if path.name == "index.html" and 'id="cell-data"' in text:
        text += json.dumps(embedded(text), ensure_ascii=False)
    return text


@dataclass(frozen=True)
class Leak:
    file: str
    hidden: Hidden
    needle: str

    def line(self) -> str:
        h = self.hidden
        return f"{self.file}: {h.scenario}/{h.subject} {h.field} {self.needle[:60]!r}"


def leaks(files: dict[str, str], hidden: list[Hidden], returned: set[str]) -> list[Leak]:
    """Every hidden field found in ``files`` (name → text); references only outside
    ``returned`` (longest first, so a response is cut out before the candidate inside it)."""
    cut = sorted(returned, key=len, reverse=True)
    found = []
    for name, text in sorted(files.items()):
        texts = views(text)
        without = []
        for view in texts:
            for returned_text in cut:
                view = view.replace(returned_text, "")
            without.append(view)
        for item in hidden:
            for needle in item.needles:
                if any(needle in view for view in (without if item.reference else texts)):
                    found.append(Leak(name, item, needle))
                    break
    return found


def scan(root: Path, data: Path, pattern: str = "**/*") -> list[Leak]:
    """Leaks of ``data``'s hidden fields in every file under ``root`` matching ``pattern``."""
    files = {
        path.relative_to(root).as_posix(): published_text(path)
        for path in sorted(root.glob(pattern))
        if path.is_file()
    }
    return leaks(files, hidden_fields(data), returned_texts(data))


def leaked_vectors(found: list[Leak]) -> set[tuple[str, str, str]]:
    """(scenario, subject, vector index) of every vector with a value found."""
    return {(f.hidden.scenario, f.hidden.subject, f.hidden.field.split()[1]) for f in found
            if not f.hidden.reference}  # fmt: skip
