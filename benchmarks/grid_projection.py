"""Project the wall time and cost of the paper's grid (17 agents × 5 judges × 500 scenarios) from a down-scaled grid.

    python benchmarks/grid_projection.py                        # 2 × 2 × 12 down-scaled grid, latencies × 0.02
    python benchmarks/grid_projection.py --scenarios 24 --time-scale 0.05 --nodes 17,85

1. Runs a down-scaled grid through the real command (``python -m skillbench ... -m``) against
   benchmarks/load_stub.py: two agents and two judges of the paper's configs (one hosted API and one
   self-hosted model each), the Gemma user simulator, ``--scenarios`` scenarios of ``benchmark=full``. The stub
   answers each model after its assumed latency (benchmarks/grid_assumptions.yaml) × ``--time-scale``, with
   realistic reply sizes and OpenAI-style prompt caching, and rate-limits each model at its assumed requests and
   tokens per minute × ``--limit-scale`` (HTTP 429 + Retry-After + x-ratelimit-* headers; skillbench's adaptive
   limiter paces to them), so the self-check covers the rate-limited model the paper grid is projected with. It runs with the basic launcher, again fully cached
   (fixed cost per job), and with ``hydra/launcher=parallel`` × 2 (the fork launcher).
2. Measures from it: calls per conversation per role and tokens per call (the jobs' summaries), the engine's
   CPU per call, the fixed cost per job and the start-up.
3. Predicts the down-scaled runs' wall times with the model below (the stub's limits, the cores measured free
   on this machine at the start) and prints them next to the measured ones, with the error.
4. Projects the paper grid, composed from ``experiment=paper_grid`` (its 85 jobs, models, concurrency settings),
   for 1 process, N parallel workers on one machine and N SLURM nodes; dollars from skillbench's own estimator
   (``skillbench.plan.estimate``: litellm's prices, calibrated from the down-scaled run's summaries, cached
   prompt tokens at the cached rate).

The model (skillbench/plan/projection.py): ``simulate`` and ``rate_limit_bound``; this script measures its inputs,
checks it and prints the tables. Not a test: nothing here asserts.
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
from typing import Any

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
ASSUMPTIONS = yaml.safe_load((REPO / "benchmarks" / "grid_assumptions.yaml").read_text())

from skillbench.plan.projection import Costs, JobShape, rate_limit_bound, simulate  # noqa: E402

SAMPLE_AGENTS = ("gpt5_mini", "qwen3_5_9b")
SAMPLE_JUDGES = ("gpt5", "gemma4")
SELF_HOSTED_ENV = ("QWEN3_5_9B", "GEMMA4", "USER_SIM")


def rate_limit_assumptions() -> dict[str, dict[str, float]]:
    """Per litellm model: requests_per_minute / tokens_per_minute (grid_assumptions.yaml ``rate_limits``)."""
    return {model: {k: float(v) for k, v in (limits or {}).items() if v}
            for model, limits in (ASSUMPTIONS.get("rate_limits") or {}).items()}


def latency_s(model: str) -> float:
    return float(ASSUMPTIONS["latency_s"].get(model, ASSUMPTIONS["default_latency_s"]))


# --- the model's inputs (the model itself: skillbench/plan/projection.py) --------------------------------------------


MIN_CPU_PER_CALL_S = 1e-4
STUB_BURST_S = 1.0  # benchmarks/load_stub.py's buckets hold one second of their rate


def shape(cfg: Any, scenarios: int, profiles: dict[str, Any], time_scale: float = 1.0) -> JobShape:
    """A job's shape from its validated config and the measured calls per conversation."""
    agent_s, user_s, judge_s = (latency_s(m.model) * time_scale for m in (cfg.agent, cfg.user_sim, cfg.judge))
    agent, user, judge = profiles["agent"], profiles["user"], profiles["judge"]
    concurrency = cfg.run.scenario_concurrency
    endpoints: dict[str, tuple[float, float, float]] = {}
    for model, rolling, judging, profile in ((cfg.agent.model, agent.calls, 0.0, agent),
                                             (cfg.user_sim.model, user.calls, 0.0, user),
                                             (cfg.judge.model, 0.0, judge.calls * cfg.judge.samples, judge)):
        tokens = float(getattr(profile, "prompt_tokens", 0) or 0) + float(getattr(profile, "completion_tokens", 0) or 0)
        before = endpoints.get(model, (0.0, 0.0, 0.0))
        endpoints[model] = (before[0] + rolling, before[1] + judging, max(before[2], tokens))
    return JobShape(
        endpoints=endpoints,
        agent=cfg.agent.name,
        scenarios=scenarios,
        rollout_slots=min(concurrency, cfg.agent.concurrency, cfg.user_sim.concurrency),
        judge_slots=min(concurrency, cfg.judge.concurrency),
        conversation_s=agent.calls * agent_s + user.calls * user_s,
        judge_s=judge.calls * cfg.judge.samples * judge_s,
        conversation_calls=agent.calls + user.calls,
        judge_calls=judge.calls * cfg.judge.samples,
    )


