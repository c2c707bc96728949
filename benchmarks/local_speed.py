"""One run's local generation, three ways side by side in one invocation: assay's provider as it
is now, assay's server as it was before the prompt cache, and llama.cpp's own server.

    uv run python benchmarks/local_speed.py [--run qwen-bank-new] [--calls N] [--sides a,b,c]

(``--sides`` also takes ``assay:N``: assay's side with batches of N tokens instead of the
profile's, to compare batch sizes in one invocation; and ``assay-passive``: assay's side with
its OpenMP threads sleeping at once at each of the graph's barriers (``ASSAY_LOCAL_SPIN=off``),
where ``assay`` busy-waits briefly first when the machine has a core free for each thread as
its server starts (``assay.local.waiting``).)

The calls are the run's own (params.yaml: its model profile, scenario, repeats and schedule;
every prompt rendered as the render stage renders it, every request body as the send stage
builds it: the mode, the prefix, the sampling settings and each call's seed), sent one at a time
in plan order, each side with a fresh server on 127.0.0.1:

- ``assay``: assay's own server as the send stage starts it (``assay.local.managed``), with
  its prompt cache (whole batches of ``local.batch_tokens`` of the last few prompts kept) and
  its OpenMP threads' wait chosen at its start (``assay.local.waiting``);
- ``before``: the same server as it ran before the prompt cache, every call evaluated from an
  empty context (``ASSAY_LOCAL_PROMPT_CACHE=off``) in batches of 512 tokens (the old profile's
  batch size), its threads sleeping at once (``ASSAY_LOCAL_SPIN=off``): what the same run cost
  before these changes;
- ``llama-server``: llama.cpp's own server from the same vendored llama.cpp and build flags
  (``benchmarks/llama_cpp_tools.py`` builds it), at its defaults for speed (its own prompt
  cache, batches of 2048/512), the same threads, context, model and request bodies (it
  continues a final assistant message as assay's server does) and the same OpenMP settings as
  assay's server would get at its start.

It prints, per side, the wall time of all calls, the prompt tokens evaluated and generated,
llama.cpp's own milliseconds for the prompts and for the generation (each server's timings of
each call; a last prompt batch of one token counts as generation there), and the ratios
assay/llama-server and assay/before; and how many of the answers equal assay's
(llama-server's batches differ, so its sampled answers may differ in places; ``before`` used
other batches too). The machine's load average is printed before and after: compare figures
taken in one invocation only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from assay.config.params import load_params
from assay.fixtures.scenarios import load_scenario, run_default_schedule
from assay.local.managed import ManagedServer, free_port
from assay.local.waiting import openmp_environment, with_openmp
from assay.local.weights import weights_path
from assay.paid.plan import cell_id
from assay.providers.base import ModelProfile
from assay.providers.local import request_body
from assay.science.render import render_input
from assay.science.schedule import schedule

SIDES = ("assay", "before", "llama-server")


def run_calls(run_id: str, limit: int | None) -> tuple[ModelProfile, list[tuple[str, dict]]]:
    """The run's calls in plan order: (call key, request body)."""
    params = load_params(ROOT / "params.yaml")
    run = params.run(run_id)
    profile = params.models[run.model]
    scenario = load_scenario(run.scenario, ROOT / params.fixtures)
    subjects = {s.id: s for s in scenario.subjects}
    name = run.schedule or run_default_schedule(run.scenario, ROOT / params.fixtures)
    calls = []
    for cell in schedule(name, list(subjects), scenario.arms, run.repeats):
        key = cell_id(cell.subject, cell.arm, cell.repeat) + "#1"
        prompt = render_input(subjects[cell.subject], cell.arm, scenario.prompt_profile).text
        calls.append((key, request_body(profile, prompt, key)))
    return profile, calls[:limit]


def send_all(base: str, endpoint: str, calls: list[tuple[str, dict]]) -> dict:
    texts, evaluated, generated, prompt_ms, predicted_ms = [], 0, 0, 0.0, 0.0
    started = time.monotonic()
    with httpx.Client(timeout=None, trust_env=False) as client:
        for _, body in calls:
            reply = client.post(f"{base}/{endpoint}", json=body)
            reply.raise_for_status()
            data = reply.json()
            choice = data["choices"][0]
            texts.append(choice.get("message", {}).get("content") or choice.get("text") or "")
            generated += data["usage"]["completion_tokens"]
            timings = data.get("timings") or json.loads(reply.headers.get("X-Assay-Timings", "{}"))
            evaluated += timings.get("prompt_n", data["usage"]["prompt_tokens"])
            prompt_ms += timings.get("prompt_ms", 0.0)
            predicted_ms += timings.get("predicted_ms", 0.0)
    return {
        "seconds": time.monotonic() - started,
        "texts": texts,
        "prompt_evaluated": evaluated,
        "generated": generated,
        "prompt_seconds": prompt_ms / 1000,
        "generation_seconds": predicted_ms / 1000,
    }


