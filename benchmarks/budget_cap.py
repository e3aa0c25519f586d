"""The budget against the bill: wave shape × launcher, the spend recorded against what a local stub answered
(issue 41 item 4).

    python benchmarks/budget_cap.py                              # every shape and launcher, 2 rounds
    python benchmarks/budget_cap.py --rounds 1 --launchers single,inflight

Each run is the real command against tests/support/openai_stub.py on 127.0.0.1 (its usage counted from each
request's and reply's size, ~4 characters a token, as a provider counts it; 50 ms per reply), the agent and the
judge both gpt-5 at litellm's price (the user simulator is simulated, free). Shapes:

- one wave: ``run.scenario_concurrency`` ≥ the scenarios, every conversation of a job in flight at once;
- many waves: ``run.scenario_concurrency=2``.

Launchers: ``single`` (one job, no sweep), and a 4-job sweep (``run.seed=0,1,2,3``, each job its own
conversations) under ``basic``, ``parallel`` (fork, ``n_jobs=2``), ``inflight`` and ``local`` (submitit, every job in
its own process). The budget is set to stop each run part-way. For every run:

- recorded: what the run says it spent (``stopped.json`` / ``summary.json`` of each job);
- answered: every reply the stub sent, priced — what a provider bills, whether or not the client read it;
- in flight at the cap: requests the stub answered at or after the reply with which its answered spend reached the
  budget, with their price (the overshoot, answered − budget, is at most that); all of them were sent before the
  run found the cap, unless
- cancelled in flight, counted: requests the run cancelled at the cap and counted at their estimated price (one
  cancelled on its way out, before it reached the stub, is counted too: the client cannot tell);
- sent after the cap: requests a job sent after another job of the sweep had found the cap (each job counts them
  at its send gate; the promise: none);
- found after: from the crossing reply leaving the stub to the run finding the cap;
- the rerun with a budget of $100: its exit code and whether every job finished with all its rows, once each.

Not a test: nothing here asserts (tests/engine/test_budget_cap.py asserts the same on smaller runs).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.support.bill import bill, gpt5_price, paid_env, recorded  # noqa: E402
from tests.support.openai_stub import conversation_script, stub_server  # noqa: E402

SCENARIOS = 6
SHAPES = {"one wave": SCENARIOS, "many waves": 2}  # run.scenario_concurrency
LAUNCHERS = {
    "single": [],
    "basic": ["run.seed=0,1,2,3", "-m"],
    "parallel": ["run.seed=0,1,2,3", "hydra/launcher=parallel", "hydra.launcher.n_jobs=2", "-m"],
    "inflight": ["run.seed=0,1,2,3", "hydra/launcher=inflight", "-m"],
    "local": ["run.seed=0,1,2,3", "hydra/launcher=local", "-m"],
}
BUDGET = {"single": 0.08, "basic": 0.25, "parallel": 0.25, "inflight": 0.25, "local": 0.25}


def skillbench(cwd: Path, base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillbench", "agent=gpt5", f"agent.api_base={base_url}", "judge=gpt5",
                           f"judge.api_base={base_url}", "store.root=store", f"benchmark.limit={SCENARIOS}", *args],
                          cwd=cwd, env=paid_env(), capture_output=True, text=True, timeout=1800)


def rows_complete(folder: Path, jobs: int) -> bool:
    """Every job finished, each with all its rows, each scenario once."""
    folders = [folder] if jobs == 1 else sorted(p for p in folder.iterdir() if (p / ".hydra").exists())
    if len(folders) != jobs:
        return False
    for job in folders:
        lines = (job / "results.jsonl").read_text().splitlines() if (job / "results.jsonl").exists() else []
        ids = [json.loads(line)["scenario_id"] for line in lines]
        if not (job / "summary.json").exists() or len(ids) != SCENARIOS or len(set(ids)) != SCENARIOS:
            return False
    return True


def one_run(work: Path, shape: str, launcher: str) -> tuple[str, ...]:
    work.mkdir(parents=True)
    sweep = "-m" in LAUNCHERS[launcher]
    folder_arg = "hydra.sweep.dir=out" if sweep else "hydra.run.dir=out"
    budget = BUDGET[launcher]
    args = [f"run.scenario_concurrency={SHAPES[shape]}", folder_arg, *LAUNCHERS[launcher]]
    load = os.getloadavg()[0]
    with stub_server(conversation_script, models=("gpt-5",), latency_s=0.05, sized=True) as stub:
        first = skillbench(work, stub.base_url, f"run.budget_usd={budget}", *args)
        result = bill(list(stub.answered), gpt5_price, budget, recorded(work / "out"))
        again = skillbench(work, stub.base_url, "run.budget_usd=100", *args)
    complete = rows_complete(work / "out", 4 if sweep else 1)
    return (shape, launcher, f"{load:.1f}", f"${budget:.2f}", f"{first.returncode}",
            f"${result.recorded_usd:.4f}", f"${result.answered_usd:.4f}",
            f"{result.recorded_usd / result.answered_usd:.3f}" if result.answered_usd else "—",
            f"${result.overshoot_usd:.4f}", f"{result.in_flight_calls} (${result.in_flight_usd:.4f})",
            f"{result.abandoned_calls}",
            f"{result.sent_after_cap}", "—" if result.detect_s is None else f"{result.detect_s * 1000:.0f} ms",
            f"{again.returncode}, {'all rows' if complete else 'INCOMPLETE'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--launchers", default=",".join(LAUNCHERS))
    args = parser.parse_args()
    header = ("shape", "launcher", "load", "budget", "exit", "recorded", "answered (stub)", "recorded ÷ answered",
              "overshoot (answered − budget)", "calls in flight at the cap ($)", "cancelled in flight, counted", "sent after the cap", "found after", "rerun: exit, rows")
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="skillbench-budget-") as tmp:
        for round_ in range(args.rounds):
            for shape in args.shapes.split(","):
                for launcher in args.launchers.split(","):
                    work = Path(tmp) / f"{round_}_{shape.replace(' ', '_')}_{launcher}"
                    started = time.perf_counter()
                    rows.append(one_run(work, shape, launcher))
                    print(" | ".join(rows[-1]) + f"   ({time.perf_counter() - started:.0f} s)", file=sys.stderr,
                          flush=True)
                    shutil.rmtree(work, ignore_errors=True)
    width = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in width), *rows]:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)) + " |")


if __name__ == "__main__":
    main()
