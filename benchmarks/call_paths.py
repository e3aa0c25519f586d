"""Which way of calling litellm costs least CPU per call, on the engine's own request bodies.

    python benchmarks/call_paths.py                        # 150 conversations' requests, concurrency 128, 2 rounds
    python benchmarks/call_paths.py --conversations 300 --rounds 3

Records the requests of one engine job (real-provider configs against benchmarks/load_stub.py, 100 ms per
call), then replays them through bare litellm by each path below, ``concurrency`` at a time, the paths
interleaved round by round (this machine is shared: compare within one run). Prints calls/s and CPU per
call of each. The engine uses the path marked "engine" (skillbench/models/call_path.py). Not a test:
nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.throughput import Measured, Stub, make_benchmark, replay_bare, run_engine  # noqa: E402

# name: (litellm provider, litellm's set-up inline, litellm's aiohttp transport)
PATHS: dict[str, tuple[str, bool, bool]] = {
    "hosted_vllm/, set-up on litellm's thread (plain acompletion)": ("hosted_vllm", False, True),
    "hosted_vllm/, set-up inline (engine)": ("hosted_vllm", True, True),
    "openai/ (OpenAI SDK), set-up on litellm's thread": ("openai", False, True),
    "openai/ (OpenAI SDK), set-up inline": ("openai", True, True),
    "hosted_vllm/, set-up inline, httpx transport": ("hosted_vllm", True, False),
}


@contextmanager
def transport(aiohttp: bool) -> Iterator[None]:
    from skillbench.models.litellm_setup import get_litellm

    litellm = get_litellm()
    before = litellm.disable_aiohttp_transport
    litellm.disable_aiohttp_transport = not aiohttp
    try:
        yield
    finally:
        litellm.disable_aiohttp_transport = before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=150)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--rounds", type=int, default=2)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillbench-call-paths-") as tmp:
        work = Path(tmp)
        make_benchmark(work / "bench", options.conversations)
        record = work / "requests.jsonl"
        stub = Stub(options.latency_ms, record)
        try:
            run_engine(work / "bench", work, options.concurrency, stub.base_url)
        finally:
            stub.close()
        bodies = [json.loads(line) for line in record.read_text().splitlines()]
    results: dict[str, list[Measured]] = {name: [] for name in PATHS}
    for _ in range(options.rounds):
        for name, (provider, inline, aiohttp) in PATHS.items():
            stub = Stub(options.latency_ms)
            try:
                with transport(aiohttp):  # the OpenAI SDK wants a key; the stub ignores it
                    results[name].append(replay_bare(bodies, options.concurrency, stub.base_url, len(bodies),
                                                     engine_path=inline, provider=provider, api_key="sk-local"))
            finally:
                stub.close()
    print(f"{len(bodies)} recorded requests, concurrency {options.concurrency}, stub {options.latency_ms:.0f} ms, "
          f"{options.rounds} round(s), paths interleaved")
    width = max(map(len, PATHS))
    cells = {name: (", ".join(f"{m.calls_per_s:.1f}" for m in runs), ", ".join(f"{m.cpu_ms_per_call:.2f} ms" for m in runs))
             for name, runs in results.items()}
    rate_width = max(len("calls/s per round"), *(len(rates) for rates, _ in cells.values()))
    print(f"{'path'.ljust(width)} | {'calls/s per round'.ljust(rate_width)} | CPU per call per round")
    print(f"{'-' * width} | {'-' * rate_width} | {'-' * 22}")
    for name, (rates, cpus) in cells.items():
        print(f"{name.ljust(width)} | {rates.ljust(rate_width)} | {cpus}")


if __name__ == "__main__":
    main()
