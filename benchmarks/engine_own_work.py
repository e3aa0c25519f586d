"""The engine's own CPU per model call, with the model replaced by an instant in-process fake (no litellm call).

    python benchmarks/engine_own_work.py                         # 600 conversations at concurrency 128, 3 runs
    python benchmarks/engine_own_work.py --conversations 2000 --runs 1
    python benchmarks/engine_own_work.py --direct-tools --runs 6 # also: what the MCP SDK's in-process path costs

The job is benchmarks/throughput.py's (real-provider configs, distinct transcripts, MCP mock tools, rule checks,
judge, store, rows), but each model call returns the stub's scripted reply as a ``litellm.ModelResponse`` after
50 ms, built in this process: what is left is the engine's own work around its calls, plus the building of the
reply objects (timed apart and shown, since litellm builds the same objects in a real call). The process runs
pinned to one CPU where it can (``throughput.pinned``). For where that CPU goes, sample this script, e.g. ``py-spy record --gil --pid
PID``.

``--direct-tools`` answers each run's tool calls a second time with the MCP SDK taken out: the session lists and
calls the same ``MockToolServer`` directly (``DirectToolClient``), so the difference is the SDK's in-process client
and server alone (not our mock, argument checks or state). The two variants alternate run by run in this process
(ABBA), which keeps the machine's drift out of their difference. A diagnostic only: the engine always goes
through MCP. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mcp  # noqa: E402
import mcp_types  # noqa: E402

import skillbench.tools.session as session_module  # noqa: E402
from benchmarks.load_stub import distinct_conversation_script  # noqa: E402
from benchmarks.throughput import make_benchmark, pinned, run_engine, spread  # noqa: E402
from skillbench.tools.server import MockToolServer  # noqa: E402


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


class DirectToolClient:
    """Stands in for ``mcp.Client`` in ``tools.session``: lists and calls the mock server without the SDK."""

    def __init__(self, mock: MockToolServer, **_options: Any) -> None:
        self._mock = mock

    async def __aenter__(self) -> DirectToolClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    async def list_tools(self, cursor: str | None = None) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=self._mock.mcp_tools)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        return (await self._mock.call(name, dict(arguments or {}))).to_mcp()


class DirectMockServer(MockToolServer):
    """The same mock, handed to the session's client as itself instead of as an SDK server."""

    def mcp_server(self) -> Any:
        return self


def use_direct_tools(direct: bool) -> None:
    """Route ``open_tool_session`` through the direct stand-ins (True) or the MCP SDK's client (False)."""
    session_module.Client = DirectToolClient if direct else mcp.Client  # type: ignore[assignment,misc]
    session_module.MockToolServer = DirectMockServer if direct else MockToolServer  # type: ignore[misc]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--direct-tools", action="store_true", help="also each run with the MCP SDK taken out of tool calls")
    options = parser.parse_args()
    building = install_fake_model()
    unreachable = "http://127.0.0.1:9/v1"  # never called: the fake answers
    print(f"{options.conversations} conversations at concurrency {options.concurrency}, model answers after 50 ms in-process")
    print("run | tools | CPU per conversation | CPU per model call | of which building the reply objects")
    variants = (False, True) if options.direct_tools else (False,)
    per_call: dict[bool, list[float]] = {variant: [] for variant in variants}
    with tempfile.TemporaryDirectory(prefix="skillbench-own-work-") as tmp, pinned():  # no stub: its CPUs stay idle
        work = Path(tmp)
        make_benchmark(work / "warm" / "bench", 4)
        for direct in variants:  # one-time costs of each path
            use_direct_tools(direct)
            run_engine(work / "warm" / "bench", work / f"warm-{direct}", options.concurrency, unreachable)
        for index in range(options.runs):
            for direct in variants if index % 2 == 0 else variants[::-1]:
                use_direct_tools(direct)
                run_dir = work / f"run{index}-{direct}"
                make_benchmark(run_dir / "bench", options.conversations)
                building[0] = 0.0
                measured = run_engine(run_dir / "bench", run_dir, options.concurrency, unreachable)
                cpu = measured.cpu_s  # the job alone: run_engine measures around it
                per_call[direct].append(cpu / measured.calls * 1e3)
                print(f"{index + 1} | {'direct' if direct else 'MCP'} | {cpu / measured.conversations * 1e3:.2f} ms | "
                      f"{cpu / measured.calls * 1e3:.3f} ms | {building[0] / measured.calls * 1e3:.3f} ms")
        use_direct_tools(False)
    if options.direct_tools:
        differences = [sdk - direct for sdk, direct in zip(per_call[False], per_call[True], strict=True)]
        share = statistics.median(differences) / statistics.median(per_call[False])
        print(f"MCP SDK in-process path: {spread(differences, '{:.3f}')} ms per model call, median (range) of "
              f"{len(differences)} paired runs; {share:.0%} of the CPU per model call with it")


if __name__ == "__main__":
    main()
