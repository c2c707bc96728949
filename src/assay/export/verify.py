"""``verify_bundle``: check a bundle from its own bytes alone, offline (no network, no Docker).

In order, stopping at the first difference (a value, never an exception):

1. the bundle manifest and the run manifest: each parses, is in its one written form, and
   matches its own ``digest``; the run manifest is the one the bundle manifest names;
2. every file: listed in a manifest, present, and with the listed sha256 (nothing extra);
3. every record: valid against the bundle's JSON Schemas; every Parquet table holds exactly
   its published columns;
4. the run records agree: plan hash, authorization, fixture digests, ledger header, every
   call's response body and text against the ledger, every response body under its digest;
   every call's prompt is stored under its digest, is the digest the ledger's intent names,
   and is what the run would send: the rendered prompt at step 1, and at chain steps 2-5 the
   prompt rendered again from the earlier steps' answers;
5. candidates are re-extracted from the responses with the recorded extraction version (against
   the repository each prompt showed, rebuilt as in 4), and
   (abstraction bundle) structural verdicts are scored again with the recorded evaluator
   version; correctness results are not re-run (that needs Docker and the hidden vectors);
6. the report is recomputed from the bundle (the pipeline's own DuckDB SQL) and compared
   byte for byte with the bundled report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from assay.core.digest import sha256_hex
from assay.core.records import CallKey, Frozen, Verdict
from assay.evidence import PROMPT_TEXTS, CandidateRow, PromptRow, paths
from assay.evidence.plan import load_plan
from assay.export import manifest as mf
from assay.export.report import bundle_report, report_files
from assay.export.schemas import first_error
from assay.export.selection import EVIDENCE_TABLES, SHARED_TABLES, Table
from assay.fixtures.scenarios import image_kind
from assay.paid.ledger_records import (
    LEDGER_RECORDS,
    LINE,
    LedgerHeader,
    LedgerIntent,
    LedgerOutcome,
)
from assay.science.chain_prompts import ChainRenderer, shown_repositories
from assay.science.extract import VERSIONS, extract_candidate
from assay.structure import EVALUATOR_VERSIONS, verdict_for, verdicts_in_step_order

M = TypeVar("M", mf.RunManifest, mf.BundleManifest)


class Verification(Frozen):
    bundle: str
    path: str | None = None
    """The first file that differs (relative to the bundle); ``None`` when verified."""
    reason: str | None = None

    @property
    def verified(self) -> bool:
        return self.path is None

    def line(self) -> str:
        return "verified" if self.verified else f"{self.path}: {self.reason}"


class Differs(Exception):
    """Internal: the first difference found (turned into a ``Verification`` at the top)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


Validated = set[tuple[str, str, str]]
"""Contents already checked against a schema: (sha256 of the file, sha256 of the schema, record).
A check is a function of exactly these, so content checked once (the run records both bundles
of one export carry, byte for byte) need not be checked again. Also the checks of the run's calls
and candidates (:data:`CALLS_CHECKED`), keyed by the sha256 of the run manifest: every file they
read is a run record the manifest lists by sha256, and :func:`_check_files` holds each one to it,
so a second bundle with the same run manifest holds the same bytes."""

CALLS_CHECKED = "calls-and-candidates"
"""The ``validated`` entry of a run manifest whose calls and candidates were checked (prompts
sent, responses against the ledger, candidates re-extracted): ``(sha256, "", CALLS_CHECKED)``."""


def verify_bundle(bundle: Path, validated: Validated | None = None) -> Verification:
    """``validated``: shared between the verifications of one export's two bundles, whose run
    records are the same bytes; each bundle's own files are still checked against its manifests
    and every table against its columns."""
    try:
        _verify(bundle, set() if validated is None else validated)
    except Differs as difference:
        return Verification(bundle=str(bundle), path=difference.path, reason=difference.reason)
    return Verification(bundle=str(bundle))


def _read_manifest(bundle: Path, name: str, model: type[M]) -> tuple[M, bytes]:
    path = bundle / name
    if not path.is_file():
        raise Differs(name, "missing")
    data = path.read_bytes()
    try:
        manifest = model.model_validate_json(data)
    except ValidationError as exc:
        raise Differs(name, f"not a valid manifest: {exc.errors()[0]['msg']}") from None
    if mf.dump(manifest) != data or mf.self_digest(manifest) != manifest.digest:
        raise Differs(name, "differs from its own digest")
    return manifest, data


