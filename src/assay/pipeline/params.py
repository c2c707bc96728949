"""``params`` stage: validate all of params.yaml, then publish each section as its own file.

Every other stage depends on this stage's outputs, so a bad params.yaml stops ``dvc repro``
here, before DVC deletes any other stage's outputs. A stage depends on exactly the sections it
reads, as files: ``data/params/<key>.json`` for a top-level key and ``<key>.<name>.json`` for
each entry of a mapping (``runs.<run>``, ``models.<model>``, ``analysis.structure_evaluator``).
Each file is the entry's validated value (defaults filled in, so every section a stage may
declare exists) as canonical JSON, and stages read their params from these files only
(``assay.pipeline.stage_params``). So an edit re-runs exactly the stages whose
sections changed, as DVC's own ``params:`` would, but DVC hashes a small file instead of
parsing params.yaml again for each of the ~90 stages on every ``dvc status``. The ``params``
stage itself declares the whole file (``dvc params diff`` and ``dvc exp show`` list every key).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from assay.config.params import read_params_yaml, validate_params
from assay.evidence.paths import (
    params_check_file,
    params_dir,
    resend_file,
    resend_marker_file,
)
from assay.pipeline.derived_files import replace_files


def sections(raw: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Every top-level key, and every entry of a top-level mapping, by dotted name."""
    for key, value in raw.items():
        yield str(key), value
        if isinstance(value, Mapping):
            for name, entry in value.items():
                yield f"{key}.{name}", entry


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False, default=str) + "\n"


def publish(raw: Mapping[str, Any], folder: Path) -> list[Path]:
    """Write one file per section; files of sections no longer in params.yaml are removed."""
    texts = {f"{name}.json": canonical(value) for name, value in sections(raw)}
    replace_files(folder, texts)
    return [folder / name for name in texts]


def run(path: Path = Path("params.yaml")) -> None:
    raw = read_params_yaml(path)
    valid = validate_params(raw, path=path)  # every problem, one line each, before any write
    publish(valid.model_dump(mode="json"), params_dir())
    resend = resend_file(valid.ledger_root)  # the send stage's dependency, before it runs
    if not resend.exists():  # nothing to send again yet (assay.pipeline.resend)
        resend.parent.mkdir(parents=True, exist_ok=True)
        resend.write_text("{}\n", encoding="utf-8")
    resend_marker_file().write_text(f"{resend.as_posix()}\n", encoding="utf-8")
    # every plan depends on the folder of Inspect logs (assay.providers.inspect_log): DVC
    # refuses a dependency that does not exist, and a repository may have no log yet
    Path(valid.inspect_logs).mkdir(parents=True, exist_ok=True)
    params_check_file().write_text("params.yaml is valid\n", encoding="utf-8")
