"""The `assay` command itself: every --help answers without importing anything heavy (the figures
are in benchmarks/cli_help.py), every option says what it is, and --version works."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from assay.cli import build_parser
from assay.commands.sign_test import DEFAULT_ALPHA

HEAVY = ("pydantic", "scipy", "docker", "duckdb", "pyarrow", "numpy", "yaml", "ruamel", "httpx",
         "dvc", "radon", "lizard", "grimp", "inspect_ai")  # fmt: skip


def command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    """Every command path (``()``, ``("run",)``, ``("run", "add")`` …) of the parser."""
    yield prefix
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from command_paths(child, (*prefix, name))


PATHS = list(command_paths(build_parser()))

PROBE = """
import contextlib, io, json, sys
from assay.cli import main
for path in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main([*path, "--help"])
heavy = json.loads(sys.argv[2])
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(heavy))))
"""


@pytest.mark.process
def test_no_help_imports_a_heavy_module():
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(PATHS), json.dumps(HEAVY)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(result.stdout) == [], "imported while building --help: " + result.stdout


def test_every_command_and_option_is_described():
    assert len(PATHS) > 10
    undocumented = []
    for path in PATHS:
        parser = build_parser()
        for name in path:
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            parser = sub.choices[name]
        for action in parser._actions:
            if action.help is None and not isinstance(action, argparse._SubParsersAction):
                undocumented.append(
                    f"assay {' '.join(path)} {'/'.join(action.option_strings) or action.dest}"
                )
    assert not undocumented, undocumented


def test_version(capsys):
    import pytest

    from assay.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("assay 0.")


def test_sign_test_default_alpha_is_the_preregistered_one():
    from assay.science.stats import ALPHA

    assert DEFAULT_ALPHA == ALPHA


@pytest.mark.process
def test_a_reader_that_stops_early_ends_the_command_quietly():
    """`assay sql ... | head -1`: the reader closes the pipe under a long output; the command
    stops with 141 (as one killed by SIGPIPE) and no traceback. Driven through `sign-test`, its
    one line printed 100,000 times."""
    program = (
        "import builtins, sys\n"
        "from assay.cli import main\n"
        "line = builtins.print\n"
        "builtins.print = lambda *a, **k: [line(*a, **k) for _ in range(100_000)]\n"
        "sys.exit(main(['sign-test', '9', '1']))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()
        errors = process.stderr.read().decode()
        code = process.wait(timeout=60)
    assert "Traceback" not in errors and "BrokenPipeError" not in errors, errors
    assert code == 141
