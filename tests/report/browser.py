"""Open a report page in headless Chromium (Debian's ``chromium``, driven by Playwright over
the DevTools protocol), collect console errors, wait for the charts, take screenshots
(build/screenshots/).

Without Chromium the tests that need it skip, except under ``CI`` where they fail.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.unavailable import unavailable

CHROMIUM = os.environ.get("ASSAY_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
"""For reviewers to look at; git-ignored and outside data/ (no stage writes it)."""


def require_chromium() -> str:
    path = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if path is None:
        unavailable(f"headless Chromium is needed ({CHROMIUM}; Debian package chromium)")
    return path


@dataclass
class Page:
    page: Any
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def chart_sizes(self) -> dict[str, dict[str, float]]:
        """Per drawn chart: its SVG's size and its data marks (legends not counted): every
        mark, the bars and the lines."""
        return self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('.chart[data-chart]')].map(node => {
                const svg = node.querySelector('svg');
                const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
                const count = (selector) => svg ? svg.querySelectorAll(selector).length : 0;
                return [node.dataset.chart, {width: box.width, height: box.height,
                    marks: count('g.role-mark > path'), bars: count('g.mark-rect.role-mark > path'),
                    lines: count('g.mark-line.role-mark > path')}];
            }))"""
        )

    def follow(self, link: Any) -> None:
        """Click a link into one of the page's own views (a selector or a locator) and return
        once the page has routed it: the page answers ``hashchange``, which the browser
        dispatches after the click returns, so reading the table straight after a click may
        read it unfiltered. A listener added now runs after the page's own; a page still
        decoding its cells (just loaded again) routes the address once they are decoded, so
        that is waited for too. A link that leaves the hash as it was fails here after ten
        seconds rather than hanging."""
        self.page.evaluate(
            "() => { window.__routed = false;"
            " window.addEventListener('hashchange', () => { window.__routed = true; },"
            " {once: true}); }"
        )
        (self.page.locator(link) if isinstance(link, str) else link).click()
        self.page.wait_for_function(f"() => window.__routed && {CELLS_READY}", timeout=10_000)

    def widths(self, selector: str) -> dict[str, float]:
        """An element's ``scrollWidth`` and ``clientWidth``: wider content than the box means
        a reader scrolls sideways (or loses what overflows)."""
        return self.page.evaluate(
            "(selector) => { const node = document.querySelector(selector);"
            " return {scroll: node.scrollWidth, client: node.clientWidth}; }",
            selector,
        )

    def screenshot(self, name: str, selector: str | None = None) -> Path:
        """The viewport, or the element ``selector`` names whole, under build/screenshots/."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / name
        if selector is None:
            self.page.screenshot(path=str(path), full_page=False)
        else:
            self.page.locator(selector).screenshot(path=str(path))
        return path


CHARTS_DRAWN = (
    "() => [...document.querySelectorAll('.chart[data-chart]')]"
    ".every(n => n.querySelector('svg') || n.textContent.startsWith('chart failed'))"
)
"""A page of charts is ready when every chart is drawn (or says why it failed)."""
CELLS_READY = "document.documentElement.dataset.cells === 'ready'"
"""The report page has decoded its cells and routed its address (``templates/browser.js``)."""
REPORT_READY = f"() => ({CHARTS_DRAWN})() && {CELLS_READY}"
"""The report page is ready when its charts are drawn and its cells decoded."""
DVC_PLOTS_DRAWN = (
    "() => { const divs = [...document.querySelectorAll('body > div[id]')];"
    " return divs.length > 0 && divs.every(d => d.querySelector('canvas, svg')); }"
)
"""``dvc plots show``'s page is ready when every plot's div holds a drawing."""


@contextmanager
def open_page(
    html: Path, *, width: int = 1400, height: int = 1000, ready: str = REPORT_READY
) -> Iterator[Page]:
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            result = Page(page)
            page.on("console", lambda m: m.type == "error" and result.console_errors.append(m.text))
            page.on("pageerror", lambda e: result.console_errors.append(f"pageerror: {e}"))
            page.on("request", lambda r: result.requests.append(r.url))
            page.goto(html.as_uri())
            page.wait_for_function(ready, timeout=60_000)
            yield result
        finally:
            browser.close()


def render_specs(specs: dict[str, dict[str, Any]], folder: Path) -> Iterator[Page]:
    """A bare page drawing each Vega-Lite spec with the report's inlined bundle, opened in
    Chromium (for specs the report does not draw itself, such as ``dvc plots`` output)."""
    from assay.report.vega import javascript

    charts = "".join(f'<div class="chart" data-chart="{name}"></div>' for name in specs)
    data = json.dumps(specs).replace("</", "<\\/")
    html = folder / "specs.html"
    html.write_text(
        f"<!doctype html><meta charset=utf-8><script>{javascript()}</script>{charts}<script>"
        f"const specs = {data};"
        "for (const n of document.querySelectorAll('.chart')) vegaEmbed(n, specs[n.dataset.chart],"
        " {renderer: 'svg', actions: false}).catch(e => { n.textContent = 'chart failed: ' + e;"
        " console.error(String(e)); });</script>",
        encoding="utf-8",
    )
    return open_page(html, ready=CHARTS_DRAWN)
