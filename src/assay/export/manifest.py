"""Bundle manifests: the run manifest both bundles share, and each bundle's own manifest.

``manifest.json`` (the run manifest) lists every immutable run record with its sha256: plan,
plan hash, authorization, image pin, fixture digests, subjects, prompts, every call, every
candidate, the ledger and the response bodies. It is byte-identical in the ``abstraction/``
and ``correctness/`` bundles of one run. ``bundle.json`` names the bundle's kind, the run
manifest's sha256, and its own files (its evaluator's evidence, the report, the schemas).

Both manifests carry ``digest``: the sha256 of their own canonical JSON without that field, so
a changed byte in a manifest is caught as a change of the manifest and not mistaken for a
change of a file it lists.
"""

from __future__ import annotations

import json
from typing import Literal, TypeVar

from pydantic import Field

from assay.core.digest import canonical_json, sha256_hex
from assay.core.records import SCHEMA_VERSION, Frozen

Sha256 = str
BundleKind = Literal["abstraction", "correctness"]
RUN_MANIFEST = "manifest.json"
BUNDLE_MANIFEST = "bundle.json"


class FileEntry(Frozen):
    path: str
    """Relative to the bundle, ``/``-separated."""
    sha256: Sha256 = Field(pattern=r"^[0-9a-f]{64}$")
    bytes: int = Field(ge=0)


class Manifest(Frozen):
    """What both manifests carry: the schema version and their own ``digest``."""

    schema_version: int = SCHEMA_VERSION
    digest: Sha256 = ""


class RunManifest(Manifest):
    format: Literal["assay-run-manifest"] = "assay-run-manifest"
    run: str
    scenario: str
    plan_hash: Sha256
    simulated: bool
    """Answers from assay's seeded stand-in: never evidence about a model."""
    fixture_sources: Sha256
    image_id: str | None
    tools: dict[str, str]
    extraction_versions: tuple[int, ...]
    files: tuple[FileEntry, ...]


class BundleManifest(Manifest):
    format: Literal["assay-bundle"] = "assay-bundle"
    kind: BundleKind
    run: str
    plan_hash: Sha256
    run_manifest_sha256: Sha256
    columns: dict[str, tuple[str, ...]]
    """The published columns of every Parquet table in the bundle."""
    files: tuple[FileEntry, ...]


M = TypeVar("M", bound=Manifest)


def entry(path: str, data: bytes) -> FileEntry:
    return FileEntry(path=path, sha256=sha256_hex(data), bytes=len(data))


def self_digest(manifest: Manifest) -> str:
    return sha256_hex(canonical_json(manifest.model_dump(mode="json", exclude={"digest"})))


def seal(manifest: M) -> M:
    """``manifest`` with its ``digest`` filled in."""
    return manifest.model_copy(update={"digest": self_digest(manifest)})


def dump(manifest: Manifest) -> bytes:
    """The manifest's bytes on disk: sorted, indented JSON (one form only)."""
    document = manifest.model_dump(mode="json")
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
