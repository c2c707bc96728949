"""A local profile's ``server_command`` for tests: an OpenAI-compatible server on 127.0.0.1
that answers ``/v1/completions`` after ``--delay`` seconds, or ends (exit status 7) while
holding the ``--die-on``-th request, without a reply. Standard library only.

    python tests/providers/slow_local_server.py --port {port} --model {model} [--delay S] [--die-on N]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--die-on", type=int, default=0)
    args = parser.parse_args()
    posts = 0

    class Handler(BaseHTTPRequestHandler):
        def _send(self, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._send({"object": "list", "data": [{"id": args.model, "object": "model"}]})

        def do_POST(self) -> None:
            nonlocal posts
            posts += 1
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if posts == args.die_on:
                time.sleep(0.5)  # the request is read and in flight
                os._exit(7)
            time.sleep(args.delay)
            self._send(
                {
                    "id": f"cmpl-{posts}",
                    "object": "text_completion",
                    "model": args.model,
                    "choices": [{"index": 0, "text": "x):\n    return x", "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 12, "completion_tokens": 6},
                }
            )

        def log_message(self, *values: object) -> None:  # quiet
            pass

    HTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