def _files(bundle: Path) -> Iterator[str]:
    for path in sorted(bundle.rglob("*")):
        if path.is_symlink() or not path.is_dir():
            yield path.relative_to(bundle).as_posix()


def _check_files(bundle: Path, listed: dict[str, mf.FileEntry]) -> None:
    expected = {mf.BUNDLE_MANIFEST, mf.RUN_MANIFEST, *listed}
    for relative in sorted(expected | set(_files(bundle))):
        path = bundle / relative
        if relative not in expected:
            raise Differs(relative, "not listed in the bundle's manifests")
        if relative in (mf.BUNDLE_MANIFEST, mf.RUN_MANIFEST):
            continue
        if path.is_symlink() or not path.is_file():
            raise Differs(relative, "missing")
        data = path.read_bytes()
        if sha256_hex(data) != listed[relative].sha256 or len(data) != listed[relative].bytes:
            raise Differs(relative, "differs from its manifest entry (sha256)")


class _Bundle:
    """Read access to a bundle whose files all match their manifest entries."""

    def __init__(
        self,
        root: Path,
        kind: str,
        run: str,
        scenario: str,
        validated: Validated,
        run_manifest_sha256: str = "",
    ) -> None:
        self.root, self.kind, self.run, self.scenario = root, kind, run, scenario
        self.validated = validated
        self.run_manifest_sha256 = run_manifest_sha256
        """Of the run manifest every run record was checked against (:func:`_check_files`)."""

    def content_key(self, data: bytes, schema: str, record: str) -> tuple[str, str, str]:
        """What a check of ``data`` against this bundle's ``schema`` as ``record`` depends on
        (added to ``validated`` once the check passed)."""
        return (sha256_hex(data), sha256_hex(self.schema(schema)), record)

    def schema(self, name: str) -> str:
        return (self.root / "schemas" / f"{name}.json").read_text(encoding="utf-8")

    def check(self, relative: str, schema: str, record: str, value: Any) -> None:
        error = first_error(schema, record, value, self.schema(schema))
        if error:
            raise Differs(relative, f"not a valid {record} ({schema}): {error}")

    def json(self, relative: str, schema: str, record: str) -> Any:
        try:
            value = json.loads((self.root / relative).read_bytes())
        except ValueError as exc:
            raise Differs(relative, f"not JSON: {exc}") from None
        self.check(relative, schema, record, value)
        return value

    def table(self, table: Table, columns: dict[str, tuple[str, ...]]) -> list[dict[str, Any]]:
        relative = table.path(self.run, self.scenario)
        data = (self.root / relative).read_bytes()
        try:
            arrow = pq.read_table(pa.BufferReader(data))
        except (pa.ArrowException, OSError) as exc:
            raise Differs(relative, f"not a Parquet table: {exc}") from None
        if tuple(arrow.column_names) != table.columns or columns.get(table.name) != table.columns:
            raise Differs(relative, f"columns are not the published ones: {arrow.column_names}")
        rows: list[dict[str, Any]] = arrow.to_pylist()
        key = self.content_key(data, table.schema_name, table.row.__name__)
        if key in self.validated:
            return rows
        for index, row in enumerate(rows):
            error = first_error(table.schema_name, table.row.__name__, row,
                                self.schema(table.schema_name))  # fmt: skip
            if error:
                raise Differs(relative, f"row {index}: {error}")
        self.validated.add(key)
        return rows


def _verify(root: Path, validated: Validated) -> None:
    bundle_manifest, _ = _read_manifest(root, mf.BUNDLE_MANIFEST, mf.BundleManifest)
    run_manifest, run_bytes = _read_manifest(root, mf.RUN_MANIFEST, mf.RunManifest)
    if sha256_hex(run_bytes) != bundle_manifest.run_manifest_sha256:
        raise Differs(mf.RUN_MANIFEST, "is not the run manifest the bundle manifest names")
    if (run_manifest.run, run_manifest.plan_hash) != (
        bundle_manifest.run,
        bundle_manifest.plan_hash,
    ):
        raise Differs(mf.RUN_MANIFEST, "names another run or plan than bundle.json")
    listed = {e.path: e for e in (*run_manifest.files, *bundle_manifest.files)}
    _check_files(root, listed)
    bundle = _Bundle(root, bundle_manifest.kind, run_manifest.run, run_manifest.scenario,
                     validated, sha256_hex(run_bytes))  # fmt: skip
    for name, document in ((mf.BUNDLE_MANIFEST, bundle_manifest), (mf.RUN_MANIFEST, run_manifest)):
        bundle.check(name, "paa-operating-record", type(document).__name__,
                     document.model_dump(mode="json"))  # fmt: skip
    for check in _CHECKS:
        check(bundle, run_manifest, bundle_manifest)


