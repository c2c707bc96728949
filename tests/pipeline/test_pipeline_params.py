"""The params stage's sections: one canonical file per top-level key and per mapping entry,
rewritten only when its value changes, and none left for a section params.yaml no longer has."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from assay.pipeline.params import publish, sections
from tests.dvc_stages import stage_bodies

ROOT = Path(__file__).resolve().parents[2]


def _default() -> dict:
    return yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))


def test_every_key_and_every_entry_of_a_mapping_is_a_section() -> None:
    raw = _default()
    names = dict(sections(raw))
    assert set(raw) <= set(names)
    for run in raw["runs"]:
        assert names[f"runs.{run}"] == raw["runs"][run]
    assert names["analysis.structure_evaluator"] == raw["analysis"]["structure_evaluator"]
    assert "ledger_root.x" not in "".join(names)  # scalars have no entries


def test_every_section_the_stages_read_is_written(tmp_path: Path) -> None:
    """Every data/params/*.json path a dvc.yaml names (with runs and models filled in) exists."""
    raw = _default()
    publish(raw, tmp_path)
    declared = set()
    for body in stage_bodies().values():
        declared.update(
            d for d in body.get("deps", []) if d.startswith("data/params/") and d.endswith(".json")
        )
    assert declared, "no stage reads a section"
    for dep in declared:
        for run, spec in raw["runs"].items():
            name = dep.replace("${key}", run).replace("${item.model}", spec["model"])
            name = name.removeprefix("data/params/")
            assert (tmp_path / name).is_file(), dep


def test_sections_are_canonical_and_rewritten_only_when_they_change(tmp_path: Path) -> None:
    raw = _default()
    publish(raw, tmp_path)
    run = next(iter(raw["runs"]))
    untouched = tmp_path / "analysis.json"
    edited = tmp_path / f"runs.{run}.json"
    stamps = (untouched.stat().st_mtime_ns, edited.read_text(encoding="utf-8"))

    reordered = dict(reversed(list(raw.items())))
    reordered["runs"] = {**raw["runs"], run: {**raw["runs"][run], "repeats": 9}}
    publish(reordered, tmp_path)
    assert untouched.stat().st_mtime_ns == stamps[0]
    assert edited.read_text(encoding="utf-8") != stamps[1]
    assert json.loads(edited.read_text(encoding="utf-8"))["repeats"] == 9


def test_a_section_no_longer_declared_leaves_no_file(tmp_path: Path) -> None:
    raw = _default()
    publish(raw, tmp_path)
    run = next(iter(raw["runs"]))
    assert (tmp_path / f"runs.{run}.json").exists()
    fewer = {**raw, "runs": {k: v for k, v in raw["runs"].items() if k != run}}
    publish(fewer, tmp_path)
    assert not (tmp_path / f"runs.{run}.json").exists()
    assert (tmp_path / "runs.json").exists()
