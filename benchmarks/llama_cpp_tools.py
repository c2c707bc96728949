"""llama.cpp's own ``llama-server``, ``llama-bench`` and ``llama-cli``, built from the very
llama.cpp that assay's runtime runs, with the same build flags: the other side of a speed
comparison with assay's own server (llama-cpp-python's Python API over the same kernels).

    uv run python benchmarks/llama_cpp_tools.py [--source DIR] [--jobs N] [--bin-dir]

The source is the llama-cpp-python sdist that ``uv sync`` unpacked into uv's cache (the one
uv.lock pins by sha256): its ``vendor/llama.cpp``. Nothing is downloaded. The CMake flags are
the ones ``pyproject.toml`` gives llama-cpp-python's build (``[tool.uv.extra-build-variables]``:
x86-64-v3 kernels, no AVX-512 or AMX paths) plus what turns the tools on (common library,
tools, server) and what keeps the build offline (no curl, no OpenSSL, no prebuilt web UI).

The build goes to ``~/.cache/assay/llama-cpp-tools/<key>/`` where the key digests the source
tree, the flags and the compiler, so a second run finds it at once; ``manifest.json`` there
says what was built from what, how long it took, and that the CPU backend holds no AVX-512 or
AMX instruction (checked with objdump; a build that holds one is refused). It prints the
manifest, or with ``--bin-dir`` only the folder holding the binaries. Binaries are never
committed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("llama-server", "llama-bench", "llama-cli")
# on top of the runtime's own flags (later -D wins): the common library and the tools, no
# tests or examples, and nothing that reaches the network at build or run time
TOOL_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=ON",
    "-DLLAMA_BUILD_COMMON=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
)
# AMX tile instructions and AVX-512's registers: neither may be in an x86-64-v3 build
FORBIDDEN = re.compile(r"\b(tdpb\w*|tileloadd\w*|tilestored|ldtilecfg|tilezero)\b|%zmm")


def runtime_cmake_args() -> list[str]:
    """The CMake arguments pyproject.toml gives llama-cpp-python's build."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    variables = project["tool"]["uv"]["extra-build-variables"]["llama-cpp-python"]
    return shlex.split(variables["CMAKE_ARGS"])


def uv_cache() -> Path:
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv is None:
        sys.exit("uv is not on PATH: run this through `uv run`")
    listed = subprocess.run([uv, "cache", "dir"], check=True, capture_output=True, text=True)
    return Path(listed.stdout.strip())


def find_source(version: str) -> Path:
    """The unpacked sdist of llama-cpp-python ``version`` in uv's cache."""
    found = sorted(uv_cache().glob(f"sdists-v*/pypi/llama-cpp-python/{version}/*/src"))
    found = [path for path in found if (path / "vendor/llama.cpp/CMakeLists.txt").is_file()]
    if not found:
        sys.exit(
            f"llama-cpp-python {version}'s sdist is not in uv's cache ({uv_cache()}): run "
            "`uv sync --frozen` (it unpacks the sdist to build it), or give --source"
        )
    return found[0]


def tree_digest(folder: Path) -> str:
    """sha256 of every file's relative path and bytes under ``folder``, in path order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def vendored_commit(source: Path, version: str) -> str | None:
    """The llama.cpp commit llama-cpp-python's changelog names for ``version``."""
    changelog = (source / "CHANGELOG.md").read_text()
    section = changelog.split(f"## [{version}]", 1)[-1].split("\n## [", 1)[0]
    match = re.search(r"llama\.cpp@([0-9a-f]{7,40})", section)
    return match.group(1) if match else None


def compiler() -> str:
    output = subprocess.run(["c++", "--version"], check=True, capture_output=True, text=True)
    return output.stdout.splitlines()[0]


def forbidden_instructions(library: Path) -> list[str]:
    """AMX or AVX-512 instructions in ``library``'s code (objdump's disassembly: it must run)."""
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(library)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted({match.group(0) for match in FORBIDDEN.finditer(listing)})


def version_output(binary: Path) -> str:
    """What ``binary --version`` says (llama.cpp's tools print it on stderr), its exit code aside."""
    shown = subprocess.run(
        [str(binary), "--version"], check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    return shown.stdout.decode(errors="replace").strip()


def build(source: Path, build_dir: Path, flags: list[str], jobs: int, nice: int) -> float:
    polite = ["nice", "-n", str(nice)] if nice and shutil.which("nice") else []
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    started = time.monotonic()
    subprocess.run(
        [*polite, "cmake", "-S", str(source), "-B", str(build_dir), *generator, *flags],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        [*polite, "cmake", "--build", str(build_dir), "-j", str(jobs), "--target", *TARGETS],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return round(time.monotonic() - started, 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="an unpacked llama-cpp-python sdist")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--nice", type=int, default=19, help="niceness of the build (0: none)")
    parser.add_argument("--bin-dir", action="store_true", help="print only the binaries' folder")
    args = parser.parse_args(argv)

    version = metadata.version("llama-cpp-python")
    source = args.source or find_source(version)
    llama_cpp = source / "vendor" / "llama.cpp"
    flags = [*runtime_cmake_args(), *TOOL_FLAGS]
    source_sha256 = tree_digest(llama_cpp)
    key_text = json.dumps([source_sha256, flags, TARGETS, compiler()])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:16]
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    out = home / "assay" / "llama-cpp-tools" / key
    manifest_path = out / "manifest.json"

    if not manifest_path.is_file():
        seconds = build(llama_cpp, out / "build", flags, args.jobs, args.nice)
        bin_dir = out / "build" / "bin"
        found = forbidden_instructions(bin_dir / "libggml-cpu.so")
        if found:
            sys.exit(f"the CPU backend holds AVX-512/AMX code ({', '.join(found)}): refused")
        manifest = {
            "llama_cpp_python": version,
            "llama_cpp_commit": vendored_commit(source, version),
            "source": str(llama_cpp),
            "source_sha256": source_sha256,
            "cmake_args": flags,
            "compiler": compiler(),
            "targets": {name: str(bin_dir / name) for name in TARGETS},
            "bin_dir": str(bin_dir),
            "build_seconds": seconds,
            "jobs": args.jobs,
            "load_average_after": os.getloadavg(),
            "avx512_or_amx_instructions": found,
            "version_output": version_output(bin_dir / "llama-server"),
        }
        manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    manifest = json.loads(manifest_path.read_text())
    print(manifest["bin_dir"] if args.bin_dir else json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
