"""assay's own OpenAI-compatible server around llama-cpp-python: ``python -m assay.local.server``.

The send stage starts it on 127.0.0.1 for one run (``assay.local.managed``) and stops it when
the run's calls are done. It serves one request at a time. Before it loads the weights it
hashes them; its ``system_fingerprint`` (``assay.local.runtime.fingerprint``) names the runtime
and weights it actually runs, and the provider refuses an answer whose fingerprint is not the
plan's.

**Prompt cache.** A prompt is evaluated in batches of ``--batch-tokens`` that start at fixed
positions (0, B, 2B, …), and the whole batches a request shares with one of the last few
requests (the same tokens from position 0) are copied back from that request's saved state
instead of being evaluated again (``assay.local.prompt_cache``): in the subject-blocked
schedule a cell's two repeats share their whole prompt and a subject's two arms most of it. An
answer still depends on the prompt, the weights, the runtime and the decoding settings only,
never on the requests before: every token is computed in the same batch, with the same tokens
before it, in the same context cells, whether its batch was kept or evaluated afresh, so its
values are the same to the bit. (Reusing any shared prefix, as llama.cpp does by default, is
not: evaluating the last prompt token alone instead of inside its batch changes the logits in
their last bits, and a sampled answer with them; tests/local/test_local_server.py sends one
plan with and without the cache and compares every text.) ``--no-prompt-cache`` or
``ASSAY_LOCAL_PROMPT_CACHE=off`` evaluates every prompt from an empty context.

Endpoints: ``GET /v1/models`` (the one model, with its identity), ``POST /v1/completions``
(plain completion: ``prompt``, no template) and ``POST /v1/chat/completions`` (``messages``,
formatted by the weights' chat template; refused for weights without one). A final assistant
message is a prefill: the template is applied to the messages before it with the assistant's
turn opened, its text follows, and the answer is what the model writes after it (as llama.cpp's
``llama-server`` does). Request fields read: ``model``, ``prompt``/``messages``,
``max_tokens``, ``temperature``, ``top_k``, ``top_p``, ``min_p``, ``seed`` (each call's own),
``stop``, ``repeat_penalty``. A request for another model, or a malformed one, is answered 4xx
with an OpenAI-style error. Every answer's ``X-Assay-Timings`` header holds llama.cpp's own
counts for it (prompt tokens evaluated and taken from the cache, and the milliseconds each part
took, as ``llama-server``'s ``timings``); the body holds none, so the same plan gives the same
bytes.

It dies with the process that started it (``assay.local.orphan``), so a killed send stage
leaves no server behind.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, cast

from assay.core.digest import canonical_json, sha256_file, sha256_hex
from assay.local.orphan import die_with_parent
from assay.local.prompt_cache import WholeBatchCache, clear_context
from assay.local.runtime import CHAT_TEMPLATE_KEY, describe_weights, fingerprint, runtime_build

MAX_REQUEST_BYTES = 16 * 1024 * 1024


class RequestError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class LocalModelServer:
    """The loaded model and what it answers; one request at a time."""

    def __init__(self, args: argparse.Namespace) -> None:
        from llama_cpp import Llama  # loads the native library

        path = Path(args.weights)
        actual = sha256_file(path)
        if actual != args.weights_sha256:
            raise SystemExit(
                f"assay-local-server: {path} has sha256 {actual}, not {args.weights_sha256}"
            )
        self.name = args.model
        self.llm = Llama(
            model_path=str(path),
            n_ctx=args.context_tokens,
            n_batch=args.batch_tokens,
            n_threads=args.threads,
            n_threads_batch=args.threads,
            n_gpu_layers=args.gpu_layers,
            seed=args.seed,
            verbose=False,
        )
        metadata = dict(self.llm.metadata)
        self.template = metadata.get(CHAT_TEMPLATE_KEY)
        self.identity = describe_weights(path, actual, metadata) | runtime_build()
        self.fingerprint = fingerprint(self.identity)
        self.prompt_cache = WholeBatchCache(self.llm) if args.prompt_cache else None
        self.lock = threading.Lock()

    def models(self) -> dict[str, Any]:
        entry = {"id": self.name, "object": "model", "owned_by": "assay-local"}
        return {"object": "list", "data": [{**entry, "meta": self.identity}]}

    def answer(
        self, path: str, request: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float | int]]:
        """The response body, and llama.cpp's timings of it."""
        if request.get("model") != self.name:
            raise RequestError(
                404, f"this server serves {self.name!r}, not {request.get('model')!r}"
            )
        if request.get("stream"):
            raise RequestError(400, "streaming is not served")
        options = self._options(request)
        if path == "/v1/completions":
            prompt = request.get("prompt")
            if not isinstance(prompt, str):
                raise RequestError(400, "prompt must be one string")
            tokens = self.llm.tokenize(prompt.encode(), add_bos=True, special=True)
            kind = "text_completion"
        else:
            tokens, template_stop = self._chat_tokens(request.get("messages"))
            options["stop"] = [*options["stop"], *template_stop]
            kind = "chat.completion"
        with self.lock:
            before = _perf(self.llm)
            kept = self._prefill(tokens)
            out = cast(dict[str, Any], self.llm.create_completion(prompt=tokens, **options))
            timings = _timings(before, _perf(self.llm), len(tokens), kept)
        choice = out["choices"][0]
        if kind == "text_completion":
            body_choice: dict[str, Any] = {"index": 0, "text": choice["text"]}
        else:
            body_choice = {"index": 0, "message": {"role": "assistant", "content": choice["text"]}}
        usage = out["usage"]
        return {
            "id": "local-" + sha256_hex(canonical_json([path, request]))[:24],
            "object": kind,
            "model": self.name,
            "system_fingerprint": self.fingerprint,
            "choices": [{**body_choice, "finish_reason": choice.get("finish_reason")}],
            "usage": {
                "prompt_tokens": usage["prompt_tokens"],
                "completion_tokens": usage["completion_tokens"],
                "total_tokens": usage["total_tokens"],
            },
        }, timings

    def _chat_tokens(self, messages: Any) -> tuple[list[int], list[str]]:
        """The prompt tokens of a chat request (the template applied; a final assistant
        message continued) and the template's own stop text."""
        if self.template is None:
            raise RequestError(400, "these weights have no chat template: use /v1/completions")
        if not isinstance(messages, list) or not messages:
            raise RequestError(400, "messages must be a non-empty list")
        if not all(
            isinstance(m, dict) and isinstance(m.get("content"), str) and m.get("role")
            for m in messages
        ):
            raise RequestError(400, "every message needs a role and a string content")
        prefill = ""
        if messages[-1]["role"] == "assistant":
            prefill = messages[-1]["content"]
            messages = messages[:-1]
        if not messages:
            raise RequestError(400, "a prefilled assistant message needs a message before it")
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        model = self.llm._model
        eos, bos = self.llm.token_eos(), self.llm.token_bos()
        formatter = Jinja2ChatFormatter(
            template=self.template,
            eos_token=model.token_get_text(eos) if eos != -1 else "",
            bos_token=model.token_get_text(bos) if bos != -1 else "",
        )
        try:
            formatted = formatter(messages=messages)
        except Exception as exc:
            raise RequestError(400, f"the chat template failed: {exc}"[:300]) from exc
        text = formatted.prompt + prefill
        tokens = self.llm.tokenize(text.encode(), add_bos=not formatted.added_special, special=True)
        stop = [s for s in formatted.stop or [] if isinstance(s, str) and s]
        return tokens, stop

    def _prefill(self, tokens: list[int]) -> int:
        """An empty context, or (with the prompt cache) one holding the prompt's whole batches
        but the last; how many tokens were kept instead of evaluated."""
        if self.prompt_cache is None or len(tokens) >= self.llm.n_ctx():
            clear_context(self.llm)  # a prompt over the context is refused by the completion
            return 0
        return self.prompt_cache.prefill(tokens)

    def _options(self, request: dict[str, Any]) -> dict[str, Any]:
        max_tokens = request.get("max_tokens")
        temperature = request.get("temperature", 0.0)
        seed = request.get("seed", 0)
        stop = request.get("stop") or []
        repeat_penalty = request.get("repeat_penalty", 1.0)
        top_k = request.get("top_k", 0)
        top_p = request.get("top_p", 1.0)
        min_p = request.get("min_p", 0.0)
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise RequestError(400, "max_tokens must be a positive integer")
        if not isinstance(temperature, int | float) or temperature < 0:
            raise RequestError(400, "temperature must be a number >= 0")
        if not isinstance(seed, int):
            raise RequestError(400, "seed must be an integer")
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
            raise RequestError(400, "stop must be a list of strings")
        if not isinstance(repeat_penalty, int | float) or repeat_penalty < 1:
            raise RequestError(400, "repeat_penalty must be a number >= 1")
        if not isinstance(top_k, int) or top_k < 0:
            raise RequestError(400, "top_k must be an integer >= 0")
        if not isinstance(top_p, int | float) or not 0 < top_p <= 1:
            raise RequestError(400, "top_p must be a number in (0, 1]")
        if not isinstance(min_p, int | float) or not 0 <= min_p < 1:
            raise RequestError(400, "min_p must be a number in [0, 1)")
        return {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_k": top_k,
            "top_p": float(top_p),
            "min_p": float(min_p),
            "seed": seed,
            "stop": stop,
            "repeat_penalty": float(repeat_penalty),
        }


