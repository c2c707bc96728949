"""assay's own OpenAI-compatible server around llama-cpp-python: ``python -m assay.local.server``.

The send stage starts it on 127.0.0.1 for one run (``assay.local.managed``) and stops it when
the run's calls are done. It serves one request at a time, and every request starts from an
empty context (no prompt cache, no state from the request before): an answer depends on the
prompt, the weights, the runtime and the decoding settings only, so the same plan run again
gives the same bytes. Before it loads the weights it hashes them; its ``system_fingerprint``
(``assay.local.runtime.fingerprint``) names the runtime and weights it actually runs, and the
provider refuses an answer whose fingerprint is not the plan's.

Endpoints: ``GET /v1/models`` (the one model, with its identity), ``POST /v1/completions``
(plain completion: ``prompt``) and ``POST /v1/chat/completions`` (``messages``, formatted by
the weights' chat template; refused for weights without one). Request fields read:
``model``, ``prompt``/``messages``, ``max_tokens``, ``temperature``, ``seed``, ``stop``,
``repeat_penalty``. A
request for another model, or a malformed one, is answered 4xx with an OpenAI-style error.

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

from assay.digest import canonical_json, sha256_hex
from assay.local.orphan import die_with_parent
from assay.local.runtime import CHAT_TEMPLATE_KEY, describe_weights, fingerprint, runtime_build
from assay.local.weights import sha256_file

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
        self.has_chat_template = CHAT_TEMPLATE_KEY in metadata
        self.identity = describe_weights(path, actual, metadata) | runtime_build()
        self.fingerprint = fingerprint(self.identity)
        self.lock = threading.Lock()

    def models(self) -> dict[str, Any]:
        entry = {"id": self.name, "object": "model", "owned_by": "assay-local"}
        return {"object": "list", "data": [{**entry, "meta": self.identity}]}

    def answer(self, path: str, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("model") != self.name:
            raise RequestError(
                404, f"this server serves {self.name!r}, not {request.get('model')!r}"
            )
        if request.get("stream"):
            raise RequestError(400, "streaming is not served")
        options = self._options(request)
        with self.lock:
            self._fresh_context()
            if path == "/v1/completions":
                prompt = request.get("prompt")
                if not isinstance(prompt, str):
                    raise RequestError(400, "prompt must be one string")
                out = cast(dict[str, Any], self.llm.create_completion(prompt=prompt, **options))
                choice = out["choices"][0]
                body_choice = {"index": 0, "text": choice["text"]}
                kind = "text_completion"
            else:
                if not self.has_chat_template:
                    raise RequestError(
                        400, "these weights have no chat template: use /v1/completions"
                    )
                messages = request.get("messages")
                if not isinstance(messages, list) or not messages:
                    raise RequestError(400, "messages must be a non-empty list")
                out = cast(
                    dict[str, Any], self.llm.create_chat_completion(messages=messages, **options)
                )
                choice = out["choices"][0]
                message = choice["message"]
                body_choice = {
                    "index": 0,
                    "message": {"role": "assistant", "content": message.get("content")},
                }
                kind = "chat.completion"
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
        }

    def _options(self, request: dict[str, Any]) -> dict[str, Any]:
        max_tokens = request.get("max_tokens")
        temperature = request.get("temperature", 0.0)
        seed = request.get("seed", 0)
        stop = request.get("stop") or []
        repeat_penalty = request.get("repeat_penalty", 1.0)
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
        return {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": seed,
            "stop": stop,
            "repeat_penalty": float(repeat_penalty),
        }

    def _fresh_context(self) -> None:
        """Forget every earlier token: no prefix of the last prompt is reused."""
        import llama_cpp

        self.llm.reset()
        memory = llama_cpp.llama_get_memory(self.llm._ctx.ctx)
        if memory is not None:
            llama_cpp.llama_memory_clear(memory, True)


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
                self._send(200, server.answer(self.path, request))
            except json.JSONDecodeError as exc:
                self._send(400, _error(f"not JSON: {exc.msg}"))
            except RequestError as exc:
                self._send(exc.status, _error(str(exc)))
            except ValueError as exc:  # llama-cpp-python's refusal, e.g. a prompt over n_ctx
                self._send(400, _error(str(exc)[:300]))
            except Exception as exc:  # noqa: BLE001 - answered, so the client sees why
                self._send(500, _error(f"{type(exc).__name__}: {str(exc)[:300]}"))

        def _send(self, status: int, body: dict[str, Any]) -> None:
            payload = json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
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
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    die_with_parent()
    # OpenMP threads sleep when idle instead of spinning (read when the runtime loads)
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
