"""Build the sandbox images from ``sandbox/`` without any registry, and record their ids.

``standard``: a Debian root filesystem made by ``debootstrap`` from ``sandbox/base.toml``
(cached as a tarball under ``~/.cache/assay/sandbox/`` keyed by the recipe's digest),
imported into the daemon, then ``sandbox/Dockerfile.standard`` copies the supervisor in.
``packages``: ``sandbox/Dockerfile.packages`` on top of the standard image installs the
wheels of ``sandbox/packages/requirements.txt``, downloaded on the host with hash checking
and installed offline (``--no-index --require-hashes``) inside the build.

Every image is tagged with its kind and recipe digest, so an image already in the daemon for
the same recipe is reused instead of rebuilt. Builds run with ``network_mode="none"``.
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from assay.core.cache import cache_dir
from assay.core.digest import digest_of, sha256_hex
from assay.core.errors import InputError, SandboxImageError
from assay.evidence import ImageKind, ImageRecord, load_image_record, write_image_record

if TYPE_CHECKING:  # the Docker SDK is imported only when the daemon must be asked or built on
    import docker

SANDBOX_DIR = Path(__file__).resolve().parents[3] / "sandbox"
BASE_RECIPE = "base.toml"
STANDARD_FILES = ("Dockerfile.standard", "supervisor.py", "case_child.py")
PACKAGES_FILES = ("Dockerfile.packages", "packages/requirements.txt", "packages/installer.txt")
IMAGE_REPOSITORY = "assay-sandbox"
BASE_REPOSITORY = "assay-sandbox-base"
BUILD_TIMEOUT_SECONDS = 900


class ImageBuildError(SandboxImageError):
    """The image could not be built (debootstrap, import, wheel download or docker build)."""


ENGINE_HINT = (
    "Start it with networking disabled: "
    "dockerd --bridge=none --iptables=false --ip-forward=false --ip-masq=false"
)


def sandbox_cache() -> Path:
    return cache_dir("sandbox")


def _file_digests(names: tuple[str, ...]) -> dict[str, str]:
    return {name: sha256_hex((SANDBOX_DIR / name).read_bytes()) for name in names}


def base_digest() -> str:
    return digest_of(_file_digests((BASE_RECIPE,)))


def recipe_digest(kind: ImageKind) -> str:
    """sha256 over every recipe file the image of ``kind`` is built from."""
    files = _file_digests((BASE_RECIPE, *STANDARD_FILES))
    if kind == "packages":
        files |= _file_digests(PACKAGES_FILES)
    return digest_of({"kind": kind, "files": files})


def _run(command: list[str], what: str) -> None:
    completed = subprocess.run(
        command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_SECONDS, check=False
    )
    if completed.returncode != 0:
        tail = (completed.stderr or completed.stdout)[-2000:]
        raise ImageBuildError(f"{what} failed ({completed.returncode}): {tail}")


def rootfs_tarball() -> Path:
    """The debootstrap root filesystem of ``base.toml`` as a tarball, built once per recipe."""
    digest = base_digest()
    tarball = sandbox_cache() / f"rootfs-{digest[:24]}.tar"
    if tarball.exists():
        return tarball
    recipe = tomllib.loads((SANDBOX_DIR / BASE_RECIPE).read_text(encoding="utf-8"))
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tarball.parent, prefix="rootfs-") as work:
        root = Path(work) / "root"
        _run(
            [
                "debootstrap",
                f"--variant={recipe['variant']}",
                f"--include={','.join(recipe['include'])}",
                recipe["release"],
                str(root),
                # no mirror named in the project: debootstrap's default, or the user's own
                *filter(None, [os.environ.get("ASSAY_DEBOOTSTRAP_MIRROR")]),
            ],
            "debootstrap",
        )
        for relative in recipe["strip"]:
            target = root / relative
            if target.is_dir():
                shutil.rmtree(target)
                target.mkdir()
        partial = Path(work) / "rootfs.tar"
        _run(["tar", "--numeric-owner", "-C", str(root), "-cf", str(partial), "."], "tar")
        os.replace(partial, tarball)
    return tarball


def _tagged_id(api: docker.APIClient, reference: str) -> str | None:
    from docker import errors as docker_errors

    try:
        return str(api.inspect_image(reference)["Id"])
    except docker_errors.ImageNotFound:
        return None


def image_present(api: docker.APIClient, image_id: str) -> bool:
    from docker import errors as docker_errors

    try:
        return bool(api.inspect_image(image_id).get("Id") == image_id)
    except docker_errors.NotFound:
        return False


def _base_image(api: docker.APIClient) -> str:
    reference = f"{BASE_REPOSITORY}:{base_digest()[:16]}"
    existing = _tagged_id(api, reference)
    if existing:
        return existing
    tarball = rootfs_tarball()
    _run(["docker", "import", str(tarball), reference], "docker import")
    imported = _tagged_id(api, reference)
    if imported is None:
        raise ImageBuildError(f"docker import did not produce {reference}")
    return imported


def _docker_build(context: Path, dockerfile: str, base: str, reference: str) -> str:
    _run(
        [
            "docker",
            "build",
            "--pull=false",
            "--network=none",
            "--build-arg",
            f"BASE={base}",
            "-f",
            str(context / dockerfile),
            "-t",
            reference,
            str(context),
        ],
        f"docker build {reference}",
    )
    import docker

    built = _tagged_id(docker.APIClient(**docker.utils.kwargs_from_env()), reference)
    if built is None:
        raise ImageBuildError(f"docker build did not produce {reference}")
    return built


def wheel_cache() -> Path:
    return sandbox_cache() / f"wheels-{recipe_digest('packages')[:24]}"


def pip_command() -> list[str]:
    """pip of this interpreter, else the pinned installer version run by ``uv tool run``."""
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip"]
    uv = shutil.which("uv")
    if uv is None:
        raise ImageBuildError("neither pip nor uv is available to download wheels")
    pinned = (SANDBOX_DIR / "packages" / "installer.txt").read_text(encoding="utf-8")
    version = next(line.split()[0] for line in pinned.splitlines() if line.startswith("pip=="))
    return [uv, "tool", "run", "--from", version, "pip"]


def pinned_hashes() -> set[str]:
    """Every sha256 the packages image's requirement files pin."""
    hashes = set()
    for requirements in ("packages/installer.txt", "packages/requirements.txt"):
        text = (SANDBOX_DIR / requirements).read_text(encoding="utf-8")
        hashes.update(re.findall(r"--hash=sha256:([0-9a-f]{64})", text))
    return hashes


