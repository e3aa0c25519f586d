"""Where the engine's CPU goes around its model calls: one throughput job under cProfile.

    python benchmarks/profile_engine.py                       # 150 conversations at concurrency 128, 100 ms stub
    python benchmarks/profile_engine.py --conversations 300 --concurrency 256 --save engine.prof

The job is benchmarks/throughput.py's (real-provider configs against benchmarks/load_stub.py, distinct
transcripts), after a small warm-up job. Prints one table: the profiled CPU, the share outside the litellm call
(everything under each scenario's evaluation minus ``models.call_path.acompletion``), the MCP tool calls' and sessions' part of that,
skillbench's own functions (their tottime), and the largest packages by tottime. cProfile slows everything
down, so read the shares, not the seconds. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.throughput import Stub, make_benchmark, run_engine  # noqa: E402

# (file suffix, function) of the frames the breakdown reads their cumulative time from.
JOB = ("skillbench/engine/job.py", "evaluate_scenario")  # one scenario, from the store look-up to its row
MODEL_CALL = ("skillbench/models/call_path.py", "acompletion")
TOOL_CALLS = (("skillbench/tools/session.py", "call"), ("skillbench/tools/session.py", "open_tool_session"))


def _cumulative(stats: pstats.Stats, where: tuple[str, str]) -> float:
    return sum(st[3] for (file, _, fn), st in stats.stats.items() if file.endswith(where[0]) and fn == where[1])  # type: ignore[attr-defined]


def _package(file: str) -> str:
    found = re.search(r"site-packages/([^/]+)", file)
    if found:
        return found.group(1)
    if "/skillbench/" in file:
        return "skillbench"
    return "builtins" if file == "~" else "stdlib and other"


def breakdown(stats: pstats.Stats, top: int = 8) -> list[tuple[str, str]]:
    by_package: collections.Counter[str] = collections.Counter()
    for (file, _, _), st in stats.stats.items():  # type: ignore[attr-defined]
        by_package[_package(file)] += st[2]
    total = sum(by_package.values())
    job = _cumulative(stats, JOB)
    outside = job - _cumulative(stats, MODEL_CALL)
    tools = sum(_cumulative(stats, where) for where in TOOL_CALLS)
    rows = [
        ("profiled CPU (tottime, all functions)", f"{total:.1f} s"),
        ("the job, outside the litellm call: share of the profiled CPU", f"{outside / total:.1%}"),
        ("  of which MCP tool calls and sessions (SDK included)", f"{tools / outside:.0%}" if outside > 0 else "—"),
        ("skillbench's own functions (tottime): share", f"{by_package['skillbench'] / total:.1%}"),
    ]
    rows += [(f"package {name} (tottime): share", f"{seconds / total:.1%}") for name, seconds in by_package.most_common(top)]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=150)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--save", type=Path, help="also write the raw profile here (for pstats or snakeviz)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillbench-profile-") as tmp:
        work = Path(tmp)
        make_benchmark(work / "warm" / "bench", 4)
        make_benchmark(work / "bench", options.conversations)
        stub = Stub(options.latency_ms)
        try:
            run_engine(work / "warm" / "bench", work / "warm", options.concurrency, stub.base_url)  # one-time costs
            profile = cProfile.Profile()
            profile.enable()
            measured = run_engine(work / "bench", work, options.concurrency, stub.base_url)
            profile.disable()
        finally:
            stub.close()
    if options.save:
        profile.dump_stats(str(options.save))
    rows = breakdown(pstats.Stats(profile))
    width = max(len(name) for name, _ in rows)
    print(f"{measured.conversations} conversations, {measured.calls} model calls, concurrency {options.concurrency}, "
          f"stub latency {options.latency_ms:.0f} ms (profiled)")
    print("\n".join(f"{name.ljust(width)} | {value}" for name, value in rows))


if __name__ == "__main__":
    main()
