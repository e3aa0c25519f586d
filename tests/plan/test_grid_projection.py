"""benchmarks/grid_projection.py's model: a CPU measure of 0 (a busy machine) never divides by zero, and an
endpoint's rate limit, shared by the jobs that call it, lengthens the projection."""

from __future__ import annotations

from benchmarks.grid_projection import Costs, JobShape, simulate


def _job(agent: str) -> JobShape:
    return JobShape(agent=agent, scenarios=100, rollout_slots=10, judge_slots=10, conversation_s=10.0, judge_s=1.0,
                    conversation_calls=10.0, judge_calls=1.0, endpoints={"m": (10.0, 0.0, 100.0), "j": (0.0, 1.0, 100.0)})


def test_zero_cpu_and_rate_limits() -> None:
    costs = Costs(cpu_per_call_s=0.0, fixed_per_job_s=0.0, fixed_per_sweep_s=0.0, startup_s=0.0, import_s=0.0)
    layout = {"nodes": 1, "workers_per_node": 2, "cores_per_node": 2.0, "process_per_job": False}
    free = simulate([_job("a"), _job("b")], costs, **layout)
    limited = simulate([_job("a"), _job("b")], costs, **layout, rate_limits={"m": {"requests_per_minute": 60.0}})
    assert free > 0
    # 2 jobs × 100 conversations × 10 calls at 1 call/s shared: at least 2,000 s.
    assert limited >= 2000 > free
