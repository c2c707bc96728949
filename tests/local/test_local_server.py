"""assay's own server and the managed server process, with the real tiny models: the same
prompt gives the same bytes whatever came before it, a base model refuses chat, a server dies
with its parent, and a server that does not come up says so in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from assay.local.managed import ManagedServer, ServerStartError
from assay.local.runtime import fingerprint, identity
from assay.local.settings import LocalModel
from assay.local.weights import weights_path

pytestmark = pytest.mark.process

GEMMA = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
SMOLLM = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
PROMPT = "def add(a, b):\n    return a + b\n\n\ndef implement("


def serving(local: LocalModel, log: Path, model: str = "tiny") -> ManagedServer:
    return ManagedServer(
        local, weights=weights_path(local), model=model, context_tokens=2048, log=log
    )


def complete(client: httpx.Client, base: str, prompt: str, model: str = "tiny") -> dict:
    body = {"model": model, "prompt": prompt, "max_tokens": 12, "temperature": 0.0}
    return client.post(f"{base}/completions", json=body).json()


def test_the_same_prompt_gives_the_same_bytes_whatever_came_before(tmp_path):
    local = LocalModel(weights_sha256=GEMMA, prompting="completion")
    with serving(local, tmp_path / "server.log") as base, httpx.Client(timeout=60) as client:
        listed = client.get(f"{base}/models").json()["data"][0]
        first = complete(client, base, PROMPT)
        other = complete(client, base, "Once upon a time, " * 20)
        again = complete(client, base, PROMPT)
        chat = client.post(
            f"{base}/chat/completions",
            json={
                "model": "tiny",
                "messages": [{"role": "user", "content": "hi"}],
                "max_tokens": 4,
            },
        )
        wrong = client.post(f"{base}/completions", json={"model": "other", "prompt": "x"})
    assert listed["id"] == "tiny"
    assert listed["meta"]["weights_sha256"] == GEMMA
    assert first == again  # text, usage, id and fingerprint: byte for byte
    assert other["choices"][0]["text"] != first["choices"][0]["text"]
    expected = identity(local, model="tiny", context_tokens=2048)
    assert first["system_fingerprint"] == fingerprint(expected)
    assert first["usage"]["completion_tokens"] <= 12
    assert chat.status_code == 400 and "no chat template" in chat.json()["error"]["message"]
    assert wrong.status_code == 404
    assert "POST /v1/completions" in (tmp_path / "server.log").read_text()


def test_an_instruct_model_answers_through_its_chat_template(tmp_path):
    local = LocalModel(weights_sha256=SMOLLM, prompting="chat")
    with serving(local, tmp_path / "server.log") as base, httpx.Client(timeout=60) as client:
        messages = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
        body = {"model": "tiny", "messages": messages, "max_tokens": 16, "temperature": 0.0}
        answers = [client.post(f"{base}/chat/completions", json=body).json() for _ in range(2)]
    assert answers[0] == answers[1]
    assert answers[0]["choices"][0]["message"]["role"] == "assistant"
    assert answers[0]["choices"][0]["message"]["content"].strip()


def test_weights_with_another_hash_are_never_loaded(tmp_path):
    gemma = weights_path(LocalModel(weights_sha256=GEMMA))
    local = LocalModel(weights_sha256=SMOLLM, weights=str(gemma), prompting="completion")
    server = ManagedServer(
        local, weights=gemma, model="tiny", context_tokens=2048, log=tmp_path / "server.log"
    )
    with pytest.raises(ServerStartError, match="exited with status 1 before it answered"):
        server.start()
    assert f"has sha256 {GEMMA}, not {SMOLLM}" in (tmp_path / "server.log").read_text()


def test_a_server_that_never_answers_is_stopped(tmp_path):
    local = LocalModel(
        weights_sha256=GEMMA,
        prompting="completion",
        server_command=(sys.executable, "-c", "import time; time.sleep(120)", "{port}"),
        runtime_version="none",
        startup_timeout_seconds=1.5,
    )
    server = serving(local, tmp_path / "server.log")
    started = time.monotonic()
    with pytest.raises(ServerStartError, match="did not answer within 1.5 s"):
        server.start()
    assert time.monotonic() - started < 15
    assert server.process is None


def test_another_server_is_managed_through_its_command_line(tmp_path):
    """What a GPU machine does with llama-server or vLLM, here with assay's own server as the
    outside program: placeholders filled in, started, answering, stopped."""
    local = LocalModel(
        weights_sha256=GEMMA,
        prompting="completion",
        server_command=(
            sys.executable,
            "-m",
            "assay.local.server",
            "--weights",
            "{weights}",
            "--weights-sha256",
            GEMMA,
            "--model",
            "{model}",
            "--port",
            "{port}",
            "--threads",
            "{threads}",
            "--context-tokens",
            "{context_tokens}",
        ),
        runtime_version="assay-local-server (as an outside program)",
    )
    server = serving(local, tmp_path / "server.log", model="outside")
    with server as base, httpx.Client(timeout=60) as client:
        pid = server.pid
        answer = complete(client, base, PROMPT, model="outside")
    assert answer["model"] == "outside"
    assert pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_server_dies_with_the_process_that_started_it(tmp_path):
    """A send stage killed with SIGKILL leaves no server behind."""
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from assay.local.managed import ManagedServer
        from assay.local.settings import LocalModel
        from assay.local.weights import weights_path
        local = LocalModel(weights_sha256={GEMMA!r}, prompting="completion")
        server = ManagedServer(local, weights=weights_path(local), model="tiny",
                               context_tokens=2048, log=Path({str(tmp_path / "s.log")!r}))
        server.start()
        print(server.pid, flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    server_pid = int(parent.stdout.readline())
    os.kill(server_pid, 0)  # running
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.kill(server_pid, signal.SIGKILL)
        pytest.fail("the server outlived the process that started it")


def _v1_calls() -> list[tuple[str, str]]:
    """(call key, prompt) of a v1 plan's first two subjects, in the schedule's order: a cell's
    two repeats share their whole prompt and a subject's two arms most of it."""
    from assay.fixtures.scenarios import load_scenario
    from assay.paid.plan import cell_id
    from assay.science.render import render_input
    from assay.science.schedule import schedule
    from tests.conftest import ROOT

    scenario = load_scenario("v1", ROOT / "fixtures")
    subjects = {s.id: s for s in scenario.subjects[:2]}
    order = schedule("subject-counterbalanced-v1", list(subjects), scenario.arms, 2)
    return [
        (
            cell_id(c.subject, c.arm, c.repeat) + "#1",
            render_input(subjects[c.subject], c.arm, scenario.prompt_profile).text,
        )
        for c in order
    ]


