"""What the Inspect logs add to a study: the ``inspect_logs`` stage as DVC runs it (a fresh
Python process: importing ``inspect_ai``, opening the report's views, writing every run's log),
the in-process time per run, and ``assay inspect-view`` (the viewer bundle), on a studied
repository (a clone after ``scripts/study``, or ``benchmarks/study.py --keep DIR``).

    uv run python benchmarks/inspect_logs.py [REPOSITORY]     (default: this checkout)

The stage writes into a temporary folder (``data/inspect_logs`` is left as it is); the logs
written are compared byte for byte with the stage's own when it has run. The code measured is this
checkout's, the evidence the repository's. Prints the CPU (name, family, model) and the load
average, since this machine's speed varies by the hour.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WHOLE = """
import sys
from pathlib import Path
from assay.pipeline.inspect_logs import write_logs
write_logs(Path("data"), Path(sys.argv[1]), tuple(sys.argv[2].split(",")), Path(sys.argv[3]))
"""
"""The stage's work as DVC runs it: one fresh process, every run."""

STAGE = """
import sys, time
started = time.perf_counter()
from pathlib import Path
from assay.inspect.log_evidence import run_evidence
from assay.inspect.logs import write_log
from assay.report.database import connect
imported = time.perf_counter()
runs = tuple(sys.argv[3].split(","))
out = Path(sys.argv[2])
out.mkdir()
con = connect(Path("data"), runs)
print(f"imports {imported - started:.2f} s, the views {time.perf_counter() - imported:.2f} s")
for run in runs:
    t = time.perf_counter()
    write_log(run_evidence(con, run, Path("data"), Path(sys.argv[1])), out)
    print(f"  {run} {time.perf_counter() - t:.2f} s")
"""


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu() -> str:
    fields: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return (
        f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')}, "
        f"model {fields.get('model', '?')}), {os.cpu_count()} cores"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repository", nargs="?", default=str(ROOT))
    repo = Path(parser.parse_args().repository).resolve()
    import yaml

    params = yaml.safe_load((repo / "params.yaml").read_text(encoding="utf-8"))
    runs = list(params["runs"])
    ledger = repo / params["ledger_root"]
    python = str(ROOT / ".venv" / "bin" / "python")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}  # this checkout's code, its data
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {cpu()}")
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "data" / "inspect_logs"  # the folder `assay inspect-view` reads
        started, cpu_before = time.perf_counter(), children_cpu()
        subprocess.run(
            [python, "-c", WHOLE, str(ledger), ",".join(runs), str(out)],
            cwd=repo, env=env, check=True, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        whole, whole_cpu = time.perf_counter() - started, children_cpu() - cpu_before
        logs = sorted(out.iterdir())
        size = sum(p.stat().st_size for p in logs)
        largest = max(logs, key=lambda p: p.stat().st_size)
        print(f"largest log: {largest.name}, {largest.stat().st_size / 1e6:.1f} MB")
        print(f"the stage's work as one process, {len(runs)} runs: {whole:.1f} s, "
              f"{whole_cpu:.1f} s of CPU ({len(logs)} logs, {size / 1e6:.1f} MB)")  # fmt: skip
        stage = repo / "data" / "inspect_logs"
        if stage.is_dir():
            same = [p.name for p in logs] == sorted(p.name for p in stage.iterdir()) and all(
                p.read_bytes() == (stage / p.name).read_bytes() for p in logs
            )
            print(f"byte-identical to the stage's own logs: {same}")
        detail = subprocess.run(
            [python, "-c", STAGE, str(ledger), str(Path(scratch) / "again"), ",".join(runs)],
            cwd=repo, env=env, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        print(detail.rstrip())
        started, cpu_before = time.perf_counter(), children_cpu()
        subprocess.run(
            [str(ROOT / ".venv" / "bin" / "assay"), "inspect-view", str(Path(scratch) / "view"),
             "--data", str(Path(scratch) / "data")],
            cwd=repo, env=env, check=True, capture_output=True,
        )  # fmt: skip
        print(
            f"assay inspect-view: {time.perf_counter() - started:.1f} s, "
            f"{children_cpu() - cpu_before:.1f} s of CPU"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
