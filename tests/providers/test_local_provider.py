"""The local provider against its real server and the real tiny model: the answer recorded is
the answer prefix plus what the model wrote, the plan's runtime fingerprint is required, and a
server that dies halts the run."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from assay.local.runtime import identity
from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.local import LocalProvider

pytestmark = pytest.mark.process

GEMMA = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
PROMPT = (
    "File `module.py`:\n\n```python\ndef double(x):\n    return 2 * x\n```\n\nTask: quadruple.\n"
)


def profile(**local: object) -> ModelProfile:
    return ModelProfile.model_validate(
        {
            "provider": "local",
            "model": "gemma-test",
            "context_tokens": 2048,
            "max_output_tokens": 24,
            "local": {
                "weights_sha256": GEMMA,
                "prompting": "completion",
                "prompt_suffix": "\n",
                "answer_prefix": "```python\ndef implement(",
                "stop": ["```", "\ndef "],
                **local,
            },
        }
    )


def provider(chosen: ModelProfile, tmp_path, runtime: dict | None = None) -> LocalProvider:
    assert chosen.local is not None
    found = runtime or identity(chosen.local, model=chosen.model, context_tokens=2048)
    return LocalProvider(chosen, runtime=found, log=tmp_path / "server.log")


def test_the_reply_is_the_answer_prefix_and_what_the_model_wrote(tmp_path):
    local = provider(profile(), tmp_path)
    try:
        first = local.complete(ProviderRequest(cell_id="a#1", prompt=PROMPT))
        second = local.complete(ProviderRequest(cell_id="b#1", prompt=PROMPT))
    finally:
        local.close()
    assert first.status == "completed", first
    assert first.text is not None and first.text.startswith("```python\ndef implement(")
    assert first.text == second.text and first.raw == second.raw
    assert first.served_model == "gemma-test"
    assert first.served_provider == local.expected_fingerprint
    assert first.cost_usd == 0.0
    assert 0 < (first.usage.completion_tokens or 0) <= 24


def test_an_answer_from_another_runtime_is_an_identity_mismatch(tmp_path):
    chosen = profile()
    assert chosen.local is not None
    found = identity(chosen.local, model=chosen.model, context_tokens=2048)
    local = provider(chosen, tmp_path, runtime={**found, "runtime": "llama-cpp-python 0.0.1"})
    try:
        result = local.complete(ProviderRequest(cell_id="a#1", prompt=PROMPT))
    finally:
        local.close()
    assert result.status == "identity-mismatch" and result.halt
    assert "not the plan's" in (result.detail or "")


def test_a_server_killed_mid_call_halts_the_run(tmp_path):
    local = provider(profile(), tmp_path)
    pid = local.server.pid
    assert pid is not None
    killer = threading.Timer(1.0, os.kill, (pid, signal.SIGKILL))
    long_prompt = PROMPT * 40  # long enough to be mid-call after a second
    try:
        killer.start()
        started = time.monotonic()
        result = local.complete(ProviderRequest(cell_id="a#1", prompt=long_prompt))
    finally:
        killer.cancel()
        local.close()
    assert time.monotonic() - started < 30
    assert result.status == "provider-error" and result.halt
    assert result.reason == "local-server-exited"
    assert "exit status -9" in (result.detail or "")
