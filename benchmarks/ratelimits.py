"""Side-by-side: skillbench's adaptive limiter vs a fixed concurrency, against rate-limited endpoints.

    python benchmarks/ratelimits.py                 # 3 endpoints at once, adaptive then fixed (~2-3 min)
    python benchmarks/ratelimits.py --scale 0.5     # half the calls

Three local OpenAI-compatible stubs (tests/support/ratelimited_stub.py), each one endpoint with its own limits,
all served and called at once from one process, as a sweep with one job per endpoint would be:

- ``fast``:   600 req/min, 300 ms latency, states its limits in x-ratelimit-* headers (the issue-35 stub);
- ``tokens``: 1,200 req/min but 90,000 tokens/min on ~300-token prompts (so ~5 req/s), 150 ms, headers;
- ``silent``: 240 req/min, 500 ms, no limit headers: only ``Retry-After: 1`` on a 429 (AIMD must find it).

Work per endpoint: chains of sequential calls (a conversation's shape), 64 chains in flight per endpoint, through
``ModelClient`` (the engine's client: its limiter, its throttling patience), ``max_retries=0`` so nothing but the
throttling patience carries a call. Printed per endpoint and path: accepted ÷ allowed rate once warm (after the
first 5 s), 429 share of all attempts, calls unanswered (conversations that would be unscored), conversations
redone (always 0: a client never restarts one), wall ÷ the lower bound its limits imply; and for the whole sweep
(all three at once) wall ÷ the slowest endpoint's bound. Targets (issue 35): 0 lost or redone; ≥ 0.95 of the
allowed rate once warm with a 429 share ≤ ~0.33; the 3-endpoint sweep within 1.15× of its lower bound.

"fixed" = ``adaptive_concurrency=false`` at ``concurrency=16`` (the old shape of the limit, with the new patience).
"shared" = the ``fast`` endpoint serving two models at once (two model configs, one server: one limit scope), half
the calls each. inspect_ai on the same stubs: benchmarks/ratelimits_inspect.py (its own venv; docs/performance.md).

    python benchmarks/ratelimits.py --sweep inflight,basic   # the two-endpoint 2 x 2 sweep (~1.5 min per launcher)

The two-endpoint sweep is a real skillbench sweep (``python -m skillbench agent=qwen3_1_7b,qwen3_5_4b
judge=qwen3_6_27b,gemma4 user_sim=gemma4_31b benchmark=full benchmark.limit=30 hydra/launcher=<launcher> -m``, a
fresh store) against two stubs: ``A`` (600 req/min, burst 10, 300 ms) serves both agents and the user simulator,
``J`` (120 req/min, burst 2, 300 ms) both judges; each states its limit in headers and answers a short
conversation (user, agent, user, agent ending it: 4 calls on A; each agent's replies carry its model, so every
judge reads every transcript: 120 calls on J). Printed per endpoint: calls accepted and refused (429), accepted ÷
allowed over its active span (first to last accepted call), and for the sweep: rows scored and lost, and
(process end − the first request) ÷ the bound (the slowest endpoint's calls ÷ its rate: J, 60 s). Goal (issue 41):
0 lost, ≥ 0.95 of the allowed rate on every endpoint, ≤ 1.15× the bound.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from skillbench.config.schema import ModelConfig  # noqa: E402
from skillbench.models.client import ClientPool  # noqa: E402
from skillbench.models.limiter import LIMITERS  # noqa: E402
from skillbench.models.litellm_setup import get_litellm  # noqa: E402
from tests.support.openai_stub import request_role, text_reply, tool_reply  # noqa: E402
from tests.support.ratelimited_stub import RateLimitedStub  # noqa: E402

WARM_S = 5.0
PROMPT = "x" * 1150  # ~300 tokens once wrapped in a message list (the stub counts ~4 characters a token)


@dataclass(frozen=True)
class Endpoint:
    name: str
    rpm: float
    tpm: float | None
    latency_s: float
    headers: bool
    calls: int


ENDPOINTS = (
    Endpoint("fast", 600, None, 0.30, True, 300),
    Endpoint("tokens", 1200, 90_000, 0.15, True, 150),
    Endpoint("silent", 240, None, 0.50, False, 120),
)


def allowed_rate(endpoint: Endpoint, prompt_tokens: int) -> float:
    rate = endpoint.rpm / 60
    return min(rate, endpoint.tpm / 60 / prompt_tokens) if endpoint.tpm else rate


async def drive(endpoint: Endpoint, stub: RateLimitedStub, path: str, chains: int) -> dict[str, Any]:
    """The endpoint's calls as ``chains`` conversations through ModelClient; ``shared``: half of them through a
    second model config on the same server (one limit scope, two models)."""
    adaptive = path != "fixed"
    names = [endpoint.name, f"{endpoint.name}-2"] if path == "shared" else [endpoint.name]
    pool = ClientPool()
    clients = [pool.client(ModelConfig(name=name, model=f"hosted_vllm/{name}", api_base=stub.base_url, max_retries=0,
                                       concurrency=16 if not adaptive else 64, adaptive_concurrency=adaptive,
                                       timeout_s=30), role="agent") for name in names]
    messages = [{"role": "user", "content": PROMPT}]
    lost = 0

    async def chain(index: int, calls: int) -> None:
        nonlocal lost
        for _ in range(calls):
            try:
                await clients[index % len(clients)].complete(messages)
            except Exception:  # an unanswered call: its conversation would be unscored
                lost += 1
                return

    per_chain, extra = divmod(endpoint.calls, chains)
    started = time.monotonic()
    await asyncio.gather(*(chain(i, per_chain + (i < extra)) for i in range(chains)))
    wall = time.monotonic() - started
    return {"wall": wall, "lost": lost, "limit": pool.endpoint_stats()[0]["limit"]}


def measure(endpoint: Endpoint, stub: RateLimitedStub, outcome: dict[str, Any], started: float) -> dict[str, Any]:
    tokens = stub.prompt_tokens({"messages": [{"role": "user", "content": PROMPT}]})
    allowed = allowed_rate(endpoint, tokens)
    accepted = [t - started for t in stub.accepted]
    last = max(accepted) if accepted else 0.0
    warm = [t for t in accepted if t >= WARM_S]
    warm_rate = (len(warm) - 1) / (last - WARM_S) if len(warm) > 1 and last > WARM_S else float("nan")
    attempts = len(stub.accepted) + len(stub.refused)
    bound = endpoint.calls / allowed
    return {"endpoint": endpoint.name, "allowed": allowed, "warm_ratio": warm_rate / allowed,
            "share_429": len(stub.refused) / attempts if attempts else 0.0, "lost": outcome["lost"],
            "answered": len(stub.accepted), "wall": outcome["wall"], "bound": bound, "wall_ratio": outcome["wall"] / bound,
            "limit": outcome["limit"]}


async def sweep(path: str, scale: float, chains: int) -> tuple[list[dict[str, Any]], float, float]:
    LIMITERS.limiters.clear()
    get_litellm()  # imported before the clock starts: the bound is about the endpoints, not start-up
    endpoints = [Endpoint(e.name, e.rpm, e.tpm, e.latency_s, e.headers, max(10, int(e.calls * scale))) for e in ENDPOINTS]
    stubs = [RateLimitedStub(lambda body: text_reply("ok"), requests_per_minute=e.rpm, tokens_per_minute=e.tpm,
                             latency_s=e.latency_s, state_limits=e.headers, retry_after_s=1.0) for e in endpoints]
    for stub in stubs:
        stub.start()
    try:
        started = time.monotonic()
        outcomes = await asyncio.gather(*(drive(e, s, path, chains) for e, s in zip(endpoints, stubs, strict=True)))
        wall = time.monotonic() - started
        rows = [measure(e, s, o, started) for e, s, o in zip(endpoints, stubs, outcomes, strict=True)]
    finally:
        for stub in stubs:
            stub.stop()
    bound = max(row["bound"] for row in rows)
    return rows, wall, bound


# ---------------------------------------------------------------------------------------------- the 2 x 2 sweep

AGENTS = {"qwen3_1_7b": "Qwen/Qwen3-1.7B", "qwen3_5_4b": "Qwen/Qwen3.5-4B"}
JUDGES = {"qwen3_6_27b": "Qwen/Qwen3.6-27B", "gemma4": "google/gemma-4-31B-it"}
USER_SIM = ("gemma4_31b", "USER_SIM", "google/gemma-4-31B-it")


def short_conversation(body: dict[str, Any]) -> dict[str, Any]:
    """User opens, agent answers, user answers, agent ends it (4 calls); the agent's words carry its model, so
    two agents' transcripts differ and each judge reads both; the judge a rubric verdict."""
    role, messages = request_role(body), body.get("messages", [])
    if role == "agent":
        if sum(1 for m in messages if m["role"] == "user") >= 2:
            return tool_reply("end_conversation", {"outcome": "resolved"}, call_id=f"call_{len(messages)}")
        return text_reply(f"Thank you, I can help with that ({body.get('model')}).")
    if role == "user":
        return text_reply("I would like to move my appointment to next week, please.")
    return text_reply(json.dumps({
        "task_completion": "success", "workflow_adherence": 4, "tool_use_correctness": 4, "guardrail_compliance": 5,
        "communication_quality": 4, "resolution_efficiency": 4, "hallucinated_action": False, "explanation": "ok"}))


