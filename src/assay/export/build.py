"""``export_run``: one run's ``abstraction/`` and ``correctness/`` bundles, in a new folder.

Each bundle mirrors the pipeline's layout (``data/<stage>/<run or scenario>/…``), so the report
is recomputed from it by the same DuckDB views and queries the ``report`` stage runs
(:func:`assay.export.report.bundle_report`). Every record is validated against its JSON Schema
before it is written; every Parquet table is rewritten with its published columns only.

The destination must not exist or be an empty folder. Both bundles are written into a
temporary sibling folder and moved into place in one rename, so an interrupted export leaves
no half-written destination and an existing one is never overwritten.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from assay.core.digest import sha256_hex
from assay.core.errors import EvidenceError
from assay.core.records import Frozen
from assay.core.tables import schema_for
from assay.evidence import CANDIDATES, is_simulated, paths
from assay.evidence.plan import load_plan
from assay.export import manifest as mf
from assay.export.report import bundle_report, report_files
from assay.export.schemas import NAMES, first_error, render
from assay.export.selection import EVIDENCE_TABLES, KINDS, SHARED_TABLES, Table
from assay.fixtures.scenarios import image_kind
from assay.paid.ledger import LEDGER_FILE, Ledger
from assay.paid.ledger_records import LedgerOutcome
from assay.report.run_records import RunReport


class ExportError(EvidenceError):
    """The destination is not new and empty, or the run's records are missing or invalid."""


class Exported(Frozen):
    run: str
    destination: str
    run_manifest_sha256: str
    bundles: dict[str, int]
    """Files per bundle."""


def _check_destination(destination: Path) -> None:
    if destination.is_symlink() or (destination.exists() and not destination.is_dir()):
        raise ExportError(f"{destination}: exists and is not a folder; export needs a new one")
    if destination.is_dir() and any(destination.iterdir()):
        raise ExportError(
            f"{destination}: not empty; export writes only into a new, empty destination"
        )


def _json_record(path: Path, schema: str, record: str) -> bytes:
    data = path.read_bytes()
    error = first_error(schema, record, json.loads(data))
    if error:
        raise ExportError(f"{path}: not a valid {record} ({schema}): {error}")
    return data


def _table_bytes(table: Table, source: Path, run: str) -> bytes:
    """The table's published columns (and, for per-run tables, the run's rows) as Parquet."""
    if not source.exists():
        raise ExportError(f"{source}: missing; run `dvc repro` first")
    arrow = pq.read_table(source)
    missing = [c for c in table.columns if c not in arrow.column_names]
    if missing:
        raise ExportError(f"{source}: no column {missing[0]!r}")
    rows = arrow.select(list(table.columns)).to_pylist()
    if table.source.per == "run":
        rows = [row for row in rows if row["run"] == run]
    record = table.row.__name__
    for index, row in enumerate(rows):
        error = first_error(table.schema_name, record, row)
        if error:
            raise ExportError(f"{source}: row {index} is not a valid {record}: {error}")
    with tempfile.TemporaryFile() as handle:
        pq.write_table(pa.Table.from_pylist(rows, schema=schema_for(table.row)), handle)
        handle.seek(0)
        return handle.read()


def _named_digests(ledger: Ledger) -> set[str]:
    """The response bodies and texts the ledger's outcomes name, each line read into its record
    (:mod:`assay.paid.ledger_records`) by the ledger's own reader."""
    digests: set[str] = set()
    read = 0
    try:
        for line in ledger.records():
            read += 1
            if isinstance(line, LedgerOutcome):
                digests |= {d for d in (line.response_digest, line.text_digest) if d}
    except ValidationError as exc:
        raise ExportError(f"{ledger.path}: line {read + 1}: {exc.errors()[0]['msg']}") from None
    return digests


def _ledger_files(ledger: Path) -> Iterator[tuple[str, bytes]]:
    """The ledger's complete lines (each validated) and the bodies its outcomes name."""
    path = ledger / LEDGER_FILE
    if not path.exists():
        return
    digests = _named_digests(Ledger(ledger))
    raw = path.read_bytes()
    complete = raw[: raw.rfind(b"\n") + 1]  # a torn last line was never acted on
    yield f"ledger/{LEDGER_FILE}", complete
    for digest in sorted(digests):
        body = (ledger / "objects" / digest).read_bytes()
        if sha256_hex(body) != digest:
            raise ExportError(f"{ledger / 'objects' / digest}: content does not match its name")
        yield f"ledger/objects/{digest}", body


