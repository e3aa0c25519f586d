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
inspect_ai on the same stubs: benchmarks/ratelimits_inspect.py (its own venv; see docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
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
from tests.support.openai_stub import text_reply  # noqa: E402
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


async def drive(endpoint: Endpoint, stub: RateLimitedStub, adaptive: bool, chains: int, length: int) -> dict[str, Any]:
    cfg = ModelConfig(name=endpoint.name, model=f"hosted_vllm/{endpoint.name}", api_base=stub.base_url, max_retries=0,
                      concurrency=16 if not adaptive else 64, adaptive_concurrency=adaptive, timeout_s=30)
    client = ClientPool().client(cfg, role="agent")
    messages = [{"role": "user", "content": PROMPT}]
    lost = 0

    async def chain(calls: int) -> None:
        nonlocal lost
        for _ in range(calls):
            try:
                await client.complete(messages)
            except Exception:  # an unanswered call: its conversation would be unscored
                lost += 1
                return

    per_chain, extra = divmod(endpoint.calls, chains)
    started = time.monotonic()
    await asyncio.gather(*(chain(per_chain + (i < extra)) for i in range(chains)))
    wall = time.monotonic() - started
    return {"wall": wall, "lost": lost, "limit": client.stats.as_dict(client.limiter) if client.stats else {}}


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
            "limit": outcome["limit"].get("limit")}


async def sweep(adaptive: bool, scale: float, chains: int) -> tuple[list[dict[str, Any]], float, float]:
    LIMITERS.limiters.clear()
    get_litellm()  # imported before the clock starts: the bound is about the endpoints, not start-up
    endpoints = [Endpoint(e.name, e.rpm, e.tpm, e.latency_s, e.headers, max(10, int(e.calls * scale))) for e in ENDPOINTS]
    stubs = [RateLimitedStub(lambda body: text_reply("ok"), requests_per_minute=e.rpm, tokens_per_minute=e.tpm,
                             latency_s=e.latency_s, state_limits=e.headers, retry_after_s=1.0) for e in endpoints]
    for stub in stubs:
        stub.start()
    try:
        started = time.monotonic()
        outcomes = await asyncio.gather(*(drive(e, s, adaptive, chains, 0) for e, s in zip(endpoints, stubs, strict=True)))
        wall = time.monotonic() - started
        rows = [measure(e, s, o, started) for e, s, o in zip(endpoints, stubs, outcomes, strict=True)]
    finally:
        for stub in stubs:
            stub.stop()
    bound = max(row["bound"] for row in rows)
    return rows, wall, bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every endpoint's calls")
    parser.add_argument("--chains", type=int, default=64, help="conversations in flight per endpoint")
    parser.add_argument("--paths", default="adaptive,fixed")
    options = parser.parse_args()
    print("| path | endpoint | allowed req/s | accepted ÷ allowed (warm) | 429 share | calls unanswered | "
          "conversations redone | wall s | wall ÷ bound | final limit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = []
    for path in options.paths.split(","):
        rows, wall, bound = asyncio.run(sweep(path == "adaptive", options.scale, options.chains))
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
