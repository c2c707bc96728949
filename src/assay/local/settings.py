"""The ``local:`` section of a ``provider: local`` model profile.

Everything here is part of the profile, so of the plan and its hash: the weights' sha256, how
the prompt is presented (the weights' chat template, or plain completion with a fixed text
around it), every decoding setting, the threads and the server. The runtime's own identity
(llama-cpp-python's version and build, the GGUF's metadata) is not declared: the plan stage
reads it (``assay.local.runtime``) and binds it beside the profile.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt, model_validator

from assay.core.records import Frozen

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]

PORT_PLACEHOLDER = "{port}"
COMMAND_PLACEHOLDERS = ("{port}", "{weights}", "{model}", "{threads}", "{context_tokens}")
"""What a ``server_command`` may name; the managed server fills them in."""


class LocalModel(Frozen):
    weights_sha256: Sha256
    """The GGUF file's sha256: checked by the plan stage and again by the server before it
    loads the file; a file with another hash is never used."""
    weights: str | None = None
    """The GGUF file, or a model folder for a ``server_command`` that reads one (vLLM; its
    sha256 is then the folder's digest, ``python -m assay.local.weights --digest PATH``);
    ``None``: ``<models cache>/<weights_sha256>/`` (``scripts/setup`` puts the packaged models
    there; ``assay.local.weights``)."""
    prompting: Literal["chat", "completion"] = "chat"
    """``chat``: the prompt is the user message, formatted by the weights' own chat template
    (a model without one is refused); with ``answer_prefix``, the assistant's turn is prefilled
    with it (the template applied, then the answer's start). ``completion``: plain text
    completion without any template, for base models: the model continues ``prompt +
    prompt_suffix + answer_prefix``."""
    prompt_suffix: str = ""
    """``completion`` only: fixed text after the rendered prompt (the same for every cell)."""
    answer_prefix: str = ""
    """The start of the answer, given to the model (``chat``: as the assistant's turn begun;
    ``completion``: after the prompt) and recorded as the start of its reply (the reply is
    ``answer_prefix`` + what it generated). The same for every cell: it carries no hidden
    field."""
    stop: tuple[str, ...] = ()
    """Generation ends before the first of these strings (not included in the reply)."""
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Further fields of every request, for a ``server_command`` that reads them (llama.cpp's
    ``cache_prompt: false``, vLLM's ``top_k``); part of the plan like every other setting."""
    repeat_penalty: float = Field(default=1.0, ge=1.0, le=2.0)
    """llama.cpp's penalty on tokens of the last 64 (1: off). Greedy decoding of a tiny model
    loops on a line until the token limit without it; applied before the argmax, so decoding
    stays deterministic."""
    seed: StrictInt = 0
    """The base of every call's sampler seed: each call is sampled with a seed derived from
    this and its call key (subject, arm, repeat, step; :func:`call_seed`), so a cell's repeats
    are two draws and a fresh run of the same plan draws the same ones (greedy decoding,
    ``temperature: 0``, uses none)."""
    top_k: StrictInt = Field(default=0, ge=0)
    """Sampling: keep the k most likely tokens (0: all)."""
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    """Sampling: keep the smallest set of tokens whose probability reaches p (1: all)."""
    min_p: float = Field(default=0.0, ge=0.0, lt=1.0)
    """Sampling: drop tokens less likely than ``min_p`` times the most likely one (0: none)."""
    threads: StrictInt = Field(default=1, ge=1, le=256)
    """CPU threads for prompt and generation. One keeps generation steady beside other work on
    a small machine; OpenMP threads busy-wait briefly only while the machine has a core free for
    each (``assay.local.waiting``)."""
    batch_tokens: StrictInt = Field(default=512, ge=1, le=65_536)
    """Prompt tokens evaluated per batch (llama.cpp ``n_batch``)."""
    gpu_layers: StrictInt = Field(default=0, ge=-1)
    """Layers offloaded to a GPU (-1: all); needs a llama-cpp-python built with a GPU backend."""
    server_command: tuple[str, ...] | None = None
    """Another OpenAI-compatible server to manage instead of assay's own (llama.cpp's
    ``llama-server``, vLLM): its command line, with ``{port}`` and optionally ``{weights}``,
    ``{model}``, ``{threads}``, ``{context_tokens}`` filled in. ``None``: assay's own server
    (``python -m assay.local.server``)."""
    runtime_version: str | None = None
    """With ``server_command`` only: the server's version as you installed it (bound into the
    plan beside the executable's sha256)."""
    startup_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    """How long the server may take to load the weights and answer its health check."""

    @property
    def mode(self) -> str:
        """The prompting mode, a factor of every result: ``chat``, ``chat-prefill`` (the
        template applied and the answer begun) or ``completion`` (no template)."""
        if self.prompting == "completion":
            return "completion"
        return "chat-prefill" if self.answer_prefix else "chat"

    @model_validator(mode="after")
    def _consistent(self) -> LocalModel:
        if self.prompting == "chat" and self.prompt_suffix:
            raise ValueError(
                "prompt_suffix frames a plain completion: set prompting: completion, or remove "
                "it (a chat model's template frames the prompt; answer_prefix prefills its turn)"
            )
        if self.server_command is None:
            if self.runtime_version is not None:
                raise ValueError(
                    "runtime_version describes a server_command; assay's own server reports "
                    "its runtime itself: remove runtime_version"
                )
            return self
        if not self.server_command or not any(
            PORT_PLACEHOLDER in part for part in self.server_command
        ):
            raise ValueError(
                f"server_command must pass the port it is given: put {PORT_PLACEHOLDER} in it"
            )
        if not self.runtime_version:
            raise ValueError(
                "a server_command needs runtime_version (the server's version, e.g. 'llama.cpp "
                "b6500' or 'vllm 0.11.0'): the plan binds it"
            )
        return self


def call_seed(base: int, call_key: str) -> int:
    """The sampler seed of one call: derived from the profile's ``seed`` and the call key
    (``subject/arm/rN#step``), never from the run id, so a fresh run of the same plan, or a
    reproduction of some of its cells, draws exactly the same; a 31-bit value every runtime
    takes."""
    digest = hashlib.sha256(f"{base}\0{call_key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