def run_records(data: Path, ledger_root: Path, run: str) -> tuple[dict[str, bytes], mf.RunManifest]:
    """Every immutable record of ``run`` (bundle path → bytes) and the run manifest over them."""
    plan_path = paths.plan_file(run, data)
    if not plan_path.exists():
        raise ExportError(f"{plan_path}: missing; run `dvc repro` first")
    plan = load_plan(plan_path.read_bytes())
    recorded_hash = paths.plan_hash_file(run, data).read_text(encoding="ascii").strip()
    if recorded_hash != plan.hash:
        raise ExportError(f"{plan_path}: its hash is not the one in plan.sha256")
    sources = paths.sources_file(plan.scenario)  # bundle paths: the same, under the bundle
    files: dict[str, bytes] = {
        paths.plan_file(run).as_posix(): _json_record(plan_path, "paa-operating-record", "Plan"),
        paths.plan_hash_file(run).as_posix(): paths.plan_hash_file(run, data).read_bytes(),
        paths.authorization_file(run).as_posix(): _json_record(
            paths.authorization_file(run, data), "paa-operating-record", "Authorization"
        ),
        sources.as_posix(): (
            paths.scenario_source("subjects", run, plan.scenario, data) / sources.name
        ).read_bytes(),
    }
    if sha256_hex(files[sources.as_posix()]) != plan.fixture_sources:
        raise ExportError(f"{sources}: not the plan's fixtures")
    kind = image_kind(plan.scenario)  # the image the plan pins
    image = paths.image_record(kind, data)
    if image.exists():
        files[paths.image_record(kind).as_posix()] = _json_record(
            image, "paa-operating-record", "ImageRecord"
        )
    for table in SHARED_TABLES:
        files[table.path(run, plan.scenario)] = _table_bytes(
            table, table.data_path(data, run, plan.scenario), run
        )
    files.update(_ledger_files(ledger_root / run / plan.hash))
    candidates = pq.read_table(CANDIDATES.path(run, data))
    versions = sorted(set(candidates.column("extraction_version").to_pylist()))
    manifest = mf.seal(
        mf.RunManifest(
            run=run,
            scenario=plan.scenario,
            plan_hash=plan.hash,
            simulated=is_simulated(plan, data),
            fixture_sources=plan.fixture_sources,
            image_id=plan.sandbox.get("image_id"),
            tools=plan.tools,
            extraction_versions=tuple(versions),
            files=tuple(mf.entry(path, files[path]) for path in sorted(files)),
        )
    )
    return files, manifest


def _checked(manifest: mf.M) -> bytes:
    """The manifest's bytes, after validating it against its schema like every record."""
    name = type(manifest).__name__
    error = first_error("paa-operating-record", name, manifest.model_dump(mode="json"))
    if error:
        raise ExportError(f"{name} of {getattr(manifest, 'run', '?')}: {error}")
    return mf.dump(manifest)


def _write(root: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _write_bundle(
    root: Path,
    kind: str,
    data: Path,
    shared: dict[str, bytes],
    manifest: mf.RunManifest,
) -> int:
    run, scenario = manifest.run, manifest.scenario
    own: dict[str, bytes] = {f"schemas/{name}.json": render(name).encode() for name in NAMES}
    for table in EVIDENCE_TABLES[kind]:
        own[table.path(run, scenario)] = _table_bytes(
            table, table.data_path(data, run, scenario), run
        )
    manifest_bytes = _checked(manifest)
    _write(root, {**shared, **own, mf.RUN_MANIFEST: manifest_bytes})
    pipeline = paths.report_dir(data) / "runs" / run / f"{kind}.json"
    # the pipeline's report when there is one (export_run then verifies that the bundle
    # recomputes it, byte for byte); else the bundle's own
    report = _pipeline_report(pipeline) if pipeline.exists() else bundle_report(root, kind, run)
    own.update(report_files(kind, report))
    _write(root, own)
    tables = (*SHARED_TABLES, *EVIDENCE_TABLES[kind])
    bundle = mf.seal(
        mf.BundleManifest(
            kind=kind,  # type: ignore[arg-type]
            run=run,
            plan_hash=manifest.plan_hash,
            run_manifest_sha256=sha256_hex(manifest_bytes),
            columns={table.name: table.columns for table in tables},
            files=tuple(mf.entry(path, own[path]) for path in sorted(own)),
        )
    )
    (root / mf.BUNDLE_MANIFEST).write_bytes(_checked(bundle))
    return len(shared) + len(own) + 2


BESIDE_THE_BUNDLE = ("rescoring", "adjudication", "reproduction", "deviation", "replanned")
"""Sections of the pipeline's run report built from evidence no bundle holds (every structure
version's verdicts, the human adjudication file, another fresh run of the same plan,
params.yaml's analysis now, a free run's earlier plan). They are reported beside the preregistered
result, never inside it, so a bundle's report is compared with the pipeline's without them."""


def _pipeline_report(path: Path) -> RunReport:
    """The pipeline's run report (validated as the record it is) less the sections in
    ``BESIDE_THE_BUNDLE``."""
    report = RunReport.model_validate_json(path.read_bytes())
    return report.model_copy(update=dict.fromkeys(BESIDE_THE_BUNDLE))


def _verify_all(staging: Path, run: str, data: Path) -> None:
    """Each bundle verifies offline, its report recomputed from the bundle alone included: so the
    pipeline's report it carries is the one its records give."""
    from assay.export.verify import Validated, verify_bundle

    validated: Validated = set()  # the run records both bundles carry are checked once
    for kind in KINDS:
        result = verify_bundle(staging / kind, validated)
        if not result.verified:
            raise ExportError(
                f"{kind} bundle of {run} does not verify ({result.line()}): the pipeline's report "
                f"under {paths.report_dir(data) / 'runs' / run} is not what the run's records "
                "give; run `dvc repro` so the report is current, then export again"
            )


def export_run(run: str, data: Path, ledger_root: Path, destination: Path) -> Exported:
    """Write ``destination/abstraction`` and ``destination/correctness`` for ``run``."""
    _check_destination(destination)
    shared, manifest = run_records(data, ledger_root, run)
    parent = destination.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=parent))
    try:
        counts = {
            kind: _write_bundle(staging / kind, kind, data, shared, manifest) for kind in KINDS
        }
        _verify_all(staging, run, data)
        _check_destination(destination)
        try:
            os.rename(staging, destination)  # onto a missing or empty folder only
        except OSError as exc:
            raise ExportError(f"{destination}: {exc.strerror}; nothing was exported") from None
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return Exported(
        run=run,
        destination=str(destination),
        run_manifest_sha256=sha256_hex(mf.dump(manifest)),
        bundles=counts,
    )


__all__ = ["ExportError", "Exported", "export_run", "run_records"]
