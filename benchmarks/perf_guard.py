"""The regression guard: this tree's engine beside pinned earlier commits, interleaved, on one unthrottled stub.

    python benchmarks/perf_guard.py                                  # vs 3ba7b92 and dc46533, 2 rounds, 200 conv, c=128
    python benchmarks/perf_guard.py --against 3ba7b92 --rounds 3
    python benchmarks/perf_guard.py --conversations 100 --concurrency 64

Each commit is exported with ``git archive`` into a temporary folder (nothing in the repository changes) and run
with ``PYTHONPATH`` at that folder in this venv, so only skillbench's own code differs between the columns. Each
round runs every tree once, one after the other (this tree first), the rounds interleaved so a busy spell of the
machine falls on all of them. One run = a warm-up job of 4 conversations, then a job of ``--conversations``
distinct conversations (benchmarks/throughput.py ``run_engine``: agent, user simulator and judge on
benchmarks/load_stub.py at 100 ms, ``--concurrency`` everywhere), then the requests that job sent replayed through
bare ``litellm.acompletion`` at the same concurrency (this tree's ``replay_bare``; bare litellm is the same in
every column). Printed per tree: CPU seconds per conversation (the job's own process CPU, start-up excluded),
conversations per hour, the most requests in flight the stub saw (the limiter's concurrency, ceiling
``--concurrency``) and their time-weighted mean from the first request to the last answer, and engine ÷ bare
litellm (bare CPU per call ÷ the engine's: 1.0 = no overhead); then this
tree ÷ each other tree's CPU per conversation in the same round. Figures from a local stub, not a provider; not a
test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.throughput import Measured, Stub, spread  # noqa: E402

DEFAULT_AGAINST = ("3ba7b92", "dc46533")  # the previous round's code; main before the limiter's redesign

_ENGINE = """
import json, sys
sys.path.insert(0, {tree!r})
from pathlib import Path
import skillbench
assert skillbench.__file__.startswith({tree!r}), skillbench.__file__
from benchmarks.throughput import make_benchmark, run_engine
work = Path({work!r})
make_benchmark(work / "warm" / "bench", 4)  # imports and first compiles, paid before the measured job
run_engine(work / "warm" / "bench", work / "warm", {concurrency}, {warm_base!r})
make_benchmark(work / "bench", {conversations})
print(json.dumps(run_engine(work / "bench", work, {concurrency}, {base!r}).__dict__))
"""

_BARE = """
import json, sys
sys.path.insert(0, {repo!r})
from benchmarks.throughput import replay_bare
bodies = [json.loads(line) for line in open({record!r})]
print(json.dumps(replay_bare(bodies, {concurrency}, {base!r}, {conversations}).__dict__))
"""


@dataclass
class Run:
    """One measured run of one tree: the engine's job, the stub's view of it, and bare litellm on its requests."""

    tree: str
    engine: Measured
    peak_in_flight: int
    mean_in_flight: float  # time-weighted, first request to last answer: what it keeps in flight, not its first burst
    bare: Measured
    load: float

    @property
    def cpu_per_conversation(self) -> float:
        return self.engine.cpu_s / self.engine.conversations

    @property
    def engine_over_bare(self) -> float:
        return self.bare.cpu_ms_per_call / self.engine.cpu_ms_per_call


def _child(code: str, pythonpath: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": pythonpath, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"a measured run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(tree: Path, label: str, conversations: int, concurrency: int, latency_ms: float) -> Run:
    """One run of ``tree``'s engine and the bare replay of its requests (see the module docstring)."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="skillbench-guard-") as tmp:
        work = Path(tmp)
        record = work / "requests.jsonl"
        warm, stub = Stub(latency_ms), Stub(latency_ms, record)
        try:
            engine = _child(_ENGINE.format(tree=str(tree), work=str(work), concurrency=concurrency,
                                           conversations=conversations, base=stub.base_url, warm_base=warm.base_url),
                            str(tree))
        finally:
            warm.close()
            seen = stub.close()
        bare_stub = Stub(latency_ms)
        try:
            bare = _child(_BARE.format(repo=str(REPO), record=str(record), concurrency=concurrency,
                                       base=bare_stub.base_url, conversations=conversations), str(REPO))
        finally:
            bare_stub.close()
    return Run(label, Measured(**engine), int(seen.get("peak_in_flight", 0)), float(seen.get("mean_in_flight", 0.0)),
               Measured(**bare), load)


def export(commit: str, into: Path) -> Path:
    """``commit``'s tree, as ``git archive`` gives it, in ``into/<commit>``."""
    folder = into / commit
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def report(runs: list[Run], trees: list[str], rounds: int) -> None:
    print("| tree | CPU s per conversation | conversations/hour | peak requests in flight | mean requests in flight "
          "| engine ÷ bare litellm (CPU per call) | load (1-min) |")
    print("|---|---|---|---|---|---|---|")
    for tree in trees:
        mine = [run for run in runs if run.tree == tree]
        print(f"| {tree} | {spread([r.cpu_per_conversation for r in mine], '{:.3f}')} "
              f"| {spread([r.engine.conversations_per_hour for r in mine], '{:,.0f}')} "
              f"| {spread([float(r.peak_in_flight) for r in mine], '{:.0f}')} "
              f"| {spread([r.mean_in_flight for r in mine], '{:.1f}')} "
              f"| {spread([r.engine_over_bare for r in mine], '{:.2f}')} "
              f"| {spread([r.load for r in mine], '{:.1f}')} |")
    print()
    print("| this tree ÷ | CPU per conversation, per round | peak in flight, this tree / that |")
    print("|---|---|---|")
    this = [run for run in runs if run.tree == trees[0]]
    for tree in trees[1:]:
        other = [run for run in runs if run.tree == tree]
        ratios = [a.cpu_per_conversation / b.cpu_per_conversation for a, b in zip(this, other, strict=True)]
        peaks = ", ".join(f"{a.peak_in_flight} / {b.peak_in_flight}" for a, b in zip(this, other, strict=True))
        print(f"| {tree} | {', '.join(f'{r:.2f}' for r in ratios)} | {peaks} |")
    print(f"\n{rounds} interleaved round(s), {runs[0].engine.conversations} conversations and {runs[0].engine.calls} "
          "calls per run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default=",".join(DEFAULT_AGAINST), help="comma-separated commits")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    options = parser.parse_args()
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "skillbench"], capture_output=True,
                           text=True, check=True).stdout.strip()
    this = f"this tree ({head}{'+changes' if dirty else ''})"
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory(prefix="skillbench-guard-trees-") as tmp:
        trees = [(this, REPO)] + [(commit, export(commit, Path(tmp))) for commit in options.against.split(",") if commit]
        runs = []
        for index in range(options.rounds):
            for label, tree in trees:
                run = measure(tree, label, options.conversations, options.concurrency, options.latency_ms)
                print(f"round {index + 1}: {label}: {run.cpu_per_conversation:.3f} CPU s/conversation, peak "
                      f"{run.peak_in_flight} in flight (mean {run.mean_in_flight:.1f}), "
                      f"engine/bare {run.engine_over_bare:.2f}, load {run.load:.1f}",
                      file=sys.stderr, flush=True)
                runs.append(run)
    print(f"started {started}; stub latency {options.latency_ms:.0f} ms; concurrency {options.concurrency}\n")
    report(runs, [label for label, _ in trees], options.rounds)


if __name__ == "__main__":
    main()