def wheels_cached(destination: Path) -> bool:
    """Whether ``destination`` already holds a wheel for every pinned hash (then nothing is
    downloaded, so a pre-fetched machine never reaches the index to build the image)."""
    if not destination.is_dir():
        return False
    present = {sha256_hex(wheel.read_bytes()) for wheel in destination.glob("*.whl")}
    return pinned_hashes() <= present


def download_wheels(destination: Path) -> None:
    """Wheels of the packages image, hash-checked, for CPython 3.11 on manylinux x86-64.

    Nothing is downloaded when every pinned wheel is already in ``destination``; otherwise pip
    skips the wheels already there after checking their hashes.
    """
    if wheels_cached(destination):
        return
    destination.mkdir(parents=True, exist_ok=True)
    for requirements in ("packages/installer.txt", "packages/requirements.txt"):
        _run(
            [
                *pip_command(),
                "download",
                "--quiet",
                "--no-deps",
                "--require-hashes",
                "--only-binary=:all:",
                "--python-version=3.11",
                "--implementation=cp",
                "--platform=manylinux2014_x86_64",
                "--platform=manylinux_2_17_x86_64",
                "--platform=any",
                "--dest",
                str(destination),
                "-r",
                str(SANDBOX_DIR / requirements),
            ],
            f"pip download ({requirements})",
        )


def image_reference(kind: str, digest: str) -> str:
    """The tag of the image built for ``kind`` from the recipe with ``digest``."""
    return f"{IMAGE_REPOSITORY}:{kind}-{digest[:16]}"


def _build(api: docker.APIClient, kind: ImageKind) -> str:
    reference = image_reference(kind, recipe_digest(kind))
    existing = _tagged_id(api, reference)
    if existing:
        return existing
    with tempfile.TemporaryDirectory(prefix="assay-image-") as work:
        context = Path(work)
        if kind == "standard":
            base = _base_image(api)
            for name in STANDARD_FILES:
                shutil.copy2(SANDBOX_DIR / name, context / name)
            return _docker_build(context, "Dockerfile.standard", base, reference)
        base = _build(api, "standard")
        shutil.copy2(SANDBOX_DIR / "Dockerfile.packages", context / "Dockerfile.packages")
        wheels = context / "wheels"
        wheels.mkdir()
        for name in ("requirements.txt", "installer.txt"):
            shutil.copy2(SANDBOX_DIR / "packages" / name, wheels / name)
        download_wheels(wheel_cache())
        for wheel in wheel_cache().glob("*.whl"):
            shutil.copy2(wheel, wheels / wheel.name)
        return _docker_build(context, "Dockerfile.packages", base, reference)


