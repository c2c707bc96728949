"""Bundle commands: ``assay export RUN DEST``, ``assay verify BUNDLE``, ``assay schemas write``."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from assay.commands import UsageError, add_data_argument


def _export(args: argparse.Namespace) -> int:
    from assay.config.params import ParamsError, load_params
    from assay.export.build import ExportError, export_run

    try:
        params = load_params(args.params)
        params.run(args.run)
        started = time.perf_counter()
        exported = export_run(args.run, Path(args.data), Path(params.ledger_root), Path(args.dest))
    except (ParamsError, ExportError) as exc:
        raise UsageError(str(exc)) from None
    for kind, files in exported.bundles.items():
        print(f"{Path(args.dest) / kind}: {files} files")
    print(
        f"run manifest sha256 {exported.run_manifest_sha256} "
        f"({time.perf_counter() - started:.1f} s); check with `assay verify {args.dest}`"
    )
    return 0


def bundles_in(path: Path) -> list[Path]:
    """``path`` itself when it is a bundle, else the bundles directly inside it."""
    from assay.export.manifest import BUNDLE_MANIFEST

    if (path / BUNDLE_MANIFEST).exists() or not path.is_dir():
        return [path]
    inside = sorted(p for p in path.iterdir() if (p / BUNDLE_MANIFEST).exists())
    return inside or [path]


def _verify(args: argparse.Namespace) -> int:
    from assay.export.verify import verify_bundle

    path = Path(args.bundle)
    if not path.exists():
        raise UsageError(f"{path}: no such bundle")
    failed = 0
    for bundle in bundles_in(path):
        result = verify_bundle(bundle)
        print(result.line() if len(bundles_in(path)) == 1 else f"{bundle}: {result.line()}")
        failed += not result.verified
    return 1 if failed else 0


def _schemas_write(args: argparse.Namespace) -> int:
    from assay.export.schemas import write_all

    for path in write_all(Path(args.out)):
        print(path)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    export = subparsers.add_parser(
        "export", help="write a run's abstraction/ and correctness/ bundles into a new folder"
    )
    export.add_argument("run", help="a run declared in params.yaml (`assay run list`)")
    export.add_argument("dest", help="a new (or empty) folder; never overwritten")
    add_data_argument(export, "the pipeline's data folder")
    export.add_argument(
        "--params", default="params.yaml", help="where the ledger lives (ledger_root)"
    )
    export.set_defaults(handler=_export)

    verify = subparsers.add_parser(
        "verify", help="check a bundle offline: every byte, every record, the recomputed report"
    )
    verify.add_argument("bundle", help="a bundle, or an export folder holding bundles")
    verify.set_defaults(handler=_verify)

    schemas = subparsers.add_parser("schemas", help="the paa-* JSON Schemas")
    schemas_sub = schemas.add_subparsers(dest="schemas_command", required=True)
    write = schemas_sub.add_parser("write", help="regenerate schemas/ from the records")
    write.add_argument("--out", default="schemas", help="folder to write the schemas to")
    write.set_defaults(handler=_schemas_write)
