"""Seeded draws of one call: every choice the stand-in makes is a named, independent draw."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class Draws:
    """Uniform draws in [0, 1) keyed by the seed, the call and the choice's name.

    The same seed, call key and name always give the same value; a new name never shifts
    another name's value, so adding a choice leaves every earlier one as it was."""

    def __init__(self, seed: int, call: str) -> None:
        self.seed = seed
        self.call = call

    def uniform(self, name: str) -> float:
        digest = hashlib.sha256(f"{self.seed}|{self.call}|{name}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    def chance(self, name: str, probability: float) -> bool:
        return self.uniform(name) < probability

    def pick(self, name: str, options: Sequence[T]) -> T:
        return options[int(self.uniform(name) * len(options))]
