"""The local model's speed by threads and OpenMP wait policy, idle and beside a busy process.

    uv run python benchmarks/local_model.py [--prompts N] [--busy-seconds S]

For each setting it starts assay's own server (``python -m assay.local.server``) with the
default study's local model (Qwen2.5-Coder-1.5B-Instruct), sends the first N v1 prompts as its
profile frames them (chat with the answer's first line prefilled, its stop strings and
sampling settings, each call's own seed),
and prints seconds per call and generated tokens per second, first on an idle machine, then
with one process spinning on a core the whole time (what a sandbox container or a second run's
server is to generation on this 2-core machine). Every setting must give the same answers: the
benchmark says so, or which differ.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from assay.config.params import load_params
from assay.local.managed import free_port
from assay.local.weights import weights_path
from assay.providers.local import request_body
from assay.science.render import PROMPT_PROFILES, render_files

SETTINGS = [(1, "PASSIVE"), (2, "PASSIVE"), (2, "ACTIVE"), (1, "ACTIVE")]


def prompts(count: int) -> list[str]:
    import tomllib

    texts = []
    for task in sorted((ROOT / "fixtures" / "v1").iterdir())[: (count + 1) // 2]:
        spec = tomllib.loads((task / "task.toml").read_text())
        for arm in ("clean", "inconsistent"):
            files = {"module.py": (task / arm / "module.py").read_text()}
            prompt = render_files(spec["instruction"], files, "module.py", PROMPT_PROFILES["v1"])
            texts.append(prompt.text)
    return texts[:count]


def spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def measure(
    threads: int, wait: str, texts: list[str], busy: float
) -> tuple[list[float], list[int], list[str]]:
    profile = load_params(ROOT / "params.yaml").models["qwen-coder-1-5b"]
    assert profile.local is not None
    port = free_port()
    env = {**os.environ, "OMP_WAIT_POLICY": wait, "OMP_NUM_THREADS": str(threads)}
    server = subprocess.Popen(
        [sys.executable, "-m", "assay.local.server", "--weights", str(weights_path(profile.local)),
         "--weights-sha256", profile.local.weights_sha256, "--model", profile.model,
         "--port", str(port), "--threads", str(threads), "--context-tokens", "4096",
         "--batch-tokens", str(profile.local.batch_tokens)],
        env=env, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/v1"
    neighbour = None
    try:
        with httpx.Client(timeout=300, trust_env=False) as client:
            for _ in range(600):
                try:
                    if client.get(f"{base}/models").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            if busy:
                neighbour = multiprocessing.Process(target=spin, args=(busy,))
                neighbour.start()
            seconds, tokens, answers = [], [], []
            for text in texts:
                started = time.perf_counter()
                endpoint = (
                    "chat/completions" if profile.local.prompting == "chat" else "completions"
                )
                body = request_body(profile, text, f"benchmark/{len(seconds)}#1")
                reply = client.post(f"{base}/{endpoint}", json=body).json()
                seconds.append(time.perf_counter() - started)
                tokens.append(reply["usage"]["completion_tokens"])
                choice = reply["choices"][0]
                answers.append(choice.get("message", {}).get("content") or choice.get("text"))
    finally:
        if neighbour is not None:
            neighbour.terminate()
        server.terminate()
        server.wait()
    return seconds, tokens, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--busy-seconds", type=float, default=600)
    args = parser.parse_args()
    texts = prompts(args.prompts)
    reference: list[str] | None = None
    print(f"{len(texts)} v1 prompts, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    for busy in (0.0, args.busy_seconds):
        for threads, wait in SETTINGS:
            seconds, tokens, answers = measure(threads, wait, texts, busy)
            reference = reference or answers
            differ = [i for i, (a, b) in enumerate(zip(answers, reference, strict=True)) if a != b]
            rate = sum(tokens) / sum(seconds)
            print(
                f"{'busy neighbour' if busy else 'idle':<15} threads {threads} {wait:<8} "
                f"{statistics.mean(seconds):5.2f} s/call (max {max(seconds):5.2f}), "
                f"{rate:5.1f} generated tokens/s overall, "
                + ("same answers" if not differ else f"answers differ at {differ}")
            )


if __name__ == "__main__":
    main()