def endpoint_figures(name: str, stub: RateLimitedStub) -> dict[str, Any]:
    accepted = sorted(stub.accepted)
    allowed = stub.allowed_rate() or 1.0
    span = accepted[-1] - accepted[0] if len(accepted) > 1 else float("nan")
    attempts = len(stub.accepted) + len(stub.refused)
    return {"endpoint": name, "accepted": len(accepted), "refused": len(stub.refused),
            "share_429": len(stub.refused) / attempts if attempts else 0.0,
            "rate_ratio": (len(accepted) - 1) / span / allowed if len(accepted) > 1 else float("nan"),
            "bound": len(accepted) / allowed, "first": min(stub.accepted + stub.refused, default=float("nan")),
            "first_accepted": accepted[0] if accepted else float("nan"),
            "last_accepted": accepted[-1] if accepted else float("nan")}


def two_endpoint_sweep(launcher: str, scenarios: int) -> dict[str, Any]:
    """One run of the 2 x 2 sweep under ``launcher`` (see the module docstring)."""
    a = RateLimitedStub(short_conversation, requests_per_minute=600, latency_s=0.3,
                        models=(*AGENTS.values(), USER_SIM[2]))
    j = RateLimitedStub(short_conversation, requests_per_minute=120, latency_s=0.3, models=tuple(JUDGES.values()))
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for variable, stub in [*((name.upper(), a) for name in AGENTS), (USER_SIM[1], a),
                           *((name.upper(), j) for name in JUDGES)]:
        env[f"SKILLBENCH_{variable}_API_BASE"] = stub.base_url
        env[f"SKILLBENCH_{variable}_API_KEY"] = "local"
    load = os.getloadavg()[0]
    for stub in (a, j):
        stub.start()
    try:
        with tempfile.TemporaryDirectory(prefix="skillbench-2x2-") as tmp:
            command = [sys.executable, "-m", "skillbench", f"agent={','.join(AGENTS)}", f"judge={','.join(JUDGES)}",
                       f"user_sim={USER_SIM[0]}", "benchmark=full", f"benchmark.limit={scenarios}",
                       f"hydra/launcher={launcher}", f"store.root={tmp}/store", f"hydra.sweep.dir={tmp}/sweep", "-m"]
            done = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True, check=False)
            ended = time.monotonic()
            summaries = [json.loads(path.read_text()) for path in Path(tmp, "sweep").glob("*/summary.json")]
    finally:
        for stub in (a, j):
            stub.stop()
    endpoints = [endpoint_figures("A (agents + user sim, 10/s)", a), endpoint_figures("J (judges, 2/s)", j)]
    first = min(e["first"] for e in endpoints)
    for e in endpoints:  # when each endpoint started and stopped, from the sweep's first request
        e["starts_s"], e["stops_s"] = e["first_accepted"] - first, e["last_accepted"] - first
    bound = max(e["bound"] for e in endpoints)
    rows = 4 * scenarios
    report = re.search(r"report written to .* in ([\d.]+) s", done.stdout + done.stderr)
    return {"launcher": launcher, "exit": done.returncode, "scored": sum(s["scored"] for s in summaries),
            "tail": ended - max(e["last_accepted"] for e in endpoints), "report_s": float(report[1]) if report else None,
            "lost": rows - sum(s["scored"] for s in summaries), "rows": rows, "endpoints": endpoints,
            "wall_from_first": ended - first, "bound": bound, "load": load,
            "stderr": done.stderr[-1500:] if done.returncode else ""}


