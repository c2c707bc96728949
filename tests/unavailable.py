"""What a test does when something it needs (Docker, an image, dockerd, Chromium) is missing:
fails when ``CI`` is set, so CI never passes without running it, and skips elsewhere."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def unavailable(message: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