def _run_records(bundle: _Bundle, run: mf.RunManifest, _: mf.BundleManifest) -> None:
    plan_path = paths.plan_file(run.run).as_posix()
    bundle.json(plan_path, "paa-operating-record", "Plan")
    plan = load_plan((bundle.root / plan_path).read_bytes())
    hash_path = paths.plan_hash_file(run.run).as_posix()
    if plan.hash != run.plan_hash:
        raise Differs(plan_path, "its hash is not the manifest's plan hash")
    if (bundle.root / hash_path).read_text(encoding="ascii").strip() != plan.hash:
        raise Differs(hash_path, "is not the plan's hash")
    auth_path = paths.authorization_file(run.run).as_posix()
    if bundle.json(auth_path, "paa-operating-record", "Authorization")["plan_hash"] != plan.hash:
        raise Differs(auth_path, "authorizes another plan")
    sources = paths.sources_file(run.scenario).as_posix()
    if sha256_hex((bundle.root / sources).read_bytes()) != plan.fixture_sources:
        raise Differs(sources, "is not the fixture manifest the plan binds")
    if plan.sandbox.get("image_id") != run.image_id:
        raise Differs(plan_path, "pins another sandbox image than the manifest")
    image = paths.image_record(image_kind(run.scenario)).as_posix()
    if (bundle.root / image).exists():
        pinned = bundle.json(image, "paa-operating-record", "ImageRecord")["image_id"]
        if run.image_id is not None and pinned != run.image_id:
            raise Differs(image, "is not the image the plan pins")


def _ledger(
    bundle: _Bundle, run: mf.RunManifest
) -> tuple[dict[CallKey, LedgerOutcome], dict[CallKey, LedgerIntent]]:
    """The ledger's latest outcome and latest intent by call key (empty when the run never
    opened a ledger). Each line is checked against the bundle's schema, then read as the
    ledger reads it (``assay.paid.ledger_records.LINE``)."""
    relative = "ledger/ledger.jsonl"
    outcomes: dict[CallKey, LedgerOutcome] = {}
    intents: dict[CallKey, LedgerIntent] = {}
    if not (bundle.root / relative).exists():
        return outcomes, intents
    data = (bundle.root / relative).read_bytes()
    key = bundle.content_key(data, "paa-operating-record", "ledger")
    for number, raw in enumerate(data.splitlines(), 1):
        try:
            value = json.loads(raw)
        except ValueError:
            raise Differs(relative, f"line {number} is not JSON") from None
        match value:
            case {"type": str() as kind}:
                name = LEDGER_RECORDS.get(kind)
            case _:
                name = None
        if name is None:
            raise Differs(relative, f"line {number}: unknown record type")
        error = None if key in bundle.validated else first_error(
            "paa-operating-record", name, value, bundle.schema("paa-operating-record"))  # fmt: skip
        if error:
            raise Differs(relative, f"line {number}: {error}")
        try:
            line = LINE.validate_python(value)
        except ValidationError as exc:
            raise Differs(relative, f"line {number}: {exc.errors()[0]['msg']}") from None
        if isinstance(line, LedgerHeader) and line.plan_hash != run.plan_hash:
            raise Differs(relative, "the ledger belongs to another plan")
        if isinstance(line, LedgerOutcome):
            outcomes[line.key] = line
        if isinstance(line, LedgerIntent):
            intents[line.key] = line
    bundle.validated.add(key)
    for digest in sorted({d for o in outcomes.values() for d in _digests(o)}):
        body = bundle.root / "ledger" / "objects" / digest
        if not body.is_file():
            raise Differs(f"ledger/objects/{digest}", "missing (named by the ledger)")
        if sha256_hex(body.read_bytes()) != digest:
            raise Differs(f"ledger/objects/{digest}", "content does not match its name")
    return outcomes, intents


