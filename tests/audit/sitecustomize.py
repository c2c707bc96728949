"""Loaded by every Python process of a studied repository (tests/study.py puts this folder first
on PYTHONPATH and sets ASSAY_TEST_AUDIT): a stage's process, and every Python process it
starts, records the modules it imported and the files it opened for reading, one JSON file per
process, so tests/pipeline/test_stage_code_reads.py can compare them with the stage's digest."""

import atexit
import json
import os
import sys

_FOLDER = os.environ.get("ASSAY_TEST_AUDIT")


def _stage() -> str | None:
    """``stages/<stage>.py``'s name for a stage's own process, inherited by its children."""
    inherited = os.environ.get("ASSAY_TEST_AUDIT_STAGE")
    if inherited:
        return inherited
    try:
        with open("/proc/self/cmdline", "rb") as handle:
            argv = handle.read().split(b"\0")
    except OSError:
        return None
    script = next((a.decode() for a in argv[1:3] if a.endswith(b".py")), "")
    if script.startswith("stages/"):
        return script.removeprefix("stages/").removesuffix(".py")
    return None


def _record(stage: str) -> None:
    opened: set[str] = set()
    written: set[str] = set()
    cwd = os.getcwd()

    def hook(event: str, args: tuple) -> None:
        if event == "open" and isinstance(args[0], (str, bytes)):
            mode = args[1] if isinstance(args[1], str) else "r"
            path = os.path.abspath(os.fsdecode(args[0]))
            if "w" in mode or "a" in mode or "x" in mode or "+" in mode:
                written.add(path)
            elif path not in written:  # reading back what this process wrote is no input
                opened.add(path)

    def dump() -> None:
        modules = {
            name: os.path.abspath(module.__file__)
            for name, module in list(sys.modules.items())
            if getattr(module, "__file__", None)
        }
        record = {
            "stage": stage,
            "argv": sys.argv,
            "cwd": cwd,
            "pid": os.getpid(),
            "modules": modules,
            "opened": sorted(opened),
            "written": sorted(written),
        }
        path = os.path.join(_FOLDER, f"{stage}-{os.getpid()}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(record, handle)

    sys.addaudithook(hook)
    atexit.register(dump)


if _FOLDER:
    _name = _stage()
    if _name:
        os.environ["ASSAY_TEST_AUDIT_STAGE"] = _name
        _record(_name)
