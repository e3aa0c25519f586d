"""A sweep against rate-limited endpoints: ``hydra/launcher=basic`` (one job after another) vs ``inflight``
(every job at once in one process, each endpoint within its limiter).

    python benchmarks/sweep_inflight.py                  # 2 endpoints × 2 seeds = 4 jobs, basic then inflight (~1.5 min)
    python benchmarks/sweep_inflight.py --scenarios 2    # a quicker look

Two local OpenAI-compatible stubs (tests/support/ratelimited_stub.py) speak the chat-completions wire format with
their own limits: ``a`` 600 req/min at 300 ms, ``b`` 300 req/min at 500 ms, both stating them in x-ratelimit-*
headers. The sweep is real: ``python -m skillbench agent=qwen3_1_7b,qwen3_5_4b run.seed=0,1 -m``, each agent's api_base
pointed at its own stub (its scripted conversation), simulated user and judge; a fresh store per launcher, so
nothing is reused.
Printed per launcher: wall time, agent requests answered / refused (429) per endpoint, and the wall time over
two lower bounds from the endpoints' limits: the sum over endpoints (what one job at a time can reach at best) and
the slowest endpoint's share (what the whole sweep in flight can reach at best).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.openai_stub import conversation_script  # noqa: E402
from tests.support.ratelimited_stub import RateLimitedStub  # noqa: E402

ENDPOINTS = {"a": (600.0, 0.30), "b": (300.0, 0.50)}  # requests/min, latency
# Two self-hosted agents of the catalogue, each pointed at its own stub (distinct agents: distinct rollouts).
AGENTS = {"a": ("qwen3_1_7b", "QWEN3_1_7B", "Qwen/Qwen3-1.7B"), "b": ("qwen3_5_4b", "QWEN3_5_4B", "Qwen/Qwen3.5-4B")}


def sweep(launcher: str, scenarios: int, concurrency: int) -> dict:
    stubs = {name: RateLimitedStub(conversation_script, requests_per_minute=rpm, latency_s=latency,
                                   models=(AGENTS[name][2],))
             for name, (rpm, latency) in ENDPOINTS.items()}
    for stub in stubs.values():
        stub.start()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "PYTHONPATH": os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])})
    for name, (_, var, _) in AGENTS.items():
        env[f"SKILLBENCH_{var}_API_BASE"], env[f"SKILLBENCH_{var}_API_KEY"] = stubs[name].base_url, "local"
    try:
        with tempfile.TemporaryDirectory() as cwd:
            started = time.monotonic()
            result = subprocess.run(
                [sys.executable, "-m", "skillbench", "agent=" + ",".join(agent for agent, _, _ in AGENTS.values()),
                 "run.seed=0,1",
                 "benchmark=full", f"benchmark.limit={scenarios}", f"run.scenario_concurrency={concurrency}",
                 "store.root=store", "hydra.sweep.dir=sweep", f"hydra/launcher={launcher}", "-m"],
                cwd=cwd, env=env, capture_output=True, text=True, timeout=1800, check=False)
            wall = time.monotonic() - started
            if result.returncode != 0:
                raise SystemExit(f"{launcher} sweep failed ({result.returncode}):\n{result.stderr[-3000:]}")
            summaries = [json.loads(p.read_text()) for p in Path(cwd, "sweep").glob("*/summary.json")]
            rows = sum(s["scenarios"] for s in summaries)
    finally:
        for stub in stubs.values():
            stub.stop()
    bounds = {name: len(stub.accepted) / (ENDPOINTS[name][0] / 60) for name, stub in stubs.items()}
    return {"launcher": launcher, "wall": wall, "jobs": len(summaries), "rows": rows,
            "answered": {n: len(s.accepted) for n, s in stubs.items()},
            "refused": {n: len(s.refused) for n, s in stubs.items()},
            "sum_bound": sum(bounds.values()), "max_bound": max(bounds.values())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=12, help="scenarios per job (benchmark=full, the first N)")
    parser.add_argument("--concurrency", type=int, default=16, help="run.scenario_concurrency of each job")
    args = parser.parse_args()
    results = [sweep(launcher, args.scenarios, args.concurrency) for launcher in ("basic", "inflight")]
    print(f"4-job sweep (2 endpoints × 2 seeds), {args.scenarios} scenarios per job, "
          f"scenario_concurrency={args.concurrency}; endpoints " +
          ", ".join(f"{n}: {rpm:g}/min {lat * 1000:.0f} ms" for n, (rpm, lat) in ENDPOINTS.items()))
    print(f"{'launcher':<9} {'jobs':>4} {'rows':>4} {'wall s':>7} {'answered a/b':>13} {'429s a/b':>9} "
          f"{'÷ sum bound':>11} {'÷ slowest-endpoint bound':>24}")
    for r in results:
        print(f"{r['launcher']:<9} {r['jobs']:>4} {r['rows']:>4} {r['wall']:>7.1f} "
              f"{r['answered']['a']:>6}/{r['answered']['b']:<6} {r['refused']['a']:>4}/{r['refused']['b']:<4} "
              f"{r['wall'] / r['sum_bound']:>11.2f} {r['wall'] / r['max_bound']:>24.2f}")
    basic, inflight = results
    print(f"inflight: {basic['wall'] / inflight['wall']:.2f}× faster than basic (wall times include each sweep's "
          "start-up and its report)")


if __name__ == "__main__":
    main()
