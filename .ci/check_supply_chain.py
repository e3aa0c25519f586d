"""Fail when the environment holds a compromised litellm release or a .pth file no known package installed.

A ``.pth`` file in site-packages runs code at every interpreter start-up; the compromised litellm releases
(1.82.7, 1.82.8) shipped one. Known: listed in the RECORD of an installed distribution that the lock file
pins (or skillbench itself and the installers).

Usage: python .ci/check_supply_chain.py [requirements.lock] [--site-packages DIR ...]
(``--site-packages``: check these folders instead of this interpreter's, e.g. another environment's.)
"""

from __future__ import annotations

import argparse
import re
import site
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

COMPROMISED = {"litellm": {"1.82.7", "1.82.8", "1.107.0"}}
INSTALLERS = {"pip", "setuptools", "wheel", "uv", "skillbench"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_names(lock: Path) -> set[str]:
    return {_norm(m.group(1)) for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==", lock.read_text(), re.M)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("lock", nargs="?", type=Path, default=Path(__file__).resolve().parents[1] / "requirements.lock")
    parser.add_argument("--site-packages", type=Path, action="append", default=None, metavar="DIR",
                        help="a site-packages folder to check instead of this interpreter's (repeatable)")
    args = parser.parse_args(argv)
    lock: Path = args.lock
    allowed = locked_names(lock) | INSTALLERS
    problems: list[str] = []
    owners: dict[Path, str] = {}
    sites: list[Path] | None = args.site_packages
    dists = metadata.distributions(path=[str(p) for p in sites]) if sites else metadata.distributions()
    for dist in dists:
        name = _norm(dist.metadata["Name"] or "")
        if dist.version in COMPROMISED.get(name, set()):
            problems.append(f"{name} {dist.version} is a compromised release; reinstall from {lock.name}")
        for file in dist.files or []:
            if file.name.endswith(".pth"):
                owners[Path(str(dist.locate_file(file))).resolve()] = name
    folders = set(sites) if sites else {
        Path(p) for p in [*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["purelib"]]
    }
    for folder in sorted(f for f in folders if f.is_dir()):
        for pth in sorted(folder.glob("*.pth")):
            owner = owners.get(pth.resolve())
            if owner is None:
                problems.append(f"{pth} belongs to no installed package")
            elif owner not in allowed:
                problems.append(f"{pth} comes from {owner}, which {lock.name} does not pin")
    for problem in problems:
        print(f"supply chain: {problem}", file=sys.stderr)
    if not problems:
        print(f"supply chain: ok ({len(owners)} .pth file(s), all from pinned packages; no compromised litellm)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
