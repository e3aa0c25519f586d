"""Build a pure-Python wheel from a small project folder (its pyproject.toml's name, version, entry points and
packages), so a test can ``pip install`` a plug-in for real without a build backend (the test venv's
setuptools cannot build wheels without the ``wheel`` package). Only what the tests' plug-ins use is supported."""

from __future__ import annotations

import base64
import hashlib
import re
import tomllib
import zipfile
from pathlib import Path


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(project: Path, out: Path) -> Path:
    """``project``'s wheel in ``out`` (py3-none-any), with its entry points as ``entry_points.txt``."""
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    spec = meta["project"]
    name, version = spec["name"], spec["version"]
    stem = re.sub(r"[-_.]+", "_", name)
    info = f"{stem}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for package in meta["tool"]["setuptools"]["packages"]:
        for path in sorted((project / package).rglob("*.py")):
            files[path.relative_to(project).as_posix()] = path.read_bytes()
    entry_lines = []
    for group, entries in spec.get("entry-points", {}).items():
        entry_lines += [f"[{group}]", *(f"{key} = {value}" for key, value in entries.items()), ""]
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: skillbench-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/entry_points.txt"] = "\n".join(entry_lines).encode()
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel
