"""A real HTTP server on 127.0.0.1, written on raw sockets so a test can make it misbehave.

Each route answers with a ``Reply``: a normal response, or a reset, a close before or in the
middle of the body, a stall, or a body that never ends within the cap. The server records every
request it reads, so a test can assert how many the client sent.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PLANTED_KEY = "sk-or-v1-PLANTEDKEY0123456789abcdefPLANTEDKEY"
STALL_SECONDS = 3.0


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    action: str = "respond"
    """respond | reset | close | close-mid-body | reset-mid-body | stall | stall-mid-body |
    stream-forever (no Content-Length, body until the client gives up)."""
    declared_length: int | None = None

    @classmethod
    def of(cls, spec: dict[str, Any]) -> Reply:
        """From a case-table entry: ``json`` (an object) or ``text`` becomes the body."""
        spec = dict(spec)
        if "json" in spec:
            body = json.dumps(spec.pop("json")).encode()
        else:
            body = spec.pop("text", "").encode()
        body = spec.pop("prefix", "").encode() + body
        return cls(body=body, **spec)


Route = Reply | Callable[[Seen], Reply]


class LocalServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Seen] = []
        self._stop = threading.Event()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._socket.settimeout(0.05)
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._workers: list[threading.Thread] = []

    def count(self, path: str, method: str | None = None) -> int:
        return sum(
            1 for seen in self.requests if seen.path == path and method in (None, seen.method)
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        for worker in self._workers:
            worker.join()
        self._socket.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._socket.accept()
            except TimeoutError:
                continue
            worker = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            self._workers.append(worker)
            worker.start()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(STALL_SECONDS)
        try:
            seen = _read_request(conn)
            if seen is None:
                return
            self.requests.append(seen)
            route = self.routes.get(seen.path)
            if route is None:
                reply = Reply(status=404, body=b'{"error":{"code":404,"message":"no route"}}')
            else:
                reply = route(seen) if callable(route) else route
            self._act(conn, reply)
        except OSError:
            pass
        finally:
            conn.close()

    def _act(self, conn: socket.socket, reply: Reply) -> None:
        action = reply.action
        if action == "reset":
            _reset(conn)
            return
        if action == "close":
            return
        if action == "stall":
            self._stop.wait(STALL_SECONDS)
            return
        body = reply.body
        length = reply.declared_length
        if action in ("close-mid-body", "reset-mid-body", "stall-mid-body") and length is None:
            length = len(body) * 2 + 10
        head = [f"HTTP/1.1 {reply.status} X", "Connection: close"]
        head += [f"{name}: {value}" for name, value in reply.headers.items()]
        if "content-type" not in {name.lower() for name in reply.headers}:
            head.append("Content-Type: application/json")
        if action != "stream-forever":
            head.append(f"Content-Length: {len(body) if length is None else length}")
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        if action == "stream-forever":
            chunk = b" " * 65536
            sent = 0
            while not self._stop.is_set() and sent < 64 * 1024 * 1024:
                conn.sendall(chunk)
                sent += len(chunk)
            return
        conn.sendall(body)
        if action == "reset-mid-body":
            _reset(conn)
        elif action == "stall-mid-body":
            self._stop.wait(STALL_SECONDS)


def _reset(conn: socket.socket) -> None:
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def _read_request(conn: socket.socket) -> Seen | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    path, _, query = target.partition("?")
    return Seen(method=method, path=path, query=query, headers=headers, body=body)
