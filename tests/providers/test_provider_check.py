"""check-provider: one actionable line per check, against a local OpenRouter-shaped server."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from provider_server import PLANTED_KEY, LocalServer, Reply

from assay.cli import UsageError
from assay.commands import check_provider
from assay.providers.base import ModelProfile
from assay.providers.check import run_checks

TABLE = yaml.safe_load((Path(__file__).parent / "cases" / "checks.yaml").read_text())
CASES = TABLE["cases"]
ENDPOINTS = "/api/v1/models/anthropic/claude-3-haiku/endpoints"


def serve(server: LocalServer, case: dict[str, Any]) -> None:
    status = case.get("status", {})
    endpoint = {**TABLE["endpoint"], **case.get("endpoint", {})}
    key = {"data": {**TABLE["key"]["data"], **case.get("key", {}).get("data", {})}}
    server.routes["/api/v1/models"] = Reply(
        status=status.get("models", 200),
        body=json.dumps(case.get("models", TABLE["models"])).encode(),
    )
    server.routes[ENDPOINTS] = Reply(
        status=status.get("endpoints", 200),
        body=json.dumps(
            {
                "data": {
                    "id": "anthropic/claude-3-haiku",
                    "endpoints": [TABLE["other_endpoint"], endpoint],
                }
            }
        ).encode(),
    )
    server.routes["/api/v1/key"] = Reply(
        status=status.get("key", 200), body=json.dumps(key).encode()
    )


def profile_fields(case: dict[str, Any], base: str) -> dict[str, Any]:
    fields = {**TABLE["profile"], **case.get("profile", {})}
    fields["base_url"] = base + fields.pop("base_path")
    return fields


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_check_lines(case: dict[str, Any], server: LocalServer) -> None:
    serve(server, case)
    profile = ModelProfile.model_validate(profile_fields(case, server.url))
    env = case.get("env", {"OPENROUTER_API_KEY": PLANTED_KEY})
    report = run_checks(profile, env)

    failed = {line.check: line.message for line in report.lines if line.outcome == "fail"}
    assert set(failed) == set(case["fails"]), report.render()
    for check, phrase in case["fails"].items():
        assert phrase in failed[check]
    assert report.passed is (not case["fails"])
    assert {line.check for line in report.lines} >= {"api-key", "model", "provider", "credit"}
    assert all(seen.method == "GET" for seen in server.requests), "checks make free calls only"
    assert all(server.count(path) <= 1 for path in {seen.path for seen in server.requests})
    assert PLANTED_KEY not in report.render()


def check_provider_command(argv: list[str]) -> int:
    """The command as the CLI wires it, without importing every other command."""
    parser = argparse.ArgumentParser(prog="assay")
    check_provider.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return int(args.handler(args))


PARAMS = {
    "scenarios": ["v1"],
    "models": {"haiku": {"provider": "simulated", "model": "sim"}},
    "runs": {"dry-haiku": {"model": "haiku", "scenario": "v1"}},
}


def test_command_prints_lines_and_exits_by_verdict(
    server: LocalServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", PLANTED_KEY)
    params_path = tmp_path / "params.yaml"
    for case, code in (
        (CASES[0], 0),
        (next(c for c in CASES if c["name"] == "credit-below-ceiling"), 1),
    ):
        serve(server, case)
        params = {**PARAMS, "models": {"haiku": profile_fields(case, server.url)}}
        params_path.write_text(yaml.safe_dump(params))
        assert (
            check_provider_command(["check-provider", "dry-haiku", "--params", str(params_path)])
            == code
        )
        out = capsys.readouterr().out
        assert PLANTED_KEY not in out
        lines = out.splitlines()
        assert lines[-1].endswith("all checks pass" if code == 0 else "nothing may be spent")
        assert all(line.split()[0] in {"PASS", "FAIL", "NOTE"} for line in lines[:-1])


def test_command_rejects_unknown_runs(tmp_path: Path) -> None:
    params_path = tmp_path / "params.yaml"
    params_path.write_text(yaml.safe_dump(PARAMS))
    with pytest.raises(UsageError, match="no run 'missing'"):
        check_provider_command(["check-provider", "missing", "--params", str(params_path)])
    with pytest.raises(UsageError, match="not found"):
        check_provider_command(
            ["check-provider", "dry-haiku", "--params", str(tmp_path / "absent.yaml")]
        )
