"""The page stays small when prompts are large: a study whose prompts are the size of the
codebase sets' (a few hundred KB each, the arms of a subject differing in a few lines, every
subject a module of one repository) makes a page whose cell data is a small part of its prompts,
and whose cells give back every prompt byte for byte, in Python and in Chromium."""

from __future__ import annotations

import json
import random
from pathlib import Path
from urllib.parse import quote

import pyarrow.parquet as pq
import pytest

from assay.pipeline.report import write_all
from assay.report.cell_payload import embedded, embedded_data
from assay.report.provenance import Provenance
from assay.report.vega import javascript
from tests.report.browser import open_page
from tests.report.evidence import ARMS, write_dose_evidence
from tests.study import Study

SUBJECTS = 6
REPOSITORY_LINES = 8000
WORDS = ("value", "digits", "mask", "card", "number", "result", "index", "total", "record",
         "parse", "format", "name", "items", "offset", "limit", "buffer", "key", "row")  # fmt: skip


def _repository() -> list[str]:
    """Python-like lines, seeded: about 300 KB that gzip alone shrinks about as much as code."""
    draw = random.Random(50)
    lines = []
    for n in range(REPOSITORY_LINES):
        a, b, c = (draw.choice(WORDS) for _ in range(3))
        lines.append(
            f"def {a}_{b}_{n}({c}):" if n % 9 == 0
            else f"    {a}_{n % 97} = {b}({c}, {draw.randrange(10_000)})  # {c} {a}"
        )  # fmt: skip
    return lines


REPOSITORY = _repository()


def _prompt(subject: int, arm: str) -> str:
    """The repository with the subject's target module and the arm's duplicated lines (more
    at a higher mess level), as a codebase prompt holds them."""
    lines = list(REPOSITORY)
    level = ARMS.index(arm)
    for k in range(4 * level):
        lines[500 * (k + 1) + subject] = (
            f"    digits = ''.join(c for c in value if c.isdigit())  # {k}"
        )
    target = [
        f"# target module of subject {subject}",
        *(f"x{subject}_{n} = {n}" for n in range(40)),
    ]
    return "Implement implement() in the module below.\n" + "\n".join(target + lines) + "\n"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("large")
    data = folder / "data"
    write_dose_evidence(data, subjects=SUBJECTS, prompt=_prompt)
    built = Provenance(assay_version="0.1.0", commit=None, commit_date=None)
    write_all(data, data / "report", folder / "reports", None, provenance=built)
    return data / "report" / "index.html"


def _prompts(page: Path) -> dict[tuple[str, str], str]:
    table = pq.read_table(page.parents[1] / "render" / "dose" / "prompts.parquet")
    return {(r["subject"], r["arm"]): r["prompt"] for r in table.to_pylist()}


def test_the_cell_data_is_a_small_part_of_the_prompts_and_gives_them_back(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    prompts = _prompts(page)
    stored_once = len(json.dumps(sorted(prompts.values())).encode())  # the former page's prompts
    assert stored_once > SUBJECTS * len(ARMS) * 250_000
    cells = embedded(html)
    assert len(cells) == 2 * SUBJECTS * len(ARMS)
    for cell in cells:
        assert cell["prompt"] == prompts[(str(cell["subject"]), str(cell["arm"]))], cell["cell_id"]
    rest = len(html.encode()) - len(javascript().encode())
    assert rest < 0.05 * stored_once, (rest, stored_once)


@pytest.mark.browser
def test_chromium_reads_a_cell_s_prompt_back_byte_for_byte(page: Path) -> None:
    expected = _prompts(page)[("s3", "mess-10")]
    with open_page(page) as browser:
        p = browser.page
        browser.page.evaluate(
            f"() => {{ location.hash = 'cell/run-b/{quote('s3/mess-10/r1', safe='')}/1'; }}"
        )
        p.wait_for_selector("#prompt")
        shown = p.evaluate("() => document.getElementById('prompt').textContent")
        assert shown == expected
        assert browser.console_errors == []


def _distinct_text_bytes(cells: list[dict[str, object]]) -> int:
    """What the cells' texts weigh stored once each, as they are."""
    distinct = {str(c[f]) for c in cells for f in ("prompt", "response", "candidate") if c[f]}
    return sum(len(text.encode()) for text in distinct)


@pytest.mark.dvc
@pytest.mark.docker
def test_the_shared_study_s_page_stays_within_a_bound_scaled_to_it(study: Study) -> None:
    """The default study at two subjects and one repeat (tests/study.py; 102 cells whose
    distinct texts weigh 2.9 MB, 2026-12-07): the cell data stays under a tenth of those texts
    plus 500 bytes a cell (it was 0.15 MB of 0.34 allowed; the former page's JSON was 3.5 MB and
    gzip alone made it 0.72 MB in base64), and the rest of the page beside the Vega bundle under
    4 KB a cell (0.24 MB of 0.41 allowed); every step-1 prompt comes back as rendered."""
    html = study.read("data/report/index.html")
    cells = embedded(html)
    texts = _distinct_text_bytes(cells)
    cell_data = len(embedded_data(html))
    rest = len(html.encode()) - len(javascript().encode()) - cell_data
    assert cell_data <= 0.1 * texts + 500 * len(cells), (cell_data, texts, len(cells))
    assert rest <= 4_000 * len(cells), (rest, len(cells))
    rendered = {
        (row["scenario"], row["subject"], row["arm"]): row["prompt"]
        for path in (study.repo.path / "data" / "render").glob("*/prompts.parquet")
        for row in pq.read_table(path, columns=["scenario", "subject", "arm", "prompt"]).to_pylist()
    }
    step_1 = [c for c in cells if c["step"] == 1 and c["prompt"] is not None]
    assert step_1 and all(
        c["prompt"] == rendered[(c["scenario"], c["subject"], c["arm"])] for c in step_1
    )
