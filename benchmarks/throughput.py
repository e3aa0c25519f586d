"""Engine throughput against a local OpenAI-compatible stub, and the engine against bare litellm.

    python benchmarks/throughput.py                                   # concurrency 30, 128, 256; 300 conversations
    python benchmarks/throughput.py --concurrency 256 --conversations 600 --latency-ms 100
    python benchmarks/throughput.py --processes 2                     # also 1 vs 2 engine processes

For each concurrency: a job of real-provider configs (hosted_vllm agent, user simulator and judge) against
benchmarks/load_stub.py in its own process, with distinct transcripts (every conversation is judged: no
verdict reused), then the very request bodies that job sent, replayed through bare ``litellm.acompletion``
at the same concurrency in the same process. Prints one table: conversations per hour, calls per second,
CPU per call of each, and the engine/bare ratios (calls/s, and CPU per call as bare ÷ engine, so 1.0 means
no overhead). The engine's figures include everything it does around the calls: MCP mock tools, rule
checks, prompts, parsing, the store and the result rows. Each measured run ends when litellm's background
logging of its calls has finished (a job ends so too), so no run pays for another's. Both run with the garbage-collector settings a job
uses (skillbench/core/collector.py). Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ROLES = {"QWEN3_5_9B": "agent=qwen3_5_9b", "USER_SIM": "user_sim=gemma4_31b", "GEMMA4": "judge=gemma4"}


def make_benchmark(root: Path, count: int) -> None:
    """``count`` copies of one starter happy-path scenario, each with its own objective (distinct transcripts)."""
    starter = REPO / "skillbench" / "benchmark" / "data" / "starter"
    (root / "skills").mkdir(parents=True)
    (root / "scenarios").mkdir()
    shutil.copytree(starter / "tools", root / "tools")
    shutil.copy(starter / "benchmark.yaml", root / "benchmark.yaml")
    shutil.copy(starter / "skills" / "healthcare_reschedule_appointment.yaml", root / "skills")
    source = yaml.safe_load((starter / "scenarios" / "healthcare_reschedule_appointment.yaml").read_text())
    base = next(s for s in source["scenarios"] if s["path"] == "happy_path")
    scenarios = [{**base, "id": f"load-{index:05d}", "objective": f"{base['objective']} (case {index})"}
                 for index in range(count)]
    (root / "scenarios" / "healthcare_reschedule_appointment.yaml").write_text(
        yaml.safe_dump({"skill_id": base["skill_id"], "scenarios": scenarios}, sort_keys=False)
    )


@dataclass
class Measured:
    conversations: int
    calls: int
    wall_s: float
    cpu_s: float

    @property
    def calls_per_s(self) -> float:
        return self.calls / self.wall_s

    @property
    def cpu_ms_per_call(self) -> float:
        return self.cpu_s / max(1, self.calls) * 1000


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Stub:
    """benchmarks/load_stub.py in its own process (its CPU is not the engine's)."""

    def __init__(self, latency_ms: float, record: Path | None = None, extra: list[str] | None = None) -> None:
        args = [sys.executable, str(REPO / "benchmarks" / "load_stub.py"), "--latency-ms", str(latency_ms), *(extra or [])]
        if record is not None:
            args += ["--record", str(record)]
        self.process = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, text=True)
        port = int(self.process.stdout.readline())  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def close(self) -> None:
        self.process.terminate()
        self.process.wait()


def job_config(bench: Path, store: Path, concurrency: int, base_url: str) -> Any:
    from hydra import compose, initialize_config_module

    from skillbench.config import validate_config

    for name in ROLES:
        os.environ[f"SKILLBENCH_{name}_API_BASE"] = base_url
    c = concurrency
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        return validate_config(compose("config", overrides=[
            *ROLES.values(), f"benchmark.source={bench}", f"store.root={store}", f"run.scenario_concurrency={c}",
            f"agent.concurrency={c}", f"judge.concurrency={c}", f"user_sim.concurrency={c}",
            "run.progress_interval_s=600",
        ]))


def run_engine(bench: Path, work: Path, concurrency: int, base_url: str) -> Measured:
    """One job through the engine, in this process."""
    from skillbench.engine import run_job_async

    cfg = job_config(bench, work / "store", concurrency, base_url)

    cpu0, wall0 = _cpu(), time.perf_counter()
    summary = asyncio.run(run_job_async(cfg, work / "job"))  # ends with its own litellm logging flushed
    wall, cpu = time.perf_counter() - wall0, _cpu() - cpu0
    if summary.infra_errors or summary.judge_errors:
        raise SystemExit(f"the job had {summary.infra_errors} infra and {summary.judge_errors} judge errors")
    return Measured(summary.scenarios, summary.llm_calls, wall, cpu)


