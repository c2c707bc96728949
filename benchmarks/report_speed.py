"""How long the report stage takes on the evidence under data/, step by step, and how large
the HTML page is (and what makes it large).

Writes into a temporary folder, so data/report is untouched. Run after `dvc repro`:

    uv run python benchmarks/report_speed.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from assay import evidence
from assay.report import vega
from assay.report.cell_browser import cell_records
from assay.report.codebase_sets import build_codebase_sets
from assay.report.costs import build_costs
from assay.report.database import connect
from assay.report.headline import headlines
from assay.report.html import page_context, render_page
from assay.report.primary import build_all
from assay.report.scenarios import build_scenario_reports


def main() -> None:
    times: dict[str, float] = {}

    def timed(name, function, *args):
        started = time.perf_counter()
        result = function(*args)
        times[name] = time.perf_counter() - started
        return result

    con = timed("connect (views)", connect, evidence.DATA)
    reports = timed("run reports", build_all, con)
    scenarios = timed("scenario reports", build_scenario_reports, con, reports["abstraction"])
    costs = timed("duplication cost", build_costs, con, None)
    cells = timed("cell records", cell_records, con)
    timed("vega bundle (cached after the first run)", vega.javascript)
    context = timed(
        "page context + charts",
        page_context,
        reports,
        scenarios,
        build_codebase_sets(scenarios),
        costs,
        headlines(reports),
        cells,
    )
    page = timed("render page (Jinja2)", render_page, context)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "index.html"
        timed("write page", out.write_text, page, "utf-8")
    for name, seconds in times.items():
        print(f"{name:<42} {seconds:7.2f} s")
    print(f"{'total':<42} {sum(times.values()):7.2f} s")
    size = len(page.encode())
    bundle = len(context["vega"].encode())
    prompts = sum(len(p.encode()) for p in context["cells"]["prompts"])
    print(f"page {size / 1e6:.2f} MB: vega bundle {bundle / 1e6:.2f} MB, {len(cells)} cells, "
          f"{len(context['cells']['prompts'])} distinct prompts {prompts / 1e6:.2f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
