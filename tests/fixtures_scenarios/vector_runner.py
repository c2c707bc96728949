"""Run fixture code against its test vectors, in a child process of the test (never in pytest).

stdin: JSON list of cases ``{"id", "files": {path: text}, "module", "vectors": [{input, expected}]}``.
stdout: JSON list of ``{"id", "outcomes": ["pass" | "wrong" | "error: ..."]}``, one per case.
Every vector gets a fresh import of the repository, as the sandbox gives each case a fresh child.
"""

import importlib
import json
import sys
import tempfile
from pathlib import Path


def same(actual, expected):
    if type(actual) is not type(expected):
        return False
    if isinstance(expected, list):
        return len(actual) == len(expected) and all(map(same, actual, expected))
    if isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            same(actual[k], expected[k]) for k in expected
        )
    return actual == expected


def run_case(case):
    outcomes = []
    with tempfile.TemporaryDirectory() as folder:
        for path, text in case["files"].items():
            (Path(folder) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / path).write_text(text, encoding="utf-8")
        stems = {Path(p).with_suffix("").as_posix().replace("/", ".") for p in case["files"]}
        sys.path.insert(0, folder)
        try:
            for vector in case["vectors"]:
                for name in stems:
                    sys.modules.pop(name, None)
                importlib.invalidate_caches()
                try:
                    module = importlib.import_module(case["module"])
                    actual = module.implement(json.loads(json.dumps(vector["input"])))
                    outcomes.append("pass" if same(actual, vector["expected"]) else "wrong")
                except Exception as exc:  # noqa: BLE001 - the outcome is reported, never raised
                    outcomes.append(f"error: {type(exc).__name__}: {exc}")
        finally:
            sys.path.remove(folder)
    return {"id": case["id"], "outcomes": outcomes}


def main():
    cases = json.load(sys.stdin)
    json.dump([run_case(case) for case in cases], sys.stdout)


if __name__ == "__main__":
    main()
