"""Time to export a run's two bundles and to verify each, from a repository after `dvc repro`.

    uv run python benchmarks/export_verify.py RUN [--data data] [--ledger ledger] [--repeat 3]

Prints the median wall time of ``export_run`` (both bundles, every record validated, both
reports recomputed) and of ``verify_bundle`` per bundle, with the bundles' sizes.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from assay.export.build import export_run
from assay.export.selection import KINDS
from assay.export.verify import verify_bundle


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("run")
    parser.add_argument("--data", default="data")
    parser.add_argument("--ledger", default="ledger")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    exports: list[float] = []
    verifies: dict[str, list[float]] = {kind: [] for kind in KINDS}
    with tempfile.TemporaryDirectory() as scratch:
        for attempt in range(args.repeat):
            destination = Path(scratch) / str(attempt)
            started = time.perf_counter()
            export_run(args.run, Path(args.data), Path(args.ledger), destination)
            exports.append(time.perf_counter() - started)
            for kind in KINDS:
                started = time.perf_counter()
                result = verify_bundle(destination / kind)
                verifies[kind].append(time.perf_counter() - started)
                assert result.verified, result.line()
        sizes = {
            kind: (
                sum(1 for p in (destination / kind).rglob("*") if p.is_file()),
                sum(p.stat().st_size for p in (destination / kind).rglob("*") if p.is_file()),
            )
            for kind in KINDS
        }
    print(f"export {args.run}: median {statistics.median(exports):.2f} s over {args.repeat}")
    for kind in KINDS:
        files, size = sizes[kind]
        print(
            f"verify {kind}: median {statistics.median(verifies[kind]):.2f} s "
            f"({files} files, {size / 1024:.0f} KiB)"
        )


if __name__ == "__main__":
    main()
