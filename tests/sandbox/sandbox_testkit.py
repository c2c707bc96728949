"""Shared material of the sandbox tests: the corpus repository and container listing."""

from __future__ import annotations

import docker

from assay.fixtures.model import SourceFile

CORPUS_FILES = (
    SourceFile(path="pkg/helpers.py", text="def double(x):\n    return x * 2\n"),
    SourceFile(
        path="pkg/target.py",
        text="from pkg.helpers import double\n\n\ndef existing(x):\n    return double(x)\n",
    ),
)
CORPUS_TARGET = "pkg/target.py"
RIGHT = "def implement(value):\n    return double(value) + 1\n"
WRONG = "def implement(value):\n    return None\n"


def live_containers(api: docker.APIClient, prefix: str) -> list[str]:
    names = [name.lstrip("/") for c in api.containers(all=True) for name in c["Names"]]
    return [name for name in names if name.startswith(prefix)]