def _digests(outcome: LedgerOutcome) -> list[str]:
    return [d for d in (outcome.response_digest, outcome.text_digest) if d]


def _calls_and_candidates(bundle: _Bundle, run: mf.RunManifest, own: mf.BundleManifest) -> None:
    tables = {t.name: bundle.table(t, own.columns) for t in SHARED_TABLES}
    outcomes, intents = _ledger(bundle, run)
    checked = (bundle.run_manifest_sha256, "", CALLS_CHECKED)
    if not bundle.run_manifest_sha256 or checked not in bundle.validated:
        _calls(bundle, run, tables, outcomes, intents)
        if bundle.run_manifest_sha256:
            bundle.validated.add(checked)
    evidence = {t.name: bundle.table(t, own.columns) for t in EVIDENCE_TABLES[own.kind]}
    if "verdicts" in evidence:
        _rescore(bundle, run, tables, evidence["verdicts"])
    for index, row in enumerate(evidence.get("correctness", ())):
        # a plan that pins no image (every arm skips correctness: chain) has rows with none
        if row["image"] != (run.image_id or ""):
            relative = EVIDENCE_TABLES["correctness"][0].path(run.run, run.scenario)
            raise Differs(relative, f"row {index}: run in another image than the plan pins")


def _calls(
    bundle: _Bundle,
    run: mf.RunManifest,
    tables: dict[str, list[dict[str, Any]]],
    outcomes: dict[CallKey, LedgerOutcome],
    intents: dict[CallKey, LedgerIntent],
) -> None:
    """The run records' own agreement: every prompt sent is the one the run renders, every
    response is the ledger's, every candidate is what its extraction version gives again. A
    function of the run records alone (one export checks it once for its two bundles)."""
    cells_path = SHARED_TABLES[2].path(run.run, run.scenario)
    plan = load_plan((bundle.root / paths.plan_file(run.run)).read_bytes())
    rendered = {(r["subject"], r["arm"]): PromptRow(**r) for r in tables["prompts"]}
    renderer = ChainRenderer(rendered, plan.analysis.extraction)
    _sent_prompts(run, tables, intents, renderer)
    for index, call in enumerate(tables["cells"]):
        if call["response_digest"] is None:
            continue
        outcome = outcomes.get(CallKey(cell_id=call["cell_id"], step=call["step"]))
        if outcome is None or outcome.response_digest != call["response_digest"]:
            raise Differs(cells_path, f"row {index}: its response is not the ledger's")
        if call["text"] is not None and sha256_hex(call["text"]) != outcome.text_digest:
            raise Differs(cells_path, f"row {index}: its text is not the stored completion text")
    candidates_path = SHARED_TABLES[3].path(run.run, run.scenario)
    calls = {(c["cell_id"], c["step"]): c for c in tables["cells"]}
    shown = shown_repositories(
        (_Call(**{f: c[f] for f in _Call._fields}) for c in tables["cells"]), renderer
    )
    for index, candidate in enumerate(tables["candidates"]):
        key = (candidate["cell_id"], candidate["step"])
        answered = calls.get(key)
        version = candidate["extraction_version"]
        if answered is None or version not in VERSIONS:
            raise Differs(candidates_path, f"row {index}: no such call or extraction version")
        text = answered["text"] if answered["status"] == "completed" else None
        again = extract_candidate(text, version, repository=shown[key])
        if (again.status, again.source) != (candidate["extract_status"], candidate["source"]):
            raise Differs(candidates_path, f"row {index}: not what extraction v{version} gives")


