"""The engine's own CPU per model call, with the model replaced by an instant in-process fake (no litellm call).

    python benchmarks/engine_own_work.py                         # 600 conversations at concurrency 128, 3 runs
    python benchmarks/engine_own_work.py --conversations 2000 --runs 1

The job is benchmarks/throughput.py's (real-provider configs, distinct transcripts, MCP mock tools, rule checks,
judge, store, rows), but each model call returns the stub's scripted reply as a ``litellm.ModelResponse`` after
50 ms, built in this process: what is left is the engine's own work around its calls, plus the building of the
reply objects (timed apart and shown, since litellm builds the same objects in a real call). The process runs
pinned to one CPU where it can (``throughput.pinned``). For where that CPU goes, sample this script, e.g. ``py-spy record --gil --pid
PID``. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.load_stub import distinct_conversation_script  # noqa: E402
from benchmarks.throughput import make_benchmark, pinned, run_engine  # noqa: E402


def install_fake_model() -> list[float]:
    """Replace the client's litellm call with the fake; returns the list its reply-building CPU seconds go to."""
    import skillbench.models.client as client_module
    from skillbench.models.litellm_setup import get_litellm

    response_type = get_litellm().ModelResponse
    building = [0.0]

    async def fake_acompletion(_litellm: Any, *, inline: bool, **kwargs: Any) -> Any:
        await asyncio.sleep(0.05)
        started = time.process_time()
        body = {"model": kwargs["model"].split("/", 1)[1], "messages": kwargs["messages"]}
        body.update({key: kwargs[key] for key in ("tools", "response_format") if kwargs.get(key)})
        message = distinct_conversation_script(body)
        response = response_type(choices=[{"index": 0, "message": message, "finish_reason": "stop"}],
                                 usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})
        response._hidden_params["response_cost"] = 0.0
        building[0] += time.process_time() - started
        return response

    client_module.acompletion = fake_acompletion  # type: ignore[assignment]
    return building


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    building = install_fake_model()
    unreachable = "http://127.0.0.1:9/v1"  # never called: the fake answers
    print(f"{options.conversations} conversations at concurrency {options.concurrency}, model answers after 50 ms in-process")
    print("run | CPU per conversation | CPU per model call | of which building the reply objects")
    with tempfile.TemporaryDirectory(prefix="skillbench-own-work-") as tmp, pinned():  # no stub: its CPUs stay idle
        work = Path(tmp)
        make_benchmark(work / "warm" / "bench", 4)
        run_engine(work / "warm" / "bench", work / "warm", options.concurrency, unreachable)  # one-time costs
        for index in range(options.runs):
            run_dir = work / f"run{index}"
            make_benchmark(run_dir / "bench", options.conversations)
            building[0] = 0.0
            measured = run_engine(run_dir / "bench", run_dir, options.concurrency, unreachable)
            cpu = measured.cpu_s  # the job alone: run_engine measures around it
            print(f"{index + 1} | {cpu / measured.conversations * 1e3:.2f} ms | {cpu / measured.calls * 1e3:.3f} ms | "
                  f"{building[0] / measured.calls * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
