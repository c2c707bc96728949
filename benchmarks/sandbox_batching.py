"""One container per candidate (assay now) against several candidates per container (assay
before issue 23), side by side in one run.

    uv run python benchmarks/sandbox_batching.py [--scenario dose] [--rounds 2] [--batched-at REV]

Batching was dropped: a case in a shared container sees the container's PID counter and its
cgroup's cumulative CPU time and peak memory, which earlier candidates advanced and no cleanup
can reset, so a batched verdict could not be proven equal to the verdict alone. This measures
what that costs. The requests are a scenario's self-test (every sandboxed arm × both references,
plus the known-wrong implementation once per subject), run through ``evaluate_many`` on the
default workers, alternately by this tree and by revision REV (default: the last one with
batching, its default batch of up to 12 candidates per container), each round in a fresh
process. REV's ``src``, ``sandbox`` and ``fixtures`` are extracted with ``git archive`` into a
temporary folder; it builds its own sandbox image (once; the image stays, as any tree's would).
Both must give the same statuses. Prints the best wall time of each, the ratio and the load
average (other processes share the cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAST_BATCHED = "83348de"
"""The last revision of main that shared containers between candidates."""

DRIVER = """
import json, sys, tempfile, time
from pathlib import Path
from assay.fixtures.scenarios import image_kind, load_scenario
from assay.sandbox import parallel
from assay.sandbox.cells import request_for
from assay.sandbox.image import ensure_image
from assay.sandbox.selftest import KNOWN_WRONG

tree, scenario = Path(sys.argv[1]), sys.argv[2]
with tempfile.TemporaryDirectory() as work:
    kind = image_kind(scenario)
    image = ensure_image(kind, Path(work) / f"{kind}.json").image_id
requests = []
for subject in load_scenario(scenario, tree / "fixtures").subjects:
    arms = [arm for arm in subject.arms if arm.sandbox != "skip"]
    for index, arm in enumerate(arms):
        sources = [subject.task.references.reused, subject.task.references.duplicated]
        for source in sources + ([KNOWN_WRONG] if index == 0 else []):
            requests.append(request_for(subject, arm.name, source, image))
started = time.perf_counter()
results = parallel.evaluate_many(requests, workers=parallel.default_workers())
elapsed = time.perf_counter() - started
print(json.dumps({"seconds": elapsed, "statuses": [r.status for r in results]}))
"""


def extract(revision: str, into: Path) -> Path:
    """``src``, ``sandbox`` and ``fixtures`` of ``revision``, as a tree under ``into``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "src", "sandbox", "fixtures"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout  # fmt: skip
    tree = into / revision
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def timed(tree: Path, scenario: str) -> dict[str, object]:
    """One run of the self-test requests by the code of ``tree``, in a fresh process."""
    environment = {**os.environ, "PYTHONPATH": str(tree / "src")}
    output = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tree), scenario],
        env=environment, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return dict(json.loads(output.splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="dose")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batched-at", default=LAST_BATCHED)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        trees = {"one per candidate": ROOT, "batched": extract(args.batched_at, Path(work))}
        best: dict[str, float] = {}
        statuses: dict[str, object] = {}
        print(f"{args.scenario}: batched at {args.batched_at}; load {os.getloadavg()}")
        for _ in range(args.rounds):
            for name, tree in trees.items():
                run = timed(tree, args.scenario)
                seconds = float(run["seconds"])  # type: ignore[arg-type]
                best[name] = min(best.get(name, seconds), seconds)
                statuses[name] = run["statuses"]
                print(f"  {name:18s} {seconds:6.1f} s")
    assert statuses["one per candidate"] == statuses["batched"], "the statuses differ"
    count = len(statuses["batched"])  # type: ignore[arg-type]
    for name, seconds in best.items():
        print(f"{name:18s} {seconds:6.1f} s ({seconds / count:.3f} s per candidate)")
    print(
        f"batching gained {best['one per candidate'] / best['batched']:.2f}x "
        f"({count} candidates); load after {os.getloadavg()}"
    )


if __name__ == "__main__":
    main()