def _send_plan(local: LocalModel, log: Path) -> tuple[list[str], list[dict]]:
    from assay.providers.base import ModelProfile
    from assay.providers.local import request_body

    profile = ModelProfile(
        provider="local", model="tiny", max_output_tokens=24, temperature=0.8, local=local
    )
    texts, timings = [], []
    with serving(local, log) as base, httpx.Client(timeout=120) as client:
        for key, prompt in _v1_calls():
            reply = client.post(f"{base}/chat/completions", json=request_body(profile, prompt, key))
            texts.append(reply.json()["choices"][0]["message"]["content"])
            timings.append(json.loads(reply.headers["X-Assay-Timings"]))
    return texts, timings


def test_the_prompt_cache_never_changes_an_answer(tmp_path, monkeypatch):
    """One plan's sampled calls, sent in order with the prompt cache and again without it:
    the same text for every call, though with the cache most prompt tokens were not evaluated
    again (a second repeat's whole prompt but its last batch, also when other calls came
    between); and a cell's two repeats are two draws, not one answer twice."""
    local = LocalModel(
        weights_sha256=SMOLLM,
        prompting="chat",
        answer_prefix="```python\ndef ",
        top_k=20,
        batch_tokens=32,
    )
    monkeypatch.setenv("ASSAY_LOCAL_PROMPT_CACHE", "on")
    cached, with_cache = _send_plan(local, tmp_path / "cache.log")
    monkeypatch.setenv("ASSAY_LOCAL_PROMPT_CACHE", "off")
    fresh, without_cache = _send_plan(local, tmp_path / "fresh.log")
    assert cached == fresh
    assert sum(t["cached_n"] for t in without_cache) == 0
    evaluated = sum(t["prompt_n"] for t in with_cache)
    assert sum(t["cached_n"] for t in with_cache) > evaluated  # most of the prompts reused
    keys = [key for key, _ in _v1_calls()]
    # a second repeat evaluates only its last batch, though its first repeat was sent before
    # the other arm's two calls (the schedule's r1, other arm r1, r2, r2 order)
    second_repeats = [t for key, t in zip(keys, with_cache, strict=True) if "/r2#" in key]
    assert all(t["prompt_n"] <= local.batch_tokens for t in second_repeats)
    repeats = {}
    for key, text in zip(keys, cached, strict=True):
        repeats.setdefault(key.replace("/r2#", "/r1#"), []).append(text)
    assert any(len(set(pair)) == 2 for pair in repeats.values())  # sampled: the draws differ
