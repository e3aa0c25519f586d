"""How the whole-state verdict scores the example domains (`toolshed`, `photolab`): passes per simulated agent
and pass rule, and how many passes were false (the end state differs from the one the gold actions produce) —
measured with the SIMULATED models (not a real model's result).

    python benchmarks/example_domain_verdicts.py                 # both domains, seeds 0-4: 60 jobs
    python benchmarks/example_domain_verdicts.py --seeds 0 --benchmarks photolab

A false pass is a passed row whose `end_state_matches_gold` check failed. Under `paper` that check is
soft (reported, not binding); under `state_strict` it is hard. Not a test: nothing here asserts
(tests/engine/test_example_domain_job.py asserts seed 0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

AGENTS = ("sim_careful", "sim_sloppy", "sim_reckless")
RULES = ("paper", "state_strict")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated run seeds (default: 0-4)")
    parser.add_argument("--benchmarks", default="toolshed,photolab", help="comma-separated benchmarks (default: both)")
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")]
    for benchmark in args.benchmarks.split(","):
        table = _measure(benchmark, seeds)
        print(f"{benchmark}, seeds {args.seeds} (SIMULATED models)")
        print(f"| agent | {' | '.join(f'{rule}: passed / false passes' for rule in RULES)} |")
        print("|---|" + "---|" * len(RULES))
        for agent in AGENTS:
            cells = [f"{p}/{n} / {f}" for p, f, n in (table[(agent, rule)] for rule in RULES)]
            print(f"| {agent} | {' | '.join(cells)} |")
        print()


def _measure(benchmark: str, seeds: list[int]) -> dict[tuple[str, str], list[int]]:
    from skillbench.engine import RESULTS_FILE, run_job
    from tests.conftest import compose_config

    table: dict[tuple[str, str], list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for agent in AGENTS:
            for rule in RULES:
                passed = false = total = 0
                for seed in seeds:
                    job = Path(tmp) / f"{agent}-{rule}-{seed}"
                    cfg = compose_config(f"benchmark={benchmark}", f"agent={agent}", f"pass_rule={rule}", f"run.seed={seed}",
                                         f"store.root={Path(tmp) / 'store'}")
                    run_job(cfg, job)
                    for line in (job / RESULTS_FILE).read_text().splitlines():
                        row = json.loads(line)
                        whole = next(c for c in row["rule_checks"] if c["name"] == "end_state_matches_gold")
                        total += 1
                        passed += bool(row["passed"])
                        false += bool(row["passed"]) and not whole["passed"]
                table[(agent, rule)] = [passed, false, total]
    return table


if __name__ == "__main__":
    main()