def python_version(image_id: str) -> str:
    import docker

    client = docker.from_env()
    try:
        output = client.containers.run(
            image_id,
            ["/usr/bin/python3", "-c", "import platform; print(platform.python_version())"],
            remove=True,
            network_mode="none",
            user="65534:65534",
        )
    finally:
        client.close()
    return bytes(output).decode("ascii").strip()


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, socket_path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = socket_path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def daemon_has_image(image_id: str) -> bool | None:
    """Whether the engine holds ``image_id``, asked over its local Unix socket without loading
    the Docker SDK (the check every ``dvc repro`` makes). ``None`` when it cannot tell that way
    (a remote or TLS engine, no answer): the SDK then decides and reports any fault.
    """
    host = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    if not host.startswith("unix://") or os.environ.get("DOCKER_TLS_VERIFY"):
        return None
    connection = _UnixHTTPConnection(host.removeprefix("unix://"), timeout=10)
    try:
        connection.request("GET", f"/images/{image_id}/json")
        response = connection.getresponse()
        body = response.read()
    except OSError:
        return None
    finally:
        connection.close()
    if response.status == 404:
        return False
    if response.status != 200:
        return None
    return bool(json.loads(body).get("Id") == image_id)


def save_archive(record: ImageRecord, archive: Path) -> None:
    """``docker save`` the recorded image to ``archive``, atomically. Loading it into any engine
    restores that same id (an image id is the digest of its configuration) and, when the recipe's
    tag still names that id here, the tag too, so a later build of the same recipe reuses it.
    The bytes are the same for the same image."""
    import docker

    reference = image_reference(record.kind, record.recipe_digest)
    api = docker.APIClient(**docker.utils.kwargs_from_env())
    try:
        tagged = _tagged_id(api, reference) == record.image_id
    finally:
        api.close()
    archive.parent.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(archive.name + ".partial")
    try:
        source = reference if tagged else record.image_id
        _run(["docker", "save", "--output", str(partial), source], f"docker save {source}")
        os.replace(partial, archive)
    finally:
        partial.unlink(missing_ok=True)


def ensure_loaded(image_id: str, archive: Path) -> str | None:
    """Make the engine hold ``image_id``, loading ``archive`` (the image stage's ``docker save``)
    when it lacks it. ``None`` when the engine holds it; otherwise one line saying why it still
    does not (no archive, a failed load, an archive of another image): the sandbox then reports
    ``image-missing`` for every evaluation, which is missing evidence, never a wrong answer.
    """
    present = daemon_has_image(image_id)
    if present is None:  # a remote or TLS engine: ask through the SDK
        import docker

        api = docker.APIClient(**docker.utils.kwargs_from_env())
        try:
            present = image_present(api, image_id)
        except docker.errors.DockerException:
            return None  # unreachable: each evaluation reports daemon-unreachable itself
        finally:
            api.close()
    if present:
        return None
    if not archive.is_file():
        return (
            f"the engine lacks sandbox image {image_id} and {archive} is not here: restore it "
            "with `uv run dvc checkout` (or rebuild: `uv run dvc repro pipeline/image/dvc.yaml`)"
        )
    try:
        _run(["docker", "load", "--input", str(archive)], f"docker load {archive}")
    except ImageBuildError as exc:
        return str(exc).splitlines()[0]
    if daemon_has_image(image_id) is False:
        return f"{archive} does not hold sandbox image {image_id}"
    return None


def ensure_image(kind: ImageKind, record_path: Path) -> ImageRecord:
    """The recorded image if the daemon still holds it for the current recipe; else (re)build
    and rewrite the record. An unchanged image leaves the record file byte-identical.
    """
    if kind not in get_args(ImageKind):
        raise InputError(
            f"unknown sandbox image kind {kind!r}; known: {', '.join(get_args(ImageKind))}"
        )
    digest = recipe_digest(kind)
    recorded = load_image_record(record_path)
    current = recorded is not None and recorded.kind == kind and recorded.recipe_digest == digest
    if current and recorded is not None and daemon_has_image(recorded.image_id):
        return recorded  # the check every `dvc repro` makes: no Docker SDK loaded
    from docker import errors as docker_errors

    try:
        return _ensure(kind, record_path)
    except docker_errors.DockerException as exc:
        raise SandboxImageError(
            f"the Docker engine is unreachable ({exc}). {ENGINE_HINT}"
        ) from None
    except ImageBuildError as exc:
        raise ImageBuildError(f"building the {kind} sandbox image failed: {exc}") from None


def _ensure(kind: ImageKind, record_path: Path) -> ImageRecord:
    import docker

    digest = recipe_digest(kind)
    api = docker.APIClient(**docker.utils.kwargs_from_env())
    try:
        recorded = load_image_record(record_path)
        if (
            recorded is not None
            and recorded.kind == kind
            and recorded.recipe_digest == digest
            and image_present(api, recorded.image_id)
        ):
            return recorded
        image_id = _build(api, kind)
    finally:
        with contextlib.suppress(Exception):
            api.close()
    record = ImageRecord(
        kind=kind, image_id=image_id, python_version=python_version(image_id), recipe_digest=digest
    )
    write_image_record(record, record_path)
    return record
