"""What each import written inside a function would cost at the top of its module: the modules it would add and the
milliseconds, in a fresh interpreter that has imported what is already loaded on that path.

    python benchmarks/lazy_imports.py                 # every lazy import (2-3 minutes on 2 busy cores)
    python benchmarks/lazy_imports.py report/         # those whose file path contains "report/"
    python benchmarks/lazy_imports.py --runs 3        # the lowest time of three runs each

The path: the module itself, after the app for the two callbacks (``python -m skillbench`` imports them at start-up,
``--help`` included). A row per function and import statement, run as written (``from scipy import stats`` loads
scipy.stats); a busy machine inflates the time, not the module count. docs/architecture.md "Lazy imports that remain" quotes this table.
Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.imports import lazy_imports  # noqa: E402

# Modules the app imports at start-up (python -m skillbench, --help included): measured after the app.
AFTER_THE_APP = {"skillbench.plan.callback", "skillbench.report.callback"}

_MEASURE = """
import importlib, sys, time
for name in sys.argv[1].split(","):
    importlib.import_module(name)
before, start = set(sys.modules), time.perf_counter()
exec(sys.argv[2])
print(len(set(sys.modules) - before), (time.perf_counter() - start) * 1000)
"""


def module_of(path: str) -> str:
    name = path.removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")


def cost(path_modules: str, statement: str, runs: int) -> tuple[int, float] | None:
    """(new modules, lowest ms) of running ``statement`` after importing ``path_modules``; None when it fails (an
    optional extra that is not installed)."""
    found = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", _MEASURE, path_modules, statement], cwd=REPO, capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            return None
        modules, ms = done.stdout.split()
        found.append((int(modules), float(ms)))
    return min(m for m, _ in found), min(ms for _, ms in found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("only", nargs="?", default="", help="measure only files whose path contains this")
    parser.add_argument("--runs", type=int, default=1, help="runs per import; the lowest time is shown")
    args = parser.parse_args()
    rows = sorted({(found.path, found.function, found.module, found.names) for found in lazy_imports()
                   if args.only in found.path})
    table = [("where", "import", "new modules", "ms")]
    for path, function, target, names in rows:
        module = module_of(path)
        loaded = f"skillbench.app,{module}" if module in AFTER_THE_APP else module
        statement = f"from {target} import {', '.join(names)}" if names else f"import {target}"
        measured = cost(loaded, statement, args.runs)
        shown = ("not installed", "—") if measured is None else (str(measured[0]), f"{measured[1]:.0f}")
        table.append((f"{path} {function}", statement, *shown))
    width = [max(len(row[i]) for row in table) for i in range(4)]
    for row in [table[0], tuple("-" * w for w in width), *table[1:]]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)))


if __name__ == "__main__":
    main()