# --- the down-scaled run -------------------------------------------------------------------------------------


def run_cli(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + sys, waited-for descendants included) of one command."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "skillbench", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"skillbench {' '.join(args)} failed:\n{child.stderr.read()[-3000:]}")  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime


PRELOAD = "from skillbench.engine.preload import preload_job_imports; preload_job_imports()"


def run_python(code: str, env: dict[str, str]) -> float:
    """CPU seconds (user + sys, from the child's rusage) of ``python -c code`` less an empty interpreter's.

    CPU, not wall: the result is subtracted from CPU seconds, and on a busy machine a wall-clock import time
    exceeds the CPU it stands for (that mix made the CPU per call 0 and the model divide by it)."""

    def cpu(snippet: str) -> float:
        child = subprocess.Popen([sys.executable, "-c", snippet], env=env)
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"python -c {snippet!r} failed")
        return usage.ru_utime + usage.ru_stime

    return max(0.0, cpu(code) - cpu("pass"))


def available_cores(seconds: float = 1.0) -> float:
    """Cores this machine gives us now: one busy process per core for ``seconds``, their CPU ÷ the wall."""
    spin = f"import time\nend = time.process_time() + {seconds}\nstop = time.monotonic() + {4 * seconds}\n" \
           "while time.process_time() < end and time.monotonic() < stop: pass"
    started = time.perf_counter()
    children = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(os.cpu_count() or 2)]
    used = 0.0
    for child in children:
        _, _, usage = os.wait4(child.pid, 0)
        used += usage.ru_utime + usage.ru_stime
    return used / max(time.perf_counter() - started, 1e-9)


