"""Subject and arm digests are stable: equal to the committed golden file in fresh processes
with different hash seeds (so no set or dict ordering leaks into a digest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process  # one interpreter per hash seed

HERE = Path(__file__).parent
GOLDEN = json.loads((HERE / "golden" / "digests.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("hash_seed", ["1", "4242"])
def test_digests_match_the_golden_file(hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    result = subprocess.run(
        [sys.executable, str(HERE / "digest_dump.py")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout) == GOLDEN


def test_golden_file_covers_every_subject_and_arm() -> None:
    arms = {"layered": 2, "dose": 6, "placement": 6, "chain": 3, "context": 3}
    assert {name: len(subjects) for name, subjects in GOLDEN.items()} == dict.fromkeys(arms, 12)
    for name, subjects in GOLDEN.items():
        for entry in subjects.values():
            assert len(entry["arms"]) == arms[name]
            assert len(set(entry["arms"].values())) == arms[name]
