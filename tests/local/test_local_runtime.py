"""The runtime assay's own server loads, as installed: llama-cpp-python at its pinned version,
built for x86-64-v3 (AVX2, FMA, F16C) with no AVX-512 or AMX code (the native build crashed in
AMX weight repacking), and holding only the libraries its Python API loads."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from assay.local.runtime import runtime_build
from tests.unavailable import unavailable

ROOT = Path(__file__).resolve().parents[2]
# AMX tile instructions and AVX-512's registers, as objdump names them
FORBIDDEN = re.compile(r"\b(tdpb\w*|tileloadd\w*|tilestored|ldtilecfg|tilezero)\b|%zmm")
# what llama_cpp's Python modules load (llama_cpp.py, _ggml.py) and what libllama needs
LOADED = {"libllama.so", "libggml.so", "libggml-base.so", "libggml-cpu.so"}


def _libraries() -> Path:
    import llama_cpp

    return Path(llama_cpp.__file__).parent / "lib"


def _pinned_version() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (pin,) = [d for d in project["dependencies"] if d.startswith("llama-cpp-python==")]
    return pin.removeprefix("llama-cpp-python==")


def test_the_runtime_is_the_pinned_llama_cpp_python_built_for_x86_64_v3():
    found = runtime_build()
    assert found["runtime"] == f"llama-cpp-python {_pinned_version()}"
    assert found["runtime"] == f"llama-cpp-python {metadata.version('llama-cpp-python')}"
    features = dict(item.split(" = ") for item in found["build"].split(": ", 1)[1].split(" | "))
    assert {features[name] for name in ("AVX", "AVX2", "FMA", "F16C")} == {"1"}, found
    assert "AMX" not in found["build"] and "AVX512" not in found["build"], found


@pytest.mark.process
def test_no_installed_library_holds_avx512_or_amx_code():
    objdump = shutil.which("objdump")
    if objdump is None:
        unavailable("objdump (binutils) is needed to read the runtime's machine code")
    libraries = sorted(_libraries().glob("lib*.so"))
    assert {path.name for path in libraries} >= LOADED
    for library in libraries:
        listing = subprocess.run(
            [objdump, "-d", "--no-show-raw-insn", str(library)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        assert "vfmadd" in listing or library.name != "libggml-cpu.so"  # it did read the code
        assert sorted({m.group(0) for m in FORBIDDEN.finditer(listing)}) == [], library.name


def test_only_the_libraries_the_python_api_loads_are_built():
    """No llama.cpp common library (the package's own wrapper would build it, unloaded)."""
    installed = {path.name for path in _libraries().glob("lib*.so")}
    assert installed == LOADED
    files = metadata.files("llama-cpp-python") or []
    assert not [f for f in files if "libllama-common" in f.name], "the wrapper's full build"
