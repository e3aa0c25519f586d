"""The real SLURM cluster of the tests (tests/support/slurm.py): how long it takes to start and stop, and how long the
issue's sweep takes on it — on this machine, with the SIMULATED models.

    python benchmarks/slurm_cluster.py                  # 5 start/stop cycles, then one sweep (root, SLURM installed)
    python benchmarks/slurm_cluster.py --cycles 10 --no-sweep

Start-up: from the first daemon's start (munged, then slurmctld, then slurmd) to ``sinfo`` saying the node is idle.
Stop: cancel every job, stop the three daemons by PID, check that nothing of the cluster runs. The sweep is the
command of issue 44 (two agents, one judge, benchmark=smoke, the shipped slurm preset with a user's overrides):
its wall time from the command's start to its exit, the report included, and the same command again (everything
from the store). Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.support.slurm import PARTITION, slurm_cluster, unavailable  # noqa: E402

SWEEP = ["agent=sim_careful,sim_sloppy", "judge=sim_balanced", "benchmark=smoke", "hydra/launcher=slurm",
         f"hydra.launcher.partition={PARTITION}", "hydra.launcher.cpus_per_task=1", "hydra.launcher.mem_gb=1"]


def _sweep(env: dict[str, str], folder: Path) -> tuple[float, int, int]:
    """Wall seconds, exit code and model calls of the issue's sweep into ``folder``."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "skillbench", *SWEEP, f"store.root={folder / 'store'}",
                           f"hydra.sweep.dir={folder / 'sweep'}", "-m"], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=1800, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    calls = sum(sum(role["calls"] for role in json.loads(p.read_text())["usage"].values())
                for p in (folder / "sweep").glob("*/summary.json"))
    return wall, done.returncode, calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=5, help="start/stop cycles to time")
    parser.add_argument("--no-sweep", action="store_true", help="only the start-up and stop times")
    args = parser.parse_args()
    why = unavailable()
    if why:
        print(f"cannot start a SLURM cluster here: {why}", file=sys.stderr)
        return 2
    starts, stops = [], []
    for _ in range(args.cycles):
        with slurm_cluster() as cluster:
            starts.append(cluster.started_in_s)
            stopping = time.monotonic()
        stops.append(time.monotonic() - stopping)
    load = os.getloadavg()[0]
    print(f"SLURM 22.05 test cluster (one node, {cluster.cpus} CPUs), {args.cycles} cycles, load {load:.1f} at the end")
    print("phase                            | median  | min     | max")
    for name, values in (("start (daemons up, node idle)", starts), ("stop (jobs cancelled, PIDs gone)", stops)):
        print(f"{name:32s} | {statistics.median(values):5.2f} s | {min(values):5.2f} s | {max(values):5.2f} s")
    if args.no_sweep:
        return 0
    with slurm_cluster() as cluster, tempfile.TemporaryDirectory(prefix="sb-slurm-sweep-") as tmp:
        folder = Path(tmp)
        first = _sweep(cluster.env, folder)
        again = _sweep(cluster.env, folder)
    print("sweep (issue 44's command, simulated models) | wall    | exit | model calls")
    print(f"first                                        | {first[0]:5.1f} s | {first[1]:4d} | {first[2]}")
    print(f"same command again (all from the store)      | {again[0]:5.1f} s | {again[1]:4d} | {again[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