def _perf(llm: Any) -> tuple[float, float, int, int]:
    """llama.cpp's own counters: prompt ms, generation ms, prompt tokens, generated tokens."""
    import llama_cpp

    data = llama_cpp.llama_perf_context(llm._ctx.ctx)
    return data.t_p_eval_ms, data.t_eval_ms, data.n_p_eval, data.n_eval


def _timings(
    before: tuple[float, float, int, int],
    after: tuple[float, float, int, int],
    prompt_n: int,
    kept: int,
) -> dict[str, float | int]:
    """llama.cpp's milliseconds for the prompt and the answer (a last batch of one prompt token
    counts as generation there), and the prompt tokens evaluated and kept from before."""
    return {
        "prompt_n": prompt_n - kept,
        "cached_n": kept,
        "prompt_ms": round(after[0] - before[0], 3),
        "predicted_n": after[3] - before[3],
        "predicted_ms": round(after[1] - before[1], 3),
    }


def handler(server: LocalModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
            sys.stderr.write(f"assay-local-server: {self.address_string()} {format % args}\n")

        def do_GET(self) -> None:
            if self.path in ("/health", "/v1/health"):
                self._send(200, {"status": "ok", "system_fingerprint": server.fingerprint})
            elif self.path == "/v1/models":
                self._send(200, server.models())
            else:
                self._send(404, _error(f"no such endpoint: {self.path}"))

        def do_POST(self) -> None:
            if self.path not in ("/v1/completions", "/v1/chat/completions"):
                self._send(404, _error(f"no such endpoint: {self.path}"))
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_REQUEST_BYTES:
                self._send(413, _error(f"request over {MAX_REQUEST_BYTES} bytes"))
                return
            try:
                request = json.loads(self.rfile.read(length))
                if not isinstance(request, dict):
                    raise RequestError(400, "the request must be a JSON object")
                body, timings = server.answer(self.path, request)
                self._send(200, body, {"X-Assay-Timings": json.dumps(timings)})
            except json.JSONDecodeError as exc:
                self._send(400, _error(f"not JSON: {exc.msg}"))
            except RequestError as exc:
                self._send(exc.status, _error(str(exc)))
            except ValueError as exc:  # llama-cpp-python's refusal, e.g. a prompt over n_ctx
                self._send(400, _error(str(exc)[:300]))
            except Exception as exc:  # noqa: BLE001 - answered, so the client sees why
                self._send(500, _error(f"{type(exc).__name__}: {str(exc)[:300]}"))

        def _send(
            self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            payload = json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m assay.local.server", description=__doc__)
    parser.add_argument("--weights", required=True)
    parser.add_argument("--weights-sha256", required=True)
    parser.add_argument("--model", required=True, help="the name it serves and answers with")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-tokens", type=int, default=512)
    parser.add_argument("--context-tokens", type=int, default=4096)
    parser.add_argument("--gpu-layers", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-prompt-cache",
        dest="prompt_cache",
        action="store_false",
        default=os.environ.get("ASSAY_LOCAL_PROMPT_CACHE", "on") != "off",
        help="evaluate every request from an empty context (answers are the same either way)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    die_with_parent()
    # OpenMP threads sleep when idle instead of spinning (read when the runtime loads; the
    # managed server may add a short busy-wait first: assay.local.waiting)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    model = LocalModelServer(args)
    httpd = HTTPServer(("127.0.0.1", args.port), handler(model))
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=httpd.shutdown).start())
    sys.stderr.write(
        f"assay-local-server: {model.name} ({model.fingerprint}) on 127.0.0.1:{args.port}\n"
    )
    sys.stderr.flush()
    httpd.serve_forever()
    httpd.server_close()


if __name__ == "__main__":
    main()
