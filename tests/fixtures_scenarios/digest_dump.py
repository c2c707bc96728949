"""Print the digests of every layered-family subject and arm as canonical JSON.

Regenerate the golden file after an intended fixture change (and say so in the commit):

    uv run python tests/fixtures_scenarios/digest_dump.py > tests/fixtures_scenarios/golden/digests.json
"""

import json
import sys
from pathlib import Path

from assay.fixtures.scenarios import load_scenario

FIXTURES_ROOT = Path(__file__).resolve().parents[2] / "fixtures"
NAMES = ("layered", "dose", "placement", "chain", "context")


def digests() -> dict:
    out = {}
    for name in NAMES:
        scenario = load_scenario(name, FIXTURES_ROOT)
        out[name] = {
            subject.id: {
                "subject": subject.digest,
                "arms": {arm.name: subject.arm_digest(arm.name) for arm in subject.arms},
            }
            for subject in scenario.subjects
        }
    return out


if __name__ == "__main__":
    json.dump(digests(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
