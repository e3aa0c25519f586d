"""Engine throughput against a local OpenAI-compatible stub, and the engine against bare litellm.

    python benchmarks/throughput.py                                   # concurrency 30, 128, 256; 300 conversations
    python benchmarks/throughput.py --concurrency 256 --conversations 600 --latency-ms 100
    python benchmarks/throughput.py --processes 2                     # also 1 vs 2 engine processes
    python benchmarks/throughput.py --concurrency 128 --rounds 5      # five interleaved rounds; --no-pin to not pin

For each concurrency: a job of real-provider configs (hosted_vllm agent, user simulator and judge) against
benchmarks/load_stub.py in its own process, with distinct transcripts (every conversation is judged: no
verdict reused), then the very request bodies that job sent, replayed through bare ``litellm.acompletion``
at the same concurrency in the same process. Prints one table: conversations per hour, calls per second,
CPU per call of each, and the engine/bare ratios (calls/s, and CPU per call as bare ÷ engine, so 1.0 means
no overhead). The engine's figures include everything it does around the calls: MCP mock tools, rule
checks, prompts, parsing, the store and the result rows. Each measured run ends when litellm's background
logging of its calls has finished (a job ends so too), so no run pays for another's. Both run with the garbage-collector settings a job
uses (skillbench/core/collector.py).

Noise: on a shared 2-core machine one run of a ratio moved by ±0.15, because the stub, the measured process and
other tenants compete for the same cores. So the engine and its bare replays run in ``--rounds`` interleaved
rounds (engine, bare, ... then again), and the table gives each ratio's median and range over the rounds. With
two or more CPUs the measured process runs pinned to one CPU and the stub to the others (``--no-pin`` turns this
off); a pinned process also spends less CPU per call (no migrations between cores, warm caches), on both sides.
The 1-vs-N-processes comparison is never pinned. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

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

    @property
    def conversations_per_hour(self) -> float:
        return self.conversations / self.wall_s * 3600

    @property
    def calls_per_conversation(self) -> float:
        return self.calls / max(1, self.conversations)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Stub:
    """benchmarks/load_stub.py in its own process (its CPU is not the engine's); on ``cpus`` when given."""

    def __init__(self, latency_ms: float, record: Path | None = None, extra: list[str] | None = None,
                 cpus: set[int] | None = None) -> None:
        args = [sys.executable, str(REPO / "benchmarks" / "load_stub.py"), "--latency-ms", str(latency_ms), *(extra or [])]
        if record is not None:
            args += ["--record", str(record)]
        self.process = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, text=True)
        if cpus:
            os.sched_setaffinity(self.process.pid, cpus)
        port = int(self.process.stdout.readline())  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def close(self) -> dict[str, Any]:
        """Stop it; what it saw (load_stub's last line on SIGTERM: requests answered, peak_in_flight)."""
        self.process.terminate()
        out, _ = self.process.communicate(timeout=60)
        lines = out.strip().splitlines()
        return json.loads(lines[-1]) if lines else {}


def cpu_split(enabled: bool = True) -> tuple[int, set[int]] | None:
    """(the measured process's CPU, the stub's CPUs) out of this process's allowed CPUs; None when pinning is
    disabled, unsupported on this platform, or there are fewer than two CPUs."""
    allowed = sorted(os.sched_getaffinity(0)) if enabled and hasattr(os, "sched_setaffinity") else []
    return (allowed[0], set(allowed[1:])) if len(allowed) >= 2 else None


@contextlib.contextmanager
def pinned(enabled: bool = True) -> Iterator[set[int] | None]:
    """This process on its CPU of :func:`cpu_split`; yields the stub's CPUs (None: nothing pinned). The affinity
    is restored after, so processes started later (e.g. ``processes_run``'s children) get every CPU again."""
    split = cpu_split(enabled)
    if split is None:
        yield None
        return
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {split[0]})
    try:
        yield split[1]
    finally:
        os.sched_setaffinity(0, allowed)


def placement(pin: bool) -> str:
    """Where :func:`pinned` puts the measured process and the stub, in words."""
    split = cpu_split(pin)
    return f"measured process on CPU {split[0]}, stub on CPU(s) {sorted(split[1])}" if split else "not pinned"


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


def engine_vs_bare(conversations: int, concurrency: int, latency_ms: float, *, rounds: int = 1,
                   pin: bool = True) -> list[EngineVsBare]:
    """``rounds`` rounds of: the engine, then bare litellm replaying that run's requests (``concurrency``
    requests at a time, as ``concurrency`` conversations at a time, and through the engine's call path), in this
    process, one fresh stub each; pinned as :func:`pinned` says."""
    with tempfile.TemporaryDirectory(prefix="skillbench-throughput-") as tmp, pinned(pin) as stub_cpus:
        work = Path(tmp)

        def with_stub(measure: Callable[..., Measured], record: Path | None = None) -> Measured:
            stub = Stub(latency_ms, record, cpus=stub_cpus)
            try:
                return measure(base_url=stub.base_url)
            finally:
                stub.close()

        warm = work / "warm"
        make_benchmark(warm / "bench", 4)
        # A first small job pays the one-time costs (imports of litellm and the MCP SDK, first compiles),
        # which a long run amortises; its requests are not recorded.
        with_stub(functools.partial(run_engine, warm / "bench", warm, concurrency))
        results = []
        for index in range(rounds):
            round_dir = work / f"round{index}"
            make_benchmark(round_dir / "bench", conversations)
            record = round_dir / "requests.jsonl"
            engine = with_stub(functools.partial(run_engine, round_dir / "bench", round_dir, concurrency), record)
            bodies = [json.loads(line) for line in record.read_text().splitlines()]
            replay = functools.partial(replay_bare, bodies, concurrency, conversations=conversations)
            results.append(EngineVsBare(engine, with_stub(replay), with_stub(functools.partial(replay, as_conversations=True)),
                                        with_stub(functools.partial(replay, engine_path=True))))
    return results


