"""The module walk of one admitted run's send: which modules it enters, and whether any call
climbs back into a module still on the stack (a callback into a stage module, say).

Traces (``sys.setprofile``) every direct call from one ``assay`` module into another while the
send path sends one free run of a finished study, into a fresh temporary ledger (the study's
own ledger is never touched), and prints the modules in the order first entered, the climbs,
and the modules entered from more than one module (the data layer, records and a provider's
constructor are expected there: made by the registry, called by the loop).

    cd STUDY && uv run python /path/to/benchmarks/send_path_walk.py sim-follower-v1
"""

from __future__ import annotations

import sys
import tempfile
from types import FrameType
from typing import Any

from assay.config.params import load_params
from assay.pipeline.admission import admit
from assay.pipeline.sending import send

Edge = tuple[str, str, bool]


def trace(run: str) -> tuple[int, list[Edge]]:
    """(calls decided, the distinct module-to-module calls in order: caller, callee, climb)."""
    edges: list[Edge] = []
    seen: set[Edge] = set()

    def profile(frame: FrameType, event: str, _: Any) -> None:
        caller_frame = frame.f_back
        callee = frame.f_globals.get("__name__", "")
        caller = caller_frame.f_globals.get("__name__", "") if caller_frame else ""
        if event != "call" or caller == callee or not caller.startswith("assay"):
            return
        if not callee.startswith("assay"):
            return
        if frame.f_code.co_name in ("flush", "close") and "LogLines" in frame.f_code.co_qualname:
            return  # io.IOBase's finalizer flushing a collected progress stream, not a call
        stack = set()
        below = caller_frame
        while below is not None:
            stack.add(below.f_globals.get("__name__", ""))
            below = below.f_back
        edge = (caller, callee, callee in stack)
        if edge not in seen:
            seen.add(edge)
            edges.append(edge)

    with tempfile.TemporaryDirectory() as ledger_root:
        params = load_params().model_copy(update={"ledger_root": ledger_root})
        admitted = admit(run, params)
        if admitted.plan.budget.paid:
            raise SystemExit(f"{run} is a paid run: trace a free one")
        sys.setprofile(profile)
        try:
            executed = send(admitted)
        finally:
            sys.setprofile(None)
    return len(executed.records), edges


def main() -> None:
    run = sys.argv[1]
    decided, edges = trace(run)

    def short(module: str) -> str:
        return module.removeprefix("assay.")

    order: list[str] = []
    for caller, callee, _ in edges:
        order.extend(m for m in (caller, callee) if m not in order)
    climbs = [(a, b) for a, b, climb in edges if climb]
    callers: dict[str, set[str]] = {}
    for caller, callee, _ in edges:
        callers.setdefault(callee, set()).add(caller)
    print(f"run {run}: {decided} calls decided")
    print("modules entered, in order: " + " -> ".join(short(m) for m in order))
    print(f"{len(order)} modules, {len(edges)} distinct module-to-module calls")
    print(f"climbs back into a module on the stack: {len(climbs)}")
    for caller, callee in climbs:
        print(f"  {short(caller)} -> {short(callee)}")
    for callee, by in callers.items():
        if len(by) > 1:
            print(f"entered from {len(by)} modules: {short(callee)} <- "
                  + ", ".join(sorted(short(m) for m in by)))  # fmt: skip


if __name__ == "__main__":
    main()