def assay_side(
    profile: ModelProfile, calls: list, *, cache: bool, log: Path, batch_tokens: int | None = None
) -> dict:
    local = profile.local
    assert local is not None
    if not cache:
        local = local.model_copy(update={"batch_tokens": 512})
    elif batch_tokens is not None:
        local = local.model_copy(update={"batch_tokens": batch_tokens})
    os.environ["ASSAY_LOCAL_PROMPT_CACHE"] = "on" if cache else "off"
    endpoint = "completions" if local.prompting == "completion" else "chat/completions"
    server = ManagedServer(
        local,
        weights=weights_path(local),
        model=profile.model,
        context_tokens=profile.context_tokens,
        log=log,
    )
    with server as base:
        return send_all(base, endpoint, calls)


def llama_server_side(profile: ModelProfile, calls: list, *, log: Path) -> dict:
    local = profile.local
    assert local is not None
    built = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "llama_cpp_tools.py"), "--bin-dir"],
        check=True,
        capture_output=True,
        text=True,
    )
    binary = Path(built.stdout.strip().splitlines()[-1]) / "llama-server"
    port = free_port()
    command = [
        str(binary),
        "-m",
        str(weights_path(local)),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "-c",
        str(profile.context_tokens),
        "-t",
        str(local.threads),
        "--parallel",
        "1",
        "--alias",
        profile.model,
    ]
    openmp = openmp_environment(local.threads)
    print(f"llama-server: {' '.join(f'{k}={v}' for k, v in sorted(openmp.items()))}", flush=True)
    env = with_openmp(openmp)
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=out, env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{base}/health", trust_env=False).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None:
                    raise SystemExit(f"llama-server ended: see {log}")
                time.sleep(0.5)
            endpoint = (
                "v1/completions" if local.prompting == "completion" else "v1/chat/completions"
            )
            return send_all(base, endpoint, calls)
        finally:
            process.terminate()
            process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", default="qwen-bank-new")
    parser.add_argument("--calls", type=int, default=None, help="the first N calls only")
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--logs", type=Path, default=Path("/tmp/assay-local-speed"))
    args = parser.parse_args()
    os.chdir(ROOT)  # params.yaml names its fixtures relative to the repository
    os.environ.pop("ASSAY_LOCAL_SPIN", None)  # each side sets its own
    args.logs.mkdir(parents=True, exist_ok=True)
    profile, calls = run_calls(args.run, args.calls)
    print(f"{args.run}: {len(calls)} calls, {profile.model}, threads {profile.local.threads}")
    print(f"load average before: {os.getloadavg()}")
    results = {}
    for side in args.sides.split(","):
        log = args.logs / f"{side.replace(':', '-')}.log"
        if side == "llama-server":
            results[side] = llama_server_side(profile, calls, log=log)
        elif side.startswith("assay:"):  # assay's server with other batches, e.g. assay:64
            batch = int(side.removeprefix("assay:"))
            results[side] = assay_side(profile, calls, cache=True, log=log, batch_tokens=batch)
        else:  # assay, assay-passive, before
            os.environ["ASSAY_LOCAL_SPIN"] = "auto" if side == "assay" else "off"
            results[side] = assay_side(profile, calls, cache=side != "before", log=log)
            os.environ.pop("ASSAY_LOCAL_SPIN", None)
        r = results[side]
        print(
            f"{side:>13}: {r['seconds']:8.1f} s  prompt tokens evaluated {r['prompt_evaluated']:7,}"
            f"  generated {r['generated']:6,}  (llama.cpp: prompt {r['prompt_seconds']:.1f} s, "
            f"generation {r['generation_seconds']:.1f} s, "
            f"{r['generated'] / max(r['generation_seconds'], 1e-9):.1f} tokens/s)",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}")
    mine = results.get("assay")
    if mine is not None:
        for side, r in results.items():
            if side == "assay":
                continue
            same = sum(a == b for a, b in zip(mine["texts"], r["texts"], strict=True))
            print(
                f"assay / {side}: {mine['seconds'] / r['seconds']:.2f} of the time; "
                f"{same} of {len(calls)} answers equal"
            )


if __name__ == "__main__":
    main()
