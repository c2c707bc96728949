"""The static Inspect viewer of the shared study (``assay inspect-view``): the bundle opens in
headless Chromium from a server on 127.0.0.1, with no request leaving it, lists every run, and
shows a real run's cell: its answer, its structural verdict and the evaluator's explanation. Chromium is
Debian's (tests/report/browser.py); without it the test skips, under ``CI`` it fails."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
from inspect_ai.log import EvalSample, read_eval_log

from assay.core.records import ORDINAL_VERDICTS
from assay.evidence import inspect_logs_dir
from assay.inspect.viewer import bundle
from tests.report.browser import SCREENSHOTS, require_chromium
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker, pytest.mark.browser]

REAL_RUN = "qwen-bank-new"


SYNCED = "() => !document.body.innerText.includes('Syncing data')"
"""The viewer's log list is complete once it no longer says it is syncing."""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        pass


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the browser closing a connection early (a request it no longer needs)


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 at a free port, for as long as the block runs."""
    server = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=folder))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_the_bundled_viewer_shows_a_real_run_s_cell(study: Study, tmp_path: Path) -> None:
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    logs = study.repo.path / inspect_logs_dir()
    view = tmp_path / "view"
    assert bundle(logs, view) == len(study.params["runs"])
    path = next(p for p in sorted((view / "logs").glob("*.json")) if f"_{REAL_RUN}_" in p.name)
    log = read_eval_log(str(path))
    assert log.samples is not None
    sample, answer_line = next(
        (s, line)
        for s in log.samples
        if s.scores and s.scores["structure"].value in ORDINAL_VERDICTS
        for line in [own_line(s)]
        if line is not None
    )
    structure = sample.scores["structure"]  # type: ignore[index]
    with served(view) as origin, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            # every run listed: a log sharing another's task id would be hidden as its retry
            page.goto(f"{origin}/")
            runs = len(study.params["runs"])
            page.wait_for_function(SYNCED, timeout=120_000)
            page.get_by_text(f"{runs} items", exact=True).wait_for(timeout=60_000)
            page.screenshot(path=str(_shot("inspect_viewer_runs.png")))
            route = f"#/logs/{quote(path.name)}/samples/sample/{sample.id}/{sample.epoch}/"
            page.goto(f"{origin}/{route}messages")
            page.get_by_text(answer_line, exact=False).first.wait_for(timeout=60_000)
            page.screenshot(path=str(_shot("inspect_viewer_messages.png")))
            page.goto(f"{origin}/{route}scoring")
            # the viewer renders the explanation as Markdown: `code` loses its backticks
            explanation = (structure.explanation or "").replace("`", "").splitlines()
            page.get_by_text(explanation[1], exact=False).first.wait_for(timeout=60_000)
            body = page.inner_text("body")
            page.screenshot(path=str(_shot("inspect_viewer_scoring.png")))
        finally:
            browser.close()
    assert f"{structure.value}" in body
    assert all(line in body for line in explanation), explanation
    assert not [url for url in requests if not url.startswith(origin)]


def own_line(sample: EvalSample) -> str | None:
    """The longest line of the sample's answer that its prompt does not hold (so finding it on
    the page shows the answer, not the repository the prompt quotes)."""
    prompt = "\n".join(m.text for m in sample.input if not isinstance(sample.input, str))
    lines = sorted({line.strip() for line in sample.output.completion.splitlines()}, key=len)
    return next((line for line in reversed(lines) if len(line) > 10 and line not in prompt), None)


def _shot(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / name
