"""Engine throughput against a local OpenAI-compatible stub with fixed latency (DESIGN: performance budget).

    python benchmarks/throughput.py --conversations 400 --latency-ms 100 --concurrency 256

Prints conversations per hour, model calls per second and the engine's CPU per call. The stub runs in
its own process; agent, user simulator and judge are real-provider configs (hosted_vllm) pointed at it.
Run from the repository root.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def make_benchmark(root: Path, count: int) -> None:
    starter = REPO / "skillbench" / "benchmark" / "data" / "starter"
    (root / "skills").mkdir(parents=True)
    (root / "scenarios").mkdir()
    shutil.copytree(starter / "tools", root / "tools")
    shutil.copy(starter / "benchmark.yaml", root / "benchmark.yaml")
    shutil.copy(starter / "skills" / "healthcare_reschedule_appointment.yaml", root / "skills")
    source = yaml.safe_load((starter / "scenarios" / "healthcare_reschedule_appointment.yaml").read_text())
    base = next(s for s in source["scenarios"] if s["path"] == "happy_path")
    scenarios = [{**base, "id": f"load-{index:05d}"} for index in range(count)]
    (root / "scenarios" / "healthcare_reschedule_appointment.yaml").write_text(
        yaml.safe_dump({"skill_id": base["skill_id"], "scenarios": scenarios}, sort_keys=False)
    )


def _process_cpu(pid: int) -> float:
    """User + system CPU seconds of another process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--concurrency", type=int, default=256)
    options = parser.parse_args()

    stub = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_stub", "--latency-ms", str(options.latency_ms)],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
    )
    try:
        port = int(stub.stdout.readline())  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}/v1"
        for name in ("QWEN3_5_9B", "USER_SIM", "GEMMA4"):
            os.environ[f"SKILLBENCH_{name}_API_BASE"] = base
        with tempfile.TemporaryDirectory() as tmp:
            bench = Path(tmp) / "bench"
            make_benchmark(bench, options.conversations)
            from hydra import compose, initialize_config_module

            from skillbench.config import validate_config
            from skillbench.engine import run_job_async

            c = options.concurrency
            with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
                cfg = validate_config(compose("config", overrides=[
                    "agent=qwen3_5_9b", "judge=gemma4", "user_sim=gemma4_31b", f"benchmark.source={bench}",
                    f"store.root={tmp}/store", f"run.scenario_concurrency={c}", f"agent.concurrency={c}",
                    f"judge.concurrency={c}", f"user_sim.concurrency={c}", "run.progress_interval_s=30",
                ]))
            cpu0 = resource.getrusage(resource.RUSAGE_SELF)
            wall0 = time.perf_counter()
            summary = asyncio.run(run_job_async(cfg, Path(tmp) / "job"))
            wall = time.perf_counter() - wall0
            cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        stub_cpu = _process_cpu(stub.pid)
    finally:
        stub.terminate()
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    calls = summary.llm_calls
    print(f"conversations        {summary.scenarios} (infra errors {summary.infra_errors}, judge errors {summary.judge_errors})")
    print(f"model calls          {calls} ({calls / max(1, summary.scenarios):.1f} per conversation)")
    print(f"wall time            {wall:.1f} s at concurrency {options.concurrency}, stub latency {options.latency_ms:.0f} ms")
    print(f"conversations/hour   {summary.scenarios / wall * 3600:,.0f}")
    print(f"calls/second         {calls / wall:,.1f}")
    print(f"engine CPU per call  {cpu / max(1, calls) * 1000:.2f} ms (litellm included)")
    print(f"stub CPU per call    {stub_cpu / max(1, calls) * 1000:.2f} ms (the stub shares this machine's cores)")


if __name__ == "__main__":
    main()
