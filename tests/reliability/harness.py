"""What the fault tests share: running skillbench as a user does, and fingerprints of what is on disk."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

# A small simulated job: two scenarios of the smoke benchmark (seconds on a loaded machine).
SMALL = ["benchmark=smoke", "benchmark.limit=2"]
SWEEP = ["agent=sim_careful,sim_sloppy", "judge=sim_balanced", "benchmark=smoke", "benchmark.limit=2"]


def skillbench(cwd: Path, *args: str, timeout: float = 600, env: dict[str, str] | None = None,
               module: str = "skillbench") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False, env={**os.environ, **(env or {})})


def start(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """skillbench in the background, in its own session (signals reach only what the test sends them to)."""
    return subprocess.Popen([sys.executable, "-m", "skillbench", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, **(env or {})})


def wait_for(condition: Callable[[], bool], timeout: float = 300, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def rows_written(folder: Path) -> int:
    """Whole rows in the results files under ``folder`` (a run or a sweep)."""
    total = 0
    for path in folder.rglob("results.jsonl"):
        with contextlib.suppress(OSError):
            total += path.read_bytes().count(b"\n")
    return total


def digest(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` → its SHA-256 (to prove nothing finished changed)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def skillbench_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("skillbench:")]