Baseline = Literal["bare", "chained", "bare_engine_path"]
"""A field of :class:`EngineVsBare` the engine is compared with."""

Quantity = Literal["conversations_per_hour", "calls_per_s", "cpu_ms_per_call"]
_FORMATS: dict[Quantity, str] = {"conversations_per_hour": "{:,.0f}", "calls_per_s": "{:,.1f}", "cpu_ms_per_call": "{:.2f} ms"}


def calls_ratio(run: EngineVsBare, baseline: Baseline) -> float:
    """Engine calls/s ÷ the baseline's."""
    return run.engine.calls_per_s / getattr(run, baseline).calls_per_s


def cpu_ratio(run: EngineVsBare, baseline: Baseline) -> float:
    """The baseline's CPU per call ÷ the engine's (1.0: no overhead)."""
    return getattr(run, baseline).cpu_ms_per_call / run.engine.cpu_ms_per_call


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    """The median, and the range when there are several values: ``0.91 (0.88-0.93)``."""
    median = fmt.format(statistics.median(values))
    return median if len(values) == 1 else f"{median} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def figure(runs: list[EngineVsBare], side: Literal["engine"] | Baseline, quantity: Quantity) -> str:
    """One side's ``quantity`` over the rounds, as :func:`spread` gives it."""
    return spread([getattr(getattr(run, side), quantity) for run in runs], _FORMATS[quantity])


def ratios(runs: list[EngineVsBare], baseline: Baseline) -> tuple[str, str]:
    """(engine / baseline in calls/s, in CPU per call) over the rounds, as :func:`spread` gives them."""
    return spread([calls_ratio(run, baseline) for run in runs]), spread([cpu_ratio(run, baseline) for run in runs])


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


def throughput_rows(conversations: int, concurrencies: list[int], latency_ms: float, process_counts: list[int],
                    rounds: int = 1, pin: bool = True) -> list[list[str]]:
    rows: list[list[str]] = []
    baselines: tuple[tuple[Baseline, str], ...] = (("chained", "bare replayed as conversations"),
                                                   ("bare_engine_path", "bare through the engine's call path"))
    for concurrency in concurrencies:
        runs = engine_vs_bare(conversations, concurrency, latency_ms, rounds=rounds, pin=pin)
        at = f"concurrency {concurrency}"
        calls, cpu = ratios(runs, "bare")
        rows.append([f"{at}: conversations/hour", figure(runs, "engine", "conversations_per_hour"), "", ""])
        rows.append([f"{at}: model calls/s", figure(runs, "engine", "calls_per_s"), figure(runs, "bare", "calls_per_s"), calls])
        rows.append([f"{at}: CPU per call", figure(runs, "engine", "cpu_ms_per_call"), figure(runs, "bare", "cpu_ms_per_call"), cpu])
        for baseline, what in baselines:
            rows.append([f"{at}: {what}: calls/s, CPU per call", "",
                         f"{figure(runs, baseline, 'calls_per_s')}, {figure(runs, baseline, 'cpu_ms_per_call')}",
                         ", ".join(ratios(runs, baseline))])
        rows.append([f"{at}: calls per conversation", f"{runs[0].engine.calls_per_conversation:.1f}", "", ""])
    for count in process_counts:
        concurrency = max(concurrencies)
        one = processes_run(1, conversations, concurrency, latency_ms)
        many = processes_run(count, conversations, concurrency, latency_ms)
        rows.append([f"1 vs {count} engine processes (concurrency {concurrency} each): conversations/hour",
                     f"{one.conversations_per_hour:,.0f} vs {many.conversations_per_hour:,.0f}",
                     "", f"{many.conversations_per_hour / one.conversations_per_hour:.2f}x"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--concurrency", default="30,128,256", help="comma-separated")
    parser.add_argument("--processes", type=int, default=0, help="also compare 1 process with this many")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved engine/bare rounds per concurrency")
    parser.add_argument("--no-pin", dest="pin", action="store_false",
                        help="do not pin the measured process and the stub to CPUs of their own")
    options = parser.parse_args()
    concurrencies = [int(c) for c in options.concurrency.split(",")]
    rows = throughput_rows(options.conversations, concurrencies, options.latency_ms,
                           [options.processes] if options.processes > 1 else [], options.rounds, options.pin)
    print(f"stub latency {options.latency_ms:.0f} ms, {options.conversations} conversations per run, "
          f"{options.rounds} interleaved round(s), median (range); {placement(options.pin)}")
    print(table(rows))


if __name__ == "__main__":
    main()