def replay_bare(
    bodies: list[dict[str, Any]], concurrency: int, base_url: str, conversations: int, *, as_conversations: bool = False,
    engine_path: bool = False, provider: str = "hosted_vllm", api_key: str | None = None,
) -> Measured:
    """The recorded request bodies through bare ``litellm.acompletion``, ``concurrency`` at a time.

    ``as_conversations``: the bodies split into ``conversations`` chains of consecutive requests, each chain sent
    one request after the other and ``concurrency`` chains at a time: the engine's own pattern (a conversation
    has one call in flight, so fewer than ``concurrency`` calls are in flight while conversations end and start).
    ``engine_path``: through the engine's call path (``models.call_path``: litellm's set-up on the loop's thread),
    so the difference to the engine is the engine's own work alone. ``provider``: the litellm prefix each body's
    served model name is sent under (the engine's configs say ``hosted_vllm``); every name is priced at $0, as the
    engine prices self-hosted models, so each provider path does the same pricing work.
    """
    from skillbench.models.call_path import acompletion
    from skillbench.models.litellm_setup import flush_background_logging, get_litellm, register_zero_cost

    litellm = get_litellm()  # the same settings the engine runs with (local cost map, quiet loggers)
    for name in {body["model"] for body in bodies}:
        register_zero_cost(f"{provider}/{name}", provider)
    extra = {"api_key": api_key} if api_key else {}

    async def replay() -> None:
        limit = asyncio.Semaphore(concurrency)

        async def chain(part: list[dict[str, Any]]) -> None:  # one request after the other, in one slot
            async with limit:
                for body in part:
                    kwargs = {k: v for k, v in body.items() if k != "model"}
                    await acompletion(litellm, inline=engine_path, model=f"{provider}/{body['model']}",
                                      api_base=base_url, num_retries=0, timeout=600, **extra, **kwargs)

        size = -(-len(bodies) // conversations) if as_conversations else 1  # independent requests: chains of one
        await asyncio.gather(*(chain(bodies[i : i + size]) for i in range(0, len(bodies), size)))
        # litellm logs each call in the background; a fast replay leaves thousands queued, which the next run in
        # this process would pay for. Each measurement ends with its own, as a job does.
        await flush_background_logging()

    from skillbench.core.collector import rare_collections

    cpu0, wall0 = _cpu(), time.perf_counter()
    with rare_collections():  # the collector settings a job runs with (engine/job.py), so only the engine differs
        asyncio.run(replay())
    return Measured(conversations, len(bodies), time.perf_counter() - wall0, _cpu() - cpu0)


class EngineVsBare(NamedTuple):
    engine: Measured
    bare: Measured  # plain litellm.acompletion, concurrency requests at a time: what a user's own loop would do
    chained: Measured  # the same, as concurrency conversations (chains of requests) at a time
    bare_engine_path: Measured  # as bare, through the engine's call path (litellm's set-up inline)


def engine_vs_bare(conversations: int, concurrency: int, latency_ms: float) -> EngineVsBare:
    """The engine, then bare litellm replaying the engine's own requests (``concurrency`` requests at a time,
    as ``concurrency`` conversations at a time, and through the engine's call path), in this process, one stub
    each."""
    with tempfile.TemporaryDirectory(prefix="skillbench-throughput-") as tmp:
        work = Path(tmp)
        bench = work / "bench"
        make_benchmark(bench, conversations)
        record = work / "requests.jsonl"
        warm = work / "warm"
        make_benchmark(warm / "bench", 4)
        # A first small job pays the one-time costs (imports of litellm and the MCP SDK, first compiles),
        # which a long run amortises; its requests are not recorded.
        stub = Stub(latency_ms)
        try:
            run_engine(warm / "bench", warm, concurrency, stub.base_url)
        finally:
            stub.close()
        stub = Stub(latency_ms, record)
        try:
            engine = run_engine(bench, work, concurrency, stub.base_url)
        finally:
            stub.close()
        bodies = [json.loads(line) for line in record.read_text().splitlines()]
        stub = Stub(latency_ms)
        try:
            bare = replay_bare(bodies, concurrency, stub.base_url, conversations)
        finally:
            stub.close()
        stub = Stub(latency_ms)
        try:
            chained = replay_bare(bodies, concurrency, stub.base_url, conversations, as_conversations=True)
        finally:
            stub.close()
        stub = Stub(latency_ms)
        try:
            same_path = replay_bare(bodies, concurrency, stub.base_url, conversations, engine_path=True)
        finally:
            stub.close()
    return EngineVsBare(engine, bare, chained, same_path)


_CHILD = """
import json, sys
sys.path.insert(0, {repo!r})
from pathlib import Path
from benchmarks.throughput import run_engine
m = run_engine(Path({bench!r}), Path({work!r}), {concurrency}, {base!r})
print(json.dumps(m.__dict__))
"""


def processes_run(count: int, conversations: int, concurrency: int, latency_ms: float) -> Measured:
    """``count`` engine processes at once, each with its own share of the conversations, against one stub."""
    with tempfile.TemporaryDirectory(prefix="skillbench-processes-") as tmp:
        work = Path(tmp)
        stub = Stub(latency_ms)
        try:
            children = []
            for index in range(count):
                bench = work / f"bench{index}"
                make_benchmark(bench, conversations // count)
                code = _CHILD.format(repo=str(REPO), bench=str(bench), work=str(work / f"w{index}"),
                                     concurrency=concurrency, base=stub.base_url)
                children.append(subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True))
            wall0 = time.perf_counter()
            results = []
            for child in children:
                out, _ = child.communicate()
                if child.returncode:
                    raise SystemExit(f"an engine process failed (exit {child.returncode})")
                results.append(json.loads(out.strip().splitlines()[-1]))
            wall = time.perf_counter() - wall0
        finally:
            stub.close()
    # Wall time is the slowest child's (they start together); each child's own job time excludes its start-up.
    job_wall = max(r["wall_s"] for r in results)
    return Measured(sum(r["conversations"] for r in results), sum(r["calls"] for r in results),
                    min(wall, job_wall), sum(r["cpu_s"] for r in results))


def table(rows: list[list[str]]) -> str:
    header = ["figure", "engine", "bare litellm", "engine / bare"]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(4)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(header, widths, strict=True)), " | ".join("-" * w for w in widths)]
    lines += [" | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


def throughput_rows(conversations: int, concurrencies: list[int], latency_ms: float, process_counts: list[int]) -> list[list[str]]:
    rows: list[list[str]] = []
    for concurrency in concurrencies:
        engine, bare, chained, same_path = engine_vs_bare(conversations, concurrency, latency_ms)
        at = f"concurrency {concurrency}"
        rows.append([f"{at}: conversations/hour", f"{engine.conversations / engine.wall_s * 3600:,.0f}", "", ""])
        rows.append([f"{at}: model calls/s", f"{engine.calls_per_s:,.1f}", f"{bare.calls_per_s:,.1f}",
                     f"{engine.calls_per_s / bare.calls_per_s:.2f}"])
        rows.append([f"{at}: CPU per call", f"{engine.cpu_ms_per_call:.2f} ms", f"{bare.cpu_ms_per_call:.2f} ms",
                     f"{bare.cpu_ms_per_call / engine.cpu_ms_per_call:.2f}"])
        rows.append([f"{at}: bare replayed as conversations: calls/s, CPU per call", "",
                     f"{chained.calls_per_s:,.1f}, {chained.cpu_ms_per_call:.2f} ms",
                     f"{engine.calls_per_s / chained.calls_per_s:.2f}, {chained.cpu_ms_per_call / engine.cpu_ms_per_call:.2f}"])
        rows.append([f"{at}: bare through the engine's call path: calls/s, CPU per call", "",
                     f"{same_path.calls_per_s:,.1f}, {same_path.cpu_ms_per_call:.2f} ms",
                     f"{engine.calls_per_s / same_path.calls_per_s:.2f}, {same_path.cpu_ms_per_call / engine.cpu_ms_per_call:.2f}"])
        rows.append([f"{at}: calls per conversation", f"{engine.calls / engine.conversations:.1f}", "", ""])
    for count in process_counts:
        concurrency = max(concurrencies)
        one = processes_run(1, conversations, concurrency, latency_ms)
        many = processes_run(count, conversations, concurrency, latency_ms)
        rows.append([f"1 vs {count} engine processes (concurrency {concurrency} each): conversations/hour",
                     f"{one.conversations / one.wall_s * 3600:,.0f} vs {many.conversations / many.wall_s * 3600:,.0f}",
                     "", f"{(many.conversations / many.wall_s) / (one.conversations / one.wall_s):.2f}x"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--concurrency", default="30,128,256", help="comma-separated")
    parser.add_argument("--processes", type=int, default=0, help="also compare 1 process with this many")
    options = parser.parse_args()
    concurrencies = [int(c) for c in options.concurrency.split(",")]
    rows = throughput_rows(options.conversations, concurrencies, options.latency_ms,
                           [options.processes] if options.processes > 1 else [])
    print(f"stub latency {options.latency_ms:.0f} ms, {options.conversations} conversations per run")
    print(table(rows))


if __name__ == "__main__":
    main()
