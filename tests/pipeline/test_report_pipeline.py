"""The report stage through real ``dvc repro`` on a fresh copy: progress in the log, the HTML
page in headless Chromium (screenshots in build/screenshots/), every written file
declared, both plots under ``dvc plots show``/``diff``, a short headline per run that ``dvc
metrics diff`` compares within 120 columns, and ``dvc checkout`` restoring every report after an
experiment."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from assay.pipeline.report import OUTPUTS
from tests.conftest import ROOT, Repo, stages_ran
from tests.publishable import published_text
from tests.report.browser import open_page
from tests.study import Study, copy_of

pytestmark = [pytest.mark.dvc, pytest.mark.docker, pytest.mark.browser]

RUN = "sim-follower-v1"
LONG_STAGES = (
    "selftest v1",
    f"execute {RUN}",
    f"correctness {RUN}",
    "measure repositories",
    "report",
)


@pytest.fixture(scope="module")
def studied(study: Study) -> tuple[Repo, str]:
    """The shared study (tests/study.py), read only, and the log of its `dvc repro`."""
    return study.repo, study.output


@pytest.fixture(scope="module")
def v1_study(v1_run: Study, tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, str]:
    """A copy of the shared v1 run (tests/study.py: ``run_v1``), for the experiments below."""
    return copy_of(v1_run, tmp_path_factory.mktemp("v1") / "repo"), v1_run.output


def test_each_long_stage_logs_throttled_progress(studied: tuple[Repo, str]) -> None:
    _, log = studied
    assert "\r" not in log
    for stage in LONG_STAGES:
        lines = [line for line in log.splitlines() if line.startswith(stage + ":")]
        assert lines, f"no progress from {stage}"
        final = re.search(r"(\d+)/(\d+) \[", lines[-1])
        assert final and final.group(1) == final.group(2), lines[-1]
        assert len(lines) < 40, f"{stage} floods the log: {len(lines)} lines"


def test_page_opens_offline_in_chromium_with_charts_and_an_explanation(
    studied: tuple[Repo, str],
) -> None:
    repo, _ = studied
    page = repo.path / "data/report/index.html"
    with open_page(page) as browser:
        sizes = browser.chart_sizes()
        # the duplication-cost chart is absent: simulated runs are never pooled by default
        assert {"verdicts_by_arm", "correctness_by_arm"} <= set(sizes)
        for name, size in sizes.items():
            assert size["width"] > 100 and size["height"] > 50 and size["marks"] > 0, (name, size)
        assert all(url.startswith("file://") for url in browser.requests), browser.requests
        text = browser.page.inner_text("body")
        assert "SIMULATED MODEL" in text and RUN in text
        overview = browser.screenshot("overview.png")
        browser.page.select_option("#filter-run", RUN)
        browser.page.select_option("#filter-verdict", "duplicated")
        browser.page.locator("#cell-table tbody tr").first.click()
        browser.page.wait_for_selector("#explanation")
        explanation = browser.page.inner_text("#explanation")
        assert "decided by" in explanation and "primitive_only" in explanation
        assert re.search(r"\w+(\.\w+)? line \d+", explanation), explanation
        assert browser.page.locator("#correctness table").count() >= 1
        cell = browser.screenshot("cell.png")
        assert browser.console_errors == []
    assert overview.stat().st_size > 20_000 and cell.stat().st_size > 20_000


def test_assay_show_prints_the_cell_page(studied: tuple[Repo, str]) -> None:
    repo, _ = studied
    cell = repo.run("python", "-m", "assay.cli", "sql", f"SELECT cell_id FROM verdicts WHERE run = '{RUN}' "
                    "AND verdict = 'duplicated' ORDER BY cell_id LIMIT 1", "--format", "csv").stdout.split()[1]  # fmt: skip
    shown = repo.run("python", "-m", "assay.cli", "show", RUN, cell).stdout
    for part in ("## Verdict: duplicated (primitive-only)", "decided by: primitive_only",
                 "## Correctness (secondary)", "## Metric deltas", "## Candidate (extracted)",
                 "## Raw response", "## Prompt", "SIMULATED MODEL"):  # fmt: skip
        assert part in shown, part
    missing = repo.run("python", "-m", "assay.cli", "show", RUN, "no/such/cell", check=False)
    assert missing.returncode == 2 and "no cell 'no/such/cell'" in missing.stderr


def _declared(repo: Repo) -> list[str]:
    stage = yaml.safe_load(repo.read("dvc.yaml"))["stages"]["report"]
    names = []
    for section in ("outs", "metrics", "plots"):
        for entry in stage.get(section, []):
            names.append(entry if isinstance(entry, str) else next(iter(entry)))
    return names


def test_every_file_the_report_stage_writes_is_declared(studied: tuple[Repo, str]) -> None:
    repo, _ = studied
    declared = _declared(repo)
    assert sorted(declared) == sorted(OUTPUTS)
    written = [
        p.relative_to(repo.path).as_posix()
        for folder in ("data/report", "reports")
        for p in (repo.path / folder).rglob("*")
        if p.is_file()
    ]
    assert written
    for name in written:
        assert any(name == d or name.startswith(d + "/") for d in declared), name
    assert "dvc_plots/" in repo.read(".gitignore").splitlines()


def test_metrics_are_a_short_headline(study: Study) -> None:
    metrics = json.loads(study.read("reports/metrics.json"))
    assert set(metrics) == set(study.params["runs"])
    subjects = len(study.params["subject_subset"]["v1"])  # every one complete
    assert (
        len(metrics[RUN]) <= 16  # sixteen headline numbers at most (docs/reports.md)
        and metrics[RUN]["simulated"] == 1
        and metrics[RUN]["complete"] == subjects
    )
    for run in metrics.values():
        assert all(v is None or isinstance(v, (int, float)) for v in run.values())


def _plots(repo: Repo, *args: str) -> dict[str, list[dict]]:
    """Per plot file: the Vega-Lite content DVC renders (data filled into the template)."""
    shown = json.loads(repo.dvc("plots", *args, "--json").stdout)["data"]
    return {name: entries for name, entries in shown.items() if name.startswith("reports/plots/")}


def _values_or_none(entries: list[dict]) -> list[dict] | None:
    return _values(entries) if entries else None


def _values(entries: list[dict]) -> list[dict]:
    (entry,) = entries
    return entry["content"]["data"]["values"]


def _check_verdict_plot(repo: Repo) -> None:
    shown = _plots(repo, "show")
    verdicts = _values(shown["reports/plots/verdicts_by_arm.csv"])
    assert verdicts and {row["rev"] for row in verdicts} == {"workspace"}
    assert {row["arm"] for row in verdicts} == {"clean", "inconsistent"}
    assert all(row["verdict"] and float(row["cells"]) > 0 for row in verdicts)
    assert sum(float(row["cells"]) for row in verdicts) == 48


def test_plots_render_alone_and_under_diff_headline_diff_fits_and_checkout_restores(
    v1_study: tuple[Repo, str],
) -> None:
    repo, _ = v1_study
    _check_verdict_plot(repo)
    repo.git("add", "-A")
    repo.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qm", "baseline")
    files = [
        p
        for d in OUTPUTS
        for p in sorted((repo.path / d).rglob("*") if (repo.path / d).is_dir() else [repo.path / d])
    ]
    baseline = {p: p.read_bytes() for p in files if p.is_file()}
    repo.dvc("exp", "run", "-n", "always-follow", "-S", "models.sim-follower.follow_rate=1.0")
    changed = [p for p, data in baseline.items() if p.read_bytes() != data]
    assert (
        repo.path / "data/report/index.html" in changed
        and repo.path / "reports/metrics.json" in changed
    )
    # `dvc exp show` draws one column per tracked param, metric and dependency (DVC 3 cannot
    # hide them by configuration), so only its content is checked; the long-format headline diff
    # is what fits a terminal (a plain table: its width is its natural width)
    table = repo.dvc("exp", "show", "--csv").stdout
    assert "always-follow" in table, table
    shown = json.loads(repo.dvc("exp", "show", "--json").stdout)
    headline = {
        rev.get("name") or (rev.get("data") or {}).get("rev"): ((rev.get("data") or {}).get(
            "metrics") or {}).get("reports/metrics.json", {}).get("data", {}).get(RUN, {})
        for entry in shown
        for rev in [entry] + [r for e in entry.get("experiments") or [] for r in e.get("revs", [])]
    }  # fmt: skip
    assert 0 < len(headline["always-follow"]) <= 16, headline
    assert headline["always-follow"]["reuse_ref"] == 1.0 != headline["main"]["reuse_ref"]
    compared = repo.dvc("metrics", "diff", "HEAD", "always-follow").stdout
    assert f"{RUN}.reuse_ref" in compared and "1.0" in compared, compared
    assert max(len(line) for line in compared.splitlines()) <= 120, compared
    _check_plots_diff(repo)
    repo.git("checkout", "--", ".")
    repo.dvc("checkout")
    for path, data in baseline.items():
        assert path.read_bytes() == data, f"{path} not restored"
    status = repo.dvc("status").stdout
    assert status.strip() == "Data and pipelines are up to date.", status


def _check_plots_diff(repo: Repo) -> None:
    shown = _plots(repo, "diff", "HEAD", "always-follow")
    verdicts = _values(shown["reports/plots/verdicts_by_arm.csv"])
    revs = {row["rev"] for row in verdicts}
    assert len(revs) == 2, revs
    # v1 has no mess levels, so reuse_by_level is empty here; tests/pipeline/test_report_plots.py
    # diffs it across two revisions with data
    assert not _values_or_none(shown.get("reports/plots/reuse_by_level.csv") or [])


def _readme_experiment_recipe() -> list[list[str]]:
    """The experiment commands of docs/experiments.md, as written (``uv run dvc …`` lines of the
    block that starts with ``dvc exp run``), split like a shell would; comments dropped."""
    import shlex

    lines = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    uv run dvc exp run"))
    block = []
    for line in lines[start:]:
        if not line.startswith("    uv run dvc "):
            break
        block.append(shlex.split(line.strip(), comments=True))
    return block


def test_the_readme_experiment_recipe_runs_as_written(v1_study: tuple[Repo, str]) -> None:
    """On the whole v1 run (the shared study's two subjects are too few for a follow rate of
    0.95 to move a headline number, and `dvc metrics diff` prints only what moved)."""
    repo, _ = v1_study
    recipe = _readme_experiment_recipe()
    assert [words[3] for words in recipe] == ["exp", "metrics", "exp", "plots"], recipe
    repo.git("add", "-A")
    repo.git("-c", "user.email=t@assay.invalid", "-c", "user.name=t", "commit", "-qm", "recipe",
             "--allow-empty")  # fmt: skip
    experiment = None
    for words in recipe:
        assert words[:3] == ["uv", "run", "dvc"]
        args = [experiment if w == "<experiment>" else w for w in words[3:]]
        done = repo.dvc(*args, timeout=1800)  # fails the test on any error, as a user would see
        if args[:2] == ["exp", "run"]:
            experiment = re.search(r"Ran experiment\(s\): (\S+)", done.stdout).group(1)
        if args[:2] == ["exp", "show"]:
            assert "reuse_ref" in done.stdout and "unexpected error" not in done.stderr
        if args[0] == "metrics":
            assert f"{RUN}.reuse_ref" in done.stdout
    page = repo.path / "dvc_plots" / "index.html"
    assert "cdn.jsdelivr" not in page.read_text(), "dvc plots diff needs the network"
    repo.git("checkout", "--", ".")
    repo.dvc("checkout")


def test_a_run_removed_from_params_leaves_the_page_and_every_report(
    study: Study, study_copy: Repo
) -> None:
    """DVC keeps the outputs of a removed foreach stage (the run's plan and authorization
    folders stay on disk): the report shows only the runs params.yaml declares."""
    removed, kept = "qwen-bank-new-again", "qwen-bank-new"
    assert f'href="#run-{removed}"' in study.read("data/report/index.html")
    assert "## Reproduction" in study.read(f"data/report/runs/{kept}/abstraction.md")
    repo = study_copy
    params = yaml.safe_load(repo.read("params.yaml"))
    del params["runs"][removed]
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repro = repo.dvc("repro")
    assert "report" in stages_ran(repro.stdout)
    assert (repo.path / "data" / "plan" / removed / "plan.json").exists()  # left on disk
    assert not (repo.path / "data" / "report" / "runs" / removed).exists()
    assert set(json.loads(repo.read("reports/metrics.json"))) == set(params["runs"])
    for name in (
        "data/report/index.html",
        "data/report/scenarios/bank-new.md",
        "data/report/scenarios/bank-new.json",
        "data/report/duplication_cost.json",
        "reports/plots/verdicts_by_arm.csv",
    ):
        assert removed not in published_text(repo.path / name), name  # the page's cells too
    assert "## Reproduction" not in repo.read(f"data/report/runs/{kept}/abstraction.md")
    with open_page(repo.path / "data/report/index.html") as browser:
        shown = browser.page.locator("#headline tbody tr td:first-child").all_inner_texts()
        real = [run for run in shown if not run.startswith("sim-")]  # the local and paid runs
        assert sorted(shown) == sorted(params["runs"]) and shown[: len(real)] == real
        assert kept in real and removed not in shown
        assert browser.console_errors == []
