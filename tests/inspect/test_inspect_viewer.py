"""The static Inspect viewer of the shared study (``assay inspect-view``): the bundle opens in
headless Chromium from a server on 127.0.0.1, with no request leaving it, and shows a real
run's cell: its answer, its structural verdict and the evaluator's explanation. Chromium is
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
from inspect_ai.log import read_eval_log

from assay.evidence import inspect_logs_dir
from assay.inspect.viewer import bundle
from tests.report.browser import SCREENSHOTS, require_chromium
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker, pytest.mark.browser]

REAL_RUN = "qwen-v1"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        pass


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 at a free port, for as long as the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=folder))
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
    sample = next(s for s in log.samples if s.scores and s.scores["structure"].value == "reused")
    structure = sample.scores["structure"]  # type: ignore[index]
    answer_line = next(line for line in sample.output.completion.splitlines() if "return" in line)
    with served(view) as origin, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            route = f"#/logs/{quote(path.name)}/samples/sample/{sample.id}/{sample.epoch}/"
            page.goto(f"{origin}/{route}messages")
            page.get_by_text(answer_line.strip(), exact=False).first.wait_for(timeout=60_000)
            page.screenshot(path=str(_shot("inspect_viewer_messages.png")))
            page.goto(f"{origin}/{route}scoring")
            explanation = (structure.explanation or "").splitlines()
            page.get_by_text(explanation[1], exact=False).first.wait_for(timeout=60_000)
            body = page.inner_text("body")
            page.screenshot(path=str(_shot("inspect_viewer_scoring.png")))
        finally:
            browser.close()
    assert "reused" in body
    assert all(line in body for line in explanation), explanation
    assert not [url for url in requests if not url.startswith(origin)]


def _shot(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / name
