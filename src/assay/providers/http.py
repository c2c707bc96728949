"""One HTTP exchange with no retries, explicit timeouts and a byte cap on the response body.

httpx exceptions are translated here, once, into a ``TransportFailure`` value:

    httpx.ConnectError  ── refused ──────────────> connect-refused   (nothing was sent)
                        └─ other (DNS, TLS) ─────> connect-error     (nothing was sent)
    httpx.ConnectTimeout ────────────────────────> connect-timeout   (nothing was sent)
    httpx.WriteError / WriteTimeout ─────────────> write-error / write-timeout
    httpx.ReadTimeout ───────────────────────────> read-timeout
    httpx.ReadError       before headers ────────> connection-reset
                          in the body ───────────> closed-mid-body
    httpx.RemoteProtocolError before headers ────> closed-before-response
                              in the body ───────> closed-mid-body
    body longer than the cap (declared or read) ─> response-too-large
    any other httpx.TransportError ──────────────> transport-error

Retries are off at every layer: ``HTTPTransport(retries=0)``, no redirects (a followed redirect
re-sends the request), no proxies from the environment, a fresh client per exchange (no pooled
connection that could fail after part of a request was written).
"""

from __future__ import annotations

import errno
import functools
import ssl
import time

import httpx
from pydantic import Field

from assay.core.records import Frozen
from assay.providers.base import ModelProfile
from assay.providers.outcomes import FailureKind

KEPT_HEADERS = ("content-type", "content-length", "x-generation-id", "retry-after")


class Received(Frozen):
    """A complete response: status, the few headers adapters read, the body within the cap."""

    status_code: int
    headers: dict[str, str]
    body: bytes
    latency_seconds: float


class TransportFailure(Frozen):
    kind: FailureKind
    detail: str
    headers: dict[str, str] = Field(default_factory=dict)
    """Headers already received when the body failed (they may carry a generation id)."""
    partial_body: bytes = b""
    latency_seconds: float


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """Certificate verification as httpx does it by default, built once per process."""
    return httpx.create_ssl_context()


def make_client(profile: ModelProfile, *, read_timeout: bool = True) -> httpx.Client:
    """A client for one exchange; ``read_timeout=False``: wait for the response as long as the
    server takes (a local model's server, whose death ends the read: ``providers.local``)."""
    return httpx.Client(
        transport=httpx.HTTPTransport(retries=0, verify=_tls_context()),
        timeout=httpx.Timeout(
            connect=profile.connect_timeout_seconds,
            read=profile.timeout_seconds if read_timeout else None,
            write=profile.timeout_seconds,
            pool=profile.connect_timeout_seconds,
        ),
        follow_redirects=False,
        trust_env=False,
    )


def exchange(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    headers: dict[str, str],
    body_cap: int,
    content: bytes | None = None,
) -> Received | TransportFailure:
    """Send one request and read its response; never raises for a transport outcome."""
    started = time.monotonic()
    kept: dict[str, str] = {}
    received = bytearray()
    in_body = False
    try:
        with client.stream(
            method, url, headers={**headers, "Accept-Encoding": "identity"}, content=content
        ) as response:
            kept = {
                name: response.headers[name] for name in KEPT_HEADERS if name in response.headers
            }
            in_body = True
            declared = kept.get("content-length", "")
            if declared.isdigit() and int(declared) > body_cap:
                return _failure(
                    "response-too-large",
                    f"declared {declared} bytes, cap {body_cap}",
                    started,
                    kept,
                )
            for chunk in response.iter_bytes():
                received += chunk
                if len(received) > body_cap:
                    return _failure(
                        "response-too-large", f"more than {body_cap} bytes", started, kept
                    )
            return Received(
                status_code=response.status_code,
                headers=kept,
                body=bytes(received),
                latency_seconds=time.monotonic() - started,
            )
    except httpx.TransportError as exc:
        return _failure(_kind(exc, in_body), _describe(exc), started, kept, partial=bytes(received))


def _kind(exc: httpx.TransportError, in_body: bool) -> FailureKind:
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect-timeout"
    if isinstance(exc, httpx.ConnectError):
        return "connect-refused" if _refused(exc) else "connect-error"
    if isinstance(exc, httpx.WriteTimeout):
        return "write-timeout"
    if isinstance(exc, httpx.WriteError):
        return "write-error"
    if isinstance(exc, httpx.ReadTimeout):
        return "read-timeout"
    if isinstance(exc, httpx.ReadError):
        return "closed-mid-body" if in_body else "connection-reset"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "closed-mid-body" if in_body else "closed-before-response"
    return "transport-error"


def _refused(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or (
            isinstance(seen, OSError) and seen.errno == errno.ECONNREFUSED
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _describe(exc: httpx.TransportError) -> str:
    """The exception's class and message: httpx messages name no headers."""
    message = str(exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _failure(
    kind: FailureKind,
    detail: str,
    started: float,
    headers: dict[str, str],
    *,
    partial: bytes = b"",
) -> TransportFailure:
    return TransportFailure(
        kind=kind,
        detail=detail,
        headers=headers,
        partial_body=partial,
        latency_seconds=time.monotonic() - started,
    )
