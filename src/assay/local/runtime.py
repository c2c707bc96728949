"""What a local model's plan binds besides its profile: the runtime and the weights as found.

:func:`identity` is read by the plan stage, so a plan says which runtime version and build
and which weights (sha256, size, the GGUF's own metadata) will answer; the server reports the
same identity and the provider refuses an answer from any other (``identity-mismatch``). The
profile's decoding settings are in the plan already (``plan.model``).

It also refuses, before anything is planned, what could only fail later: ``prompting: chat``
with weights that carry no chat template (a base model), and a ``context_tokens`` above what
the model was trained for.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

from assay.core.digest import canonical_json, sha256_file, sha256_hex
from assay.local.settings import LocalModel
from assay.local.weights import WeightsError, weights_path

CHAT_TEMPLATE_KEY = "tokenizer.chat_template"
METADATA_KEYS = {
    "general.architecture": "architecture",
    "general.name": "name",
    "general.size_label": "size_label",
    "general.file_type": "file_type",
}


def gguf_metadata(path: Path) -> dict[str, str]:
    """The GGUF file's key/value metadata, read by llama.cpp (vocabulary only, no weights). The
    load's own warning about the context it does not make (``n_ctx_seq (512) > n_ctx_train
    (0)``: a vocabulary-only load reads no context length) is not shown."""
    from llama_cpp import Llama  # the native library loads on first use, not with this module
    from llama_cpp._utils import suppress_stdout_stderr

    with suppress_stdout_stderr(disable=False):
        model = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        return dict(model.metadata)
    finally:
        model.close()


def runtime_build() -> dict[str, str]:
    """assay's own server's runtime: llama-cpp-python's version and its build's CPU features."""
    import llama_cpp

    return {
        "runtime": f"llama-cpp-python {llama_cpp.__version__}",
        "build": llama_cpp.llama_print_system_info().decode().strip().rstrip("|").strip(),
    }


def executable_digest(command: tuple[str, ...]) -> dict[str, str]:
    found = shutil.which(command[0])
    if found is None:
        raise WeightsError(
            f"local.server_command runs {command[0]!r}, which is not on PATH: install it or "
            "give its full path"
        )
    return {"executable": found, "executable_sha256": sha256_file(Path(found))}


def describe_weights(path: Path, sha256: str, meta: dict[str, str]) -> dict[str, Any]:
    """The weights as found: file, size, sha256 and the GGUF's own description of itself."""
    return {
        "weights_file": path.name,
        "weights_bytes": (
            path.stat().st_size
            if path.is_file()
            else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        ),
        "weights_sha256": sha256,
        **{name: meta[key] for key, name in METADATA_KEYS.items() if key in meta},
        "chat_template_sha256": (
            hashlib.sha256(meta[CHAT_TEMPLATE_KEY].encode()).hexdigest()
            if CHAT_TEMPLATE_KEY in meta
            else None
        ),
    }


def identity(local: LocalModel, *, model: str, context_tokens: int) -> dict[str, Any]:
    """The runtime and weights identity a plan binds (hashing the weights on the way)."""
    path = weights_path(local)
    meta = gguf_metadata(path) if path.is_file() else {}  # a model folder (vLLM) is no GGUF
    found = describe_weights(path, local.weights_sha256, meta)
    if local.prompting == "chat" and path.is_file() and found["chat_template_sha256"] is None:
        raise WeightsError(
            f"{model}: prompting: chat needs the weights' chat template, and {path.name} has "
            "none (a base model): set prompting: completion, with the prompt_suffix and "
            "answer_prefix that frame its answer"
        )
    trained = _trained_context(meta)
    if trained is not None and context_tokens > trained:
        raise WeightsError(
            f"{model}: context_tokens {context_tokens:,} is above the {trained:,} tokens "
            f"{path.name} was trained for: lower context_tokens"
        )
    if local.server_command is None:
        if not path.is_file():
            raise WeightsError(
                f"{model}: assay's own server loads one GGUF file, and {path} is a folder: "
                "name the GGUF file, or serve the folder with a server_command (vLLM)"
            )
        return found | runtime_build()
    return found | {"runtime": local.runtime_version, **executable_digest(local.server_command)}


def fingerprint(found: dict[str, Any]) -> str:
    """The short identity a server reports with every answer (``system_fingerprint``)."""
    return "assay-local-" + sha256_hex(canonical_json(found))[:16]


def _trained_context(meta: dict[str, str]) -> int | None:
    architecture = meta.get("general.architecture")
    value = meta.get(f"{architecture}.context_length") if architecture else None
    return int(value) if value is not None and value.isdigit() else None
