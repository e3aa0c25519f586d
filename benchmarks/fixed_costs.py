"""Fixed costs per scenario and per job, this tree beside an earlier commit, interleaved (issue 40 item 3).

    python benchmarks/fixed_costs.py                       # this tree only
    python benchmarks/fixed_costs.py --against 267c28b     # and that commit, run alternately with this tree
    python benchmarks/fixed_costs.py --against 3ba7b92 --against 267c28b   # several
    python benchmarks/fixed_costs.py --against 267c28b --rounds 2 --skip-sweep
    python benchmarks/fixed_costs.py --against 3ba7b92 --seeds 5   # the cached sweep 3 × 3 × 5 seeds: 45 jobs

Per tree, in its own interpreter (``PYTHONPATH`` = the tree; an earlier commit is exported with ``git archive``):

- a rollout key per scenario, as a job computes its keys (``benchmark=full``, 500 scenarios, default config),
- a verdict key per row (a judge prompt of ~20 KB),
- ``scenario_tokens`` per scenario (the prompt-size check: now the preflight's, once per selection; the job
  repeated it before),
- the fully cached 3 × 3 simulated sweep (``benchmarks/perf.py`` ``SIM_GRID``, the basic launcher, report
  included; ``--seeds N``: each point at N seeds, 9 N jobs): CPU s (user + sys, ``wait4``) after a first run
  filled the tree's own store.

CPU seconds are the process's own (``time.process_time`` / ``wait4``), so a busy machine inflates them less than
wall time; the load average is printed with each round. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.perf import _MEASURE, SIM_GRID  # noqa: E402

# Run inside the tree's own interpreter: per-scenario and per-row CPU of the keys and the prompt-size estimate.
_KEYS = r"""
import json, time
from hydra import compose, initialize_config_module
from skillbench.benchmark import load_benchmark
from skillbench.config import validate_config
import skillbench.engine.job as job

with initialize_config_module(config_module="skillbench.conf", version_base="1.3"):
    cfg = validate_config(compose(config_name="config"))
benchmark = load_benchmark("full")
scenarios = benchmark.scenarios

def best(per_item, items, rounds=5):
    values = []
    for _ in range(rounds):
        start = time.process_time()
        for item in items:
            per_item(item)
        values.append((time.process_time() - start) / len(items) * 1000)
    return min(values)

import skillbench.evaluation as evaluation
if hasattr(job, "RolloutKeys"):  # as a job computes its keys: one RolloutKeys, one VerdictKeys per job
    keys, verdicts = job.RolloutKeys(cfg, benchmark), evaluation.VerdictKeys(cfg.judge)
    rollout, verdict = keys.key, verdicts.key
else:
    rollout = lambda s: job.rollout_key(cfg, benchmark, s)
    verdict = lambda p: evaluation.verdict_key(cfg.judge, p)
prompt = "A judge prompt: the transcript, its tool calls and the rubric. é " * 320  # ~20 KB
result = {"rollout_key_ms": best(rollout, scenarios, 3), "verdict_key_ms": best(verdict, [prompt] * 500, 3),
          "scenario_tokens_ms": None}
try:  # the prompt-size check (a tree from before it has none)
    from skillbench.models.prompt_size import scenario_tokens
    result["scenario_tokens_ms"] = best(lambda s: scenario_tokens(s, benchmark.skill_of(s)), scenarios, 3)
except ImportError:
    pass
print(json.dumps(result))
"""


def export(commit: str, into: Path) -> Path:
    """The tree of ``commit`` in ``into`` (git archive: no .git, no build)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def env_for(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def key_costs(tree: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", _KEYS], cwd=tree, env=env_for(tree), capture_output=True, text=True,
                          check=False, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"key costs in {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cpu_s(args: list[str], tree: Path) -> float:
    """CPU s (user + sys, from wait4) of one command run with ``tree`` first on the path."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], cwd=tree, env=env_for(tree), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, check=False, timeout=1800)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["rc"] != 0:
        raise SystemExit(f"{' '.join(args)} in {tree} exited {result['rc']}")
    return float(result["cpu"])


def cached_sweep(tree: Path, work: Path, name: str, round_: int, seeds: int = 1) -> float:
    """CPU s of the fully cached 3 × 3 sweep (× ``seeds`` seeds) in ``tree`` (its own store, filled by a first run)."""
    store = work / f"{name}_store"
    seed = [f"run.seed={','.join(map(str, range(seeds)))}"] if seeds > 1 else []
    args = [sys.executable, "-m", "skillbench", *SIM_GRID, *seed, f"store.root={store}"]
    if not store.exists():
        cpu_s([*args, f"hydra.sweep.dir={work / f'{name}_first'}", "-m"], tree)
    return cpu_s([*args, f"hydra.sweep.dir={work / f'{name}_cached{round_}'}", "-m"], tree)


def load() -> str:
    return "/".join(f"{v:.1f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", action="append", default=[],
                        help="an earlier commit, measured alternately with this tree (repeatable)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip-sweep", action="store_true", help="only the per-scenario and per-row costs")
    parser.add_argument("--seeds", type=int, default=1, help="seeds per point of the cached sweep (9 × seeds jobs)")
    args = parser.parse_args()
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="skillbench-fixed-") as tmp:
        work = Path(tmp)
        trees = {commit: export(commit, work / f"tree_{commit}") for commit in args.against}
        trees["this tree"] = REPO
        for round_ in range(args.rounds):
            for name, tree in trees.items():
                started = load()
                costs = key_costs(tree)
                sweep = (f"{cached_sweep(tree, work, name.replace(' ', '_'), round_, args.seeds):.2f}"
                         if not args.skip_sweep else "—")
                rows.append((name, str(round_ + 1), f"{costs['rollout_key_ms']:.3f}", f"{costs['verdict_key_ms']:.3f}",
                             "—" if costs["scenario_tokens_ms"] is None else f"{costs['scenario_tokens_ms']:.3f}",
                             sweep, f"{started} → {load()}"))
                print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    header = ("tree", "round", "rollout key ms/scenario", "verdict key ms/row", "scenario_tokens ms/scenario",
              f"cached 3×3{f'×{args.seeds}' if args.seeds > 1 else ''} sweep CPU s", "load 1/5/15 min")
    width = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in width), *rows]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)))


if __name__ == "__main__":
    main()
