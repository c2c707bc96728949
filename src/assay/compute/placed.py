"""A result with the worker that produced it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

LOCAL = "local"
"""The worker name of work done on this machine without Dask."""


@dataclass(frozen=True)
class Placed(Generic[T]):
    value: T
    worker: str
    engine: str = "-"