def print_sweeps(runs: list[dict[str, Any]]) -> None:
    print("| launcher | exit | rows scored / lost | endpoint | accepted | 429s (share) | accepted ÷ allowed (active) "
          "| active from – to s | first request → end s | bound s | ÷ bound | load (1-min) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        for index, e in enumerate(run["endpoints"]):
            sweep = (f"{run['wall_from_first']:.1f} | {run['bound']:.1f} | {run['wall_from_first'] / run['bound']:.2f} "
                     f"| {run['load']:.1f}") if index == 0 else " | | | "
            head = f"{run['launcher']} | {run['exit']} | {run['scored']} / {run['lost']}" if index == 0 else " | | "
            print(f"| {head} | {e['endpoint']} | {e['accepted']} | {e['refused']} ({e['share_429']:.3f}) "
                  f"| {e['rate_ratio']:.2f} | {e['starts_s']:.1f} – {e['stops_s']:.1f} | {sweep} |")
        report = f"{run['report_s']:.1f} s of it the sweep's report" if run["report_s"] is not None else "no report"
        print(f"| | | | (after the last call: {run['tail']:.1f} s to the end; {report}) | | | | | | | | |")
        if run["stderr"]:
            print(f"\n(the {run['launcher']} run failed:)\n{run['stderr']}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every endpoint's calls")
    parser.add_argument("--chains", type=int, default=64, help="conversations in flight per endpoint")
    parser.add_argument("--paths", default="adaptive,fixed,shared", help="of adaptive, fixed, shared; empty: none")
    parser.add_argument("--sweep", default="", help="launchers for the two-endpoint sweep, e.g. inflight,basic")
    parser.add_argument("--scenarios", type=int, default=30, help="scenarios per job of the two-endpoint sweep")
    options = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f}")
    paths = [path for path in options.paths.split(",") if path]
    if paths:
        endpoint_tables(paths, options.scale, options.chains)
    if options.sweep:
        print()
        print_sweeps([two_endpoint_sweep(launcher, options.scenarios) for launcher in options.sweep.split(",")])


def endpoint_tables(paths: list[str], scale: float, chains: int) -> None:
    print("| path | endpoint | allowed req/s | accepted ÷ allowed (warm) | 429 share | calls unanswered | "
          "conversations redone | wall s | wall ÷ bound | final limit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = []
    for path in paths:
        rows, wall, bound = asyncio.run(sweep(path, scale, chains))
        for row in rows:
            print(f"| {path} | {row['endpoint']} | {row['allowed']:.2f} | {row['warm_ratio']:.2f} | {row['share_429']:.2f} | "
                  f"{row['lost']} | 0 | {row['wall']:.1f} | {row['wall_ratio']:.2f} | {row['limit']} |")
        totals.append((path, wall, bound))
    print()
    print("| path | 3-endpoint sweep wall s | lower bound s (slowest endpoint) | wall ÷ bound |")
    print("|---|---|---|---|")
    for path, wall, bound in totals:
        print(f"| {path} | {wall:.1f} | {bound:.1f} | {wall / bound:.2f} |")


if __name__ == "__main__":
    main()
