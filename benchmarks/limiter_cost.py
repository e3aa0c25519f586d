"""What the rate limiter costs per model call where nothing limits: a microbenchmark, beside a pinned commit's.

    python benchmarks/limiter_cost.py                     # this tree vs dc46533 (the file-per-call limiter), 3 rounds
    python benchmarks/limiter_cost.py --against "" --calls 50000

``--tasks`` callers (128) in one event loop each take a slot, yield once (the call), and give it back, ``--calls``
times in all, against a limit scope whose ceiling is ``--tasks`` and whose endpoint never throttles. Variants, each in
a fresh interpreter, interleaved over ``--rounds``: ``semaphore`` (an ``asyncio.Semaphore``: what a caller pays with
no limiter at all), ``memory`` (this tree's limiter, state in memory), ``shared`` (this tree's limiter sharing the
scope through a ``.limits`` folder, as every job does: a lease renewed off the event loop), and for each
``--against`` commit its limiter as its jobs use it (``shared_path`` in a ``.limits`` folder; exported with
``git archive``). Printed: CPU µs per call (process CPU ÷ calls, median and range) and the limiter's own cost over
the semaphore's. The issue's budget: ≤ 50 µs (0.05 ms) per call for the limiter. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_RUN = """
import asyncio, json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {tree!r})
variant, tasks, calls = {variant!r}, {tasks}, {calls}

def limiter(folder):
    if variant == "semaphore":
        return None
    from skillbench.models.limiter import EndpointLimiter, LimitSettings
    shared = None if variant == "memory" else Path(folder) / ".limits" / "scope.json"
    return EndpointLimiter("bench", LimitSettings(ceiling=tasks), shared)

async def main(folder):
    lim = limiter(folder)
    semaphore = asyncio.Semaphore(tasks)
    per_task = calls // tasks

    async def caller():
        for _ in range(per_task):
            if lim is None:
                async with semaphore:
                    await asyncio.sleep(0)
            else:
                ticket = await lim.acquire(0)
                await asyncio.sleep(0)
                lim.release(ticket, "ok", 0.001)

    await asyncio.gather(*(caller() for _ in range(tasks)))  # warm: slow start, first lease, first compiles
    cpu = time.process_time()
    await asyncio.gather(*(caller() for _ in range(tasks)))
    return (time.process_time() - cpu) / (per_task * tasks)

with tempfile.TemporaryDirectory() as folder:
    print(json.dumps(asyncio.run(main(folder))))
"""


def run(tree: Path, variant: str, tasks: int, calls: int) -> float:
    """CPU seconds per call of one variant, in a fresh interpreter with ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", _RUN.format(tree=str(tree), variant=variant, tasks=tasks, calls=calls)],
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{variant} at {tree} failed:\n{done.stderr[-2000:]}")
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="dc46533", help="comma-separated commits; empty: none")
    parser.add_argument("--tasks", type=int, default=128)
    parser.add_argument("--calls", type=int, default=25_600)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillbench-limiter-cost-") as tmp:
        variants = [("semaphore", REPO, "semaphore"), ("memory", REPO, "memory"), ("shared", REPO, "shared")]
        for commit in filter(None, options.against.split(",")):
            folder = Path(tmp) / commit
            folder.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
            variants.append((f"{commit} (its jobs' limiter, a .limits file)", folder, "shared"))
        results: dict[str, list[float]] = {label: [] for label, _, _ in variants}
        for _ in range(options.rounds):
            for label, tree, variant in variants:
                results[label].append(run(tree, variant, options.tasks, options.calls) * 1e6)
    base = statistics.median(results["semaphore"])
    print(f"{options.tasks} callers, {options.calls:,} calls per run, {options.rounds} interleaved round(s); "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| limiter | CPU µs per call, median (range) | over the semaphore, µs |")
    print("|---|---|---|")
    for label, values in results.items():
        median = statistics.median(values)
        print(f"| {label} | {median:.1f} ({min(values):.1f}–{max(values):.1f}) | "
              f"{'—' if label == 'semaphore' else f'{median - base:+.1f}'} |")


if __name__ == "__main__":
    main()