def _sent_prompts(
    run: mf.RunManifest,
    tables: dict[str, list[dict[str, Any]]],
    intents: dict[CallKey, LedgerIntent],
    renderer: ChainRenderer,
) -> None:
    """Every call with a prompt digest has its prompt, under that digest, named by the ledger's
    intent, and equal to what the run sends: the rendered prompt at step 1, and at a later
    chain step the prompt rendered again from the earlier steps' answers."""
    relative = PROMPT_TEXTS.path(run.run).as_posix()
    texts: dict[str, str] = {}
    for index, row in enumerate(tables["prompt_texts"]):
        if sha256_hex(row["prompt"]) != row["prompt_digest"]:
            raise Differs(relative, f"row {index}: the prompt is not the text of its digest")
        texts[row["prompt_digest"]] = row["prompt"]
    answers: dict[str, list[str]] = {}
    for call in sorted(tables["cells"], key=lambda c: (c["cell_id"], c["step"])):
        digest, key = call["prompt_digest"], CallKey(cell_id=call["cell_id"], step=call["step"])
        if digest is None:
            continue
        where = f"{call['cell_id']} step {call['step']}"
        if digest not in texts:
            raise Differs(relative, f"no prompt stored for {where} ({digest})")
        intent = intents.get(key)
        if intents and (intent is None or intent.request_digest != digest):
            raise Differs(relative, f"{where}: not the prompt the ledger's intent names")
        earlier = answers.setdefault(call["cell_id"], [])
        expected = (
            renderer.rows[(call["subject"], call["arm"])].prompt
            if call["step"] == 1
            else renderer(_Cell(call["subject"], call["arm"]), call["step"], earlier)
        )
        if texts[digest] != expected:
            raise Differs(relative, f"{where}: not the prompt the run renders for it")
        if call["status"] == "completed" and call["text"] is not None:
            earlier.append(call["text"])


class _Cell(NamedTuple):
    subject: str
    arm: str


class _Call(NamedTuple):
    cell_id: str
    step: int
    subject: str
    arm: str
    status: str
    text: str | None


def _rescore(
    bundle: _Bundle,
    run: mf.RunManifest,
    tables: dict[str, list[dict[str, Any]]],
    verdicts: list[dict[str, Any]],
) -> None:
    """Score every candidate again with the recorded structural evaluator version, from the
    helper and primitives the bundle's subject table records (no hidden field is needed)."""
    relative = EVIDENCE_TABLES["abstraction"][0].path(run.run, run.scenario)
    subjects = {(s["subject"], s["arm"]): s for s in tables["subjects"]}
    candidates = {(c["cell_id"], c["step"]): CandidateRow(**c) for c in tables["candidates"]}
    if len(verdicts) != len(candidates):
        raise Differs(relative, "does not hold one verdict per candidate")
    keyed = []
    for index, row in enumerate(verdicts):
        candidate = candidates.get((row["cell_id"], row["step"]))
        subject = subjects.get((row["subject"], row["arm"]))
        if candidate is None or subject is None:
            raise Differs(relative, f"row {index}: no such candidate or subject")
        if row["evaluator_version"] not in EVALUATOR_VERSIONS:
            raise Differs(relative, f"row {index}: unknown evaluator version")
        keyed.append(candidate)
    if len({id(candidate) for candidate in keyed}) != len(keyed):
        raise Differs(relative, "holds two verdicts for one candidate")
    rows = {id(candidate): row for candidate, row in zip(keyed, verdicts, strict=True)}

    def again(candidate: CandidateRow, earlier: Mapping[int, Verdict | None]) -> Any:
        row, subject = rows[id(candidate)], subjects[(candidate.subject, candidate.arm)]
        return verdict_for(candidate, subject["helper"], subject["helper_module"],
                           subject["primitives"], row["evaluator_version"], earlier)  # fmt: skip

    try:
        rescored = verdicts_in_step_order(keyed, again, lambda v: v[0])
    except ValueError as exc:  # a primitive the subject table records is not a dotted name
        raise Differs(relative, f"cannot be scored again: {exc}") from None
    for index, (row, scored) in enumerate(zip(verdicts, rescored, strict=True)):
        if scored != (row["verdict"], row["reason"]):
            raise Differs(relative, f"row {index}: not what evaluator "
                          f"v{row['evaluator_version']} gives ({scored[0]}, {scored[1]})")  # fmt: skip


def _report(bundle: _Bundle, run: mf.RunManifest, own: mf.BundleManifest) -> None:
    try:
        report = bundle_report(bundle.root, own.kind, run.run)
    except (duckdb.Error, FileNotFoundError, KeyError) as exc:
        raise Differs(f"report/{own.kind}.json", f"cannot be recomputed: {exc}") from None
    for relative, data in report_files(own.kind, report).items():
        if (bundle.root / relative).read_bytes() != data:
            raise Differs(relative, "differs from the report recomputed from the bundle")


_CHECKS: tuple[Callable[[_Bundle, mf.RunManifest, mf.BundleManifest], None], ...] = (
    _run_records,
    _calls_and_candidates,
    _report,
)