def summaries(sweep: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(sweep.glob("*/summary.json"))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenarios", type=int, default=12, help="scenarios of the down-scaled grid")
    parser.add_argument(
        "--time-scale", type=float, default=0.02, help="stub latency = assumed latency × this"
    )
    parser.add_argument(
        "--workers", default="2,16", help="hydra/launcher=parallel worker counts to project (one machine)"
    )
    parser.add_argument("--nodes", default="17,85", help="SLURM node counts to project")
    parser.add_argument(
        "--limit-scale", type=float, default=3.0,
        help="the down-scaled run's stub rate-limits each model at its assumed requests/tokens per minute × this "
        "(so that, with 4 jobs instead of 85, the shared limits bind as they do in the paper grid)",
    )
    parser.add_argument(
        "--keep", type=Path, help="an empty folder to keep the down-scaled runs in (default: a temporary one)"
    )
    options = parser.parse_args()

    from hydra import compose, initialize_config_module

    from skillbench.plan.estimate import calibrate, estimate_run
    from skillbench.plan.sweep import ComposedJob, compose_jobs, plan_jobs

    completion = [f"--completion-tokens={role}={n}" for role, n in ASSUMPTIONS["completion_tokens"].items()]
    with tempfile.TemporaryDirectory(prefix="skillbench-grid-") as tmp:
        work = Path(options.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
            master = compose("config", overrides=["experiment=paper_grid"], return_hydra_config=True)
            grid = plan_jobs(compose_jobs(master))
            sample = plan_jobs(
                [
                    ComposedJob(o, compose("config", overrides=o))
                    for o in (
                        [
                            f"agent={a}",
                            f"judge={j}",
                            "user_sim=gemma4_31b",
                            "benchmark=full",
                            f"benchmark.limit={options.scenarios}",
                        ]
                        for a in SAMPLE_AGENTS
                        for j in SAMPLE_JUDGES
                    )
                ]
            )
        models = sorted(
            {m.model for job in sample if job.cfg for m in (job.cfg.agent, job.cfg.judge, job.cfg.user_sim)}
        )
        served = [m.split("/", 1)[1] if m.startswith("hosted_vllm/") else m for m in models]
        latencies = [
            f"--model-latency-ms={s}={latency_s(m) * options.time_scale * 1000:g}"
            for m, s in zip(models, served, strict=True)
        ]
        # The self-check's endpoints are rate-limited per model, as the assumptions describe the paper's, and the
        # predictions use the very same limits.
        check_limits = {m: {k: v * options.limit_scale for k, v in limits.items()}
                        for m, limits in rate_limit_assumptions().items() if m in models}
        limit_args = [
            f"--model-limit={s}={check_limits[m].get('requests_per_minute', '')}/"
            f"{check_limits[m].get('tokens_per_minute', '')}"
            for m, s in zip(models, served, strict=True) if m in check_limits
        ]
        # Cores free, sampled before, between and after the two measured runs: a run is predicted with the mean of the
        # samples around it (one sample before both was the self-check's largest error on a machine whose load moved:
        # 0.45 cores free measured, +41 % and +68 %, while runs at a steadier load were within -8 % to +15 %).
        cores_free = [available_cores()]
        stub = subprocess.Popen(
            [
                sys.executable,
                str(REPO / "benchmarks" / "load_stub.py"),
                "--latency-ms",
                "0",
                *latencies,
                *limit_args,
                *completion,
                f"--models={','.join(served)}",
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            base = f"http://127.0.0.1:{int(stub.stdout.readline())}/v1"  # type: ignore[union-attr]
            env = {
                **os.environ,
                "OPENAI_API_KEY": "sk-local-stub",
                "PYTHONPATH": str(REPO),
                **{f"SKILLBENCH_{name}_API_BASE": base for name in SELF_HOSTED_ENV},
            }
            sweep_args = [
                f"agent={','.join(SAMPLE_AGENTS)}",
                f"judge={','.join(SAMPLE_JUDGES)}",
                "user_sim=gemma4_31b",
                f"agent.api_base={base}",
                f"judge.api_base={base}",
                "benchmark=full",
                f"benchmark.limit={options.scenarios}",
            ]
            measured: dict[str, float] = {}
            outputs = work / "basic" / "outputs"
            (work / "basic").mkdir()
            windows: dict[str, tuple[float, float]] = {}
            opened = time.monotonic()
            measured["basic"], cpu = run_cli(
                [
                    *sweep_args,
                    f"store.root={outputs / 'store'}",
                    f"hydra.sweep.dir={outputs / 'multirun' / 'first'}",
                    "-m",
                ],
                work / "basic",
                env,
            )
            windows["basic"] = (opened, time.monotonic())
            first = summaries(outputs / "multirun" / "first")
            cached_wall, cached_cpu = run_cli(
                [
                    *sweep_args,
                    f"store.root={outputs / 'store'}",
                    f"hydra.sweep.dir={outputs / 'multirun' / 'cached'}",
                    "-m",
                ],
                work / "basic",
                env,
            )
            one_job_wall, _ = run_cli(
                [
                    *[a for a in sweep_args if not a.startswith(("agent=", "judge="))],
                    f"agent={SAMPLE_AGENTS[0]}",
                    f"judge={SAMPLE_JUDGES[0]}",
                    f"store.root={outputs / 'store'}",
                    f"hydra.sweep.dir={outputs / 'multirun' / 'cached-one'}",
                    "-m",
                ],
                work / "basic",
                env,
            )
            startup_wall, startup_cpu = run_cli(["--help"], work, env)
            import_cpu = run_python(PRELOAD, env)
            (work / "parallel").mkdir()
            cores_free.append(available_cores())
            opened = time.monotonic()
            measured["parallel × 2"], parallel_cpu = run_cli(
                [
                    *sweep_args,
                    f"store.root={work / 'parallel' / 'store'}",
                    f"hydra.sweep.dir={work / 'parallel' / 'sweep'}",
                    "hydra/launcher=parallel",
                    "hydra.launcher.n_jobs=2",
                    "-m",
                ],
                work / "parallel",
                env,
            )
            windows["parallel × 2"] = (opened, time.monotonic())
            cores_free.append(available_cores())
        finally:
            stub.terminate()
            admitted = json.loads(stub.stdout.readline() or "{}")  # type: ignore[union-attr]
            _, _, stub_usage = os.wait4(stub.pid, 0)
        calls = sum(s["llm_calls"] for s in first)
        # The stub shares this machine's cores with the down-scaled runs (not with the real grid's): its CPU per
        # answered call (the first run and the parallel one each sent `calls`; the cached run none).
        stub_cpu_per_call_s = (stub_usage.ru_utime + stub_usage.ru_stime) / max(2 * calls, 1)
        costs = Costs(
            # The first run's CPU less the cached run's is the calls' work plus one import of the engine and litellm.
            # (All three are CPU seconds; floored at 0.1 ms a call so a noisy measure never zeroes the model's CPU.)
            cpu_per_call_s=max(MIN_CPU_PER_CALL_S, (cpu - cached_cpu - import_cpu) / max(calls, 1)),
            # A cached sweep of len(first) jobs against a cached sweep of one: each job's share, and the sweep's own.
            fixed_per_job_s=max(0.0, cached_wall - one_job_wall) / max(len(first) - 1, 1),
            fixed_per_sweep_s=max(
                0.0, one_job_wall - startup_wall - max(0.0, cached_wall - one_job_wall) / max(len(first) - 1, 1)
            ),
            # Start-up and imports are CPU-bound: the model spends them at the machine's share of a core.
            startup_s=startup_cpu,
            import_s=import_cpu,
        )
        profiles = calibrate(outputs, "full")
        estimate = estimate_run(grid, outputs)

    sample_shapes = [shape(job.cfg, job.scenarios, profiles, options.time_scale) for job in sample if job.cfg]
    grid_shapes = [shape(job.cfg, job.scenarios, profiles) for job in grid if job.cfg]
    cores = float(os.cpu_count() or 2)
    # The down-scaled runs share this machine with whatever else runs on it: predict them with the cores measured
    # free (the paper-grid layouts below assume their machines are theirs).
    check_cores = {"basic": min(cores, (cores_free[0] + cores_free[1]) / 2),
                   "parallel × 2": min(cores, (cores_free[1] + cores_free[2]) / 2)}
    predicted = {
        "basic": simulate(
            sample_shapes,
            costs,
            nodes=1,
            workers_per_node=1,
            cores_per_node=check_cores["basic"],
            process_per_job=False,
            stub_cpu_per_call_s=stub_cpu_per_call_s,
            rate_limits=check_limits,
            burst_s=STUB_BURST_S,
        ),
        "parallel × 2": simulate(
            sample_shapes,
            costs,
            nodes=1,
            workers_per_node=2,
            cores_per_node=check_cores["parallel × 2"],
            process_per_job=False,
            stub_cpu_per_call_s=stub_cpu_per_call_s,
            rate_limits=check_limits,
            burst_s=STUB_BURST_S,
        ),
    }
    limits_text = "; ".join(f"{m} {v.get('requests_per_minute', 0):,.0f} req/min" for m, v in check_limits.items())
    print(
        f"down-scaled grid: {len(SAMPLE_AGENTS)} agents × {len(SAMPLE_JUDGES)} judges × {options.scenarios} scenarios "
        f"of benchmark=full, stub latencies = assumed × {options.time_scale:g}, stub rate limits = assumed × "
        f"{options.limit_scale:g} ({limits_text}),"
        f" this machine ({cores:g} cores, {' / '.join(f'{c:.2f}' for c in cores_free)} of them free before, between "
        f"and after the two runs, load average "
        f"{os.getloadavg()[0]:.2f})"
    )
    print(
        f"measured: {calls:,} model calls, engine CPU {costs.cpu_per_call_s * 1000:.1f} ms per call "
        f"(the stub's: {stub_cpu_per_call_s * 1000:.1f} ms, counted in the down-scaled predictions only), "
        f"fixed cost {costs.fixed_per_job_s:.2f} s per job and {costs.fixed_per_sweep_s:.2f} s per sweep, "
        f"start-up {costs.startup_s:.2f} s, "
        f"imports of a job that calls models {costs.import_s:.2f} s; CPU of the runs (engine, all processes): "
        f"basic {cpu:.1f} s, parallel × 2 {parallel_cpu:.1f} s"
    )
    check_bound = rate_limit_bound(sample_shapes, check_limits)
    unlimited = {name: simulate(sample_shapes, costs, nodes=1, workers_per_node=workers,
                                cores_per_node=check_cores[name],
                                process_per_job=False, stub_cpu_per_call_s=stub_cpu_per_call_s)
                 for name, workers in (("basic", 1), ("parallel × 2", 2))}
    print(f"the stub's rate limits alone take {check_bound:.1f} s of the down-scaled grid (the most loaded endpoint)")
    for name, (opened, closed) in windows.items():
        for served_name, times in admitted.items():
            accepted = [t for t in times["accepted"] if opened <= t <= closed]
            refused = [t for t in times["refused"] if opened <= t <= closed]
            if accepted:
                span = max(accepted) - min(accepted)
                print(f"  {name}: {served_name} admitted {len(accepted)} requests over {span:.1f} s "
                      f"(from {min(accepted) - opened:.1f} s after the start), refused {len(refused)} (429)")
    print(
        _table(
            ["run", "measured wall", "model's prediction", "error", "prediction without the limits"],
            [
                [
                    name,
                    f"{measured[name]:.1f} s",
                    f"{predicted[name]:.1f} s",
                    f"{(predicted[name] - measured[name]) / measured[name]:+.0%}",
                    f"{unlimited[name]:.1f} s",
                ]
                for name in measured
            ],
        )
    )
    print()
    self_hosted = sorted(
        {
            m.model
            for job in grid
            if job.cfg
            for m in (job.cfg.agent, job.cfg.judge, job.cfg.user_sim)
            if m.api_base is not None
        }
    )
    layouts: list[tuple[str, dict[str, Any]]] = [
        (
            "1 process (basic launcher)",
            {"nodes": 1, "workers_per_node": 1, "cores_per_node": 1, "process_per_job": False},
        ),
    ]
    for n in (int(v) for v in options.workers.split(",") if v):
        layouts.append(
            (
                f"hydra/launcher=parallel × {n} (one machine, {max(n, 1)} cores)",
                {"nodes": 1, "workers_per_node": n, "cores_per_node": n, "process_per_job": False},
            )
        )
    slurm_cpus = 4  # conf/hydra/launcher/slurm.yaml cpus_per_task
    for n in (int(v) for v in options.nodes.split(",") if v):
        layouts.append(
            (
                f"SLURM × {n} nodes (one array task per cell, {slurm_cpus} CPUs each)",
                {
                    "nodes": n,
                    "workers_per_node": 1,
                    "cores_per_node": slurm_cpus,
                    "process_per_job": True,
                    "queue_wait_s": float(ASSUMPTIONS["slurm_queue_wait_s"]),
                },
            )
        )
    rows = []
    limits = rate_limit_assumptions()
    bound = rate_limit_bound(grid_shapes, limits)
    for name, layout in layouts:
        free = simulate(grid_shapes, costs, **layout)
        wall = simulate(grid_shapes, costs, **layout, rate_limits=limits,
                        burst_s=float(ASSUMPTIONS.get("rate_limit_burst_s", 0.0)))
        rows.append([name, f"{wall / 3600:,.1f} h", f"{free / 3600:,.1f} h", f"{len(self_hosted) * wall / 3600:,.0f}"])
    jobs, conversations = len(grid_shapes), sum(j.scenarios for j in grid_shapes)
    print(
        f"projection: experiment=paper_grid, {jobs} jobs, {conversations:,} job-conversations "
        f"({estimate.calls:,} model calls: the judges of an agent share its conversations); the rate limits alone "
        f"take {bound / 3600:,.1f} h (the most loaded endpoint's calls or tokens ÷ its limit): no layout is faster"
    )
    print(
        _table(
            ["layout", "wall time (with the rate limits)", "without limits",
             f"GPU-hours ({len(self_hosted)} self-hosted servers up for the run)"],
            rows,
        )
    )
    print(
        f"dollars (any layout): ${estimate.cost_usd:,.2f} for the hosted APIs, litellm prices"
        + (f"; unpriced: {', '.join(estimate.unpriced)}" if estimate.unpriced else "")
    )
    for role in ("agent", "user", "judge"):
        p = estimate.profiles[role]
        print(
            f"  {role}: {p.calls:.1f} calls/conversation, {p.prompt_tokens:,.0f} prompt tokens/call "
            f"({100 * p.cached_share:.0f}% cached), {p.completion_tokens:,.0f} completion ({p.source}, down-scaled run)"
        )
    print(
        "assumptions: per-model latencies and reply sizes in benchmarks/grid_assumptions.yaml (assumed, not measured);"
        " conversation shape = the stub's scripted conversation; provider rate limits and self-hosted capacity from"
        " its rate_limits section (requests/tokens per minute per model, shared by every job calling it); GPU-hours"
        " assume every self-hosted model has its own GPU server up for the whole run."
    )


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        " | ".join(c.ljust(w) for c, w in zip(header, widths, strict=True)),
        " | ".join("-" * w for w in widths),
    ]
    return "\n".join(
        lines + [" | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    )


if __name__ == "__main__":
    main()
