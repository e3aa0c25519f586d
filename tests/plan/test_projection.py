"""The sweep-time model (skillbench/plan/projection.py, which benchmarks/grid_projection.py runs): a CPU measure of 0
(a busy machine) never divides by zero, and an endpoint's rate limit, shared by the jobs that call it, lengthens the
projection."""

from __future__ import annotations

import itertools

import pytest

from skillbench.plan.projection import Costs, JobShape, fair_shares, rate_limit_bound, simulate


def _job(agent: str) -> JobShape:
    return JobShape(agent=agent, scenarios=100, rollout_slots=10, judge_slots=10, conversation_s=10.0, judge_s=1.0,
                    conversation_calls=10.0, judge_calls=1.0, endpoints={"m": (10.0, 0.0, 100.0), "j": (0.0, 1.0, 100.0)})


def test_zero_cpu_and_rate_limits() -> None:
    costs = Costs(cpu_per_call_s=0.0, fixed_per_job_s=0.0, fixed_per_sweep_s=0.0, startup_s=0.0, import_s=0.0)
    layout = {"nodes": 1, "workers_per_node": 2, "cores_per_node": 2.0, "process_per_job": False}
    free = simulate([_job("a"), _job("b")], costs, **layout, steps=20_000)
    limited = simulate([_job("a"), _job("b")], costs, **layout, rate_limits={"m": {"requests_per_minute": 60.0}}, steps=20_000)
    assert free > 0
    # 2 jobs × 100 conversations × 10 calls at 1 call/s shared: at least 2,000 s.
    assert limited >= 2000 * (1 - 1e-9) and free < 2000


def _costs() -> Costs:
    return Costs(cpu_per_call_s=0.001, fixed_per_job_s=0.5, fixed_per_sweep_s=1.0, startup_s=0.5, import_s=1.0)


def _slurm(nodes: int) -> dict[str, object]:
    return {"nodes": nodes, "workers_per_node": 1, "cores_per_node": 4.0, "process_per_job": True}


def test_fair_shares_never_exceed_a_limit_and_waste_none() -> None:
    # a uses the tight x and the roomy y; b uses y only. x caps a at 0.25; b then gets y's rest, not a's unsent calls.
    shares = fair_shares({1: {"x": 4.0, "y": 10.0}, 2: {"y": 10.0}}, {"x": 1.0, "y": 12.0})
    assert shares[1] == pytest.approx(0.25)
    assert shares[2] == pytest.approx(0.95)  # 12 - 2.5 = 9.5 of its 10
    assert 4.0 * shares[1] <= 1.0 + 1e-9 and 10.0 * shares[1] + 10.0 * shares[2] <= 12.0 + 1e-9
    assert fair_shares({1: {"x": 1.0}}, {"x": 5.0}) == {1: 1.0}


def test_rate_limit_is_a_lower_bound_on_wall_time() -> None:
    jobs = [_job(a) for a in "abcd"]  # 4 × 100 conversations × 10 calls on m
    for nodes in (1, 2, 4):
        wall = simulate(jobs, _costs(), **_slurm(nodes), rate_limits={"m": {"requests_per_minute": 600.0}}, steps=20_000)
        assert wall >= 4 * 100 * 10 / 10.0 * (1 - 1e-9)  # 10 calls/s
    assert rate_limit_bound(jobs, {"m": {"requests_per_minute": 600.0}}) == pytest.approx(400.0)
    # The judges' jobs of one agent share its conversations: rolled out once, judged by each.
    shared = [_job("a"), _job("a")]
    assert rate_limit_bound(shared, {"m": {"requests_per_minute": 60.0}}) == pytest.approx(1000.0)
    assert rate_limit_bound(shared, {"j": {"requests_per_minute": 60.0}}) == pytest.approx(200.0)
    assert rate_limit_bound(shared, {"m": {"tokens_per_minute": 6000.0}}) == pytest.approx(1000.0)
    assert rate_limit_bound(shared, None) == 0.0


def test_more_nodes_never_slower_under_shared_limits() -> None:
    # The paper grid's shape: every job shares the tight user-simulator endpoint "m"; half of them also call a
    # roomy "other". Before the fair shares, the roomy endpoint's jobs were slowed for calls throttled jobs never
    # sent, the more so the more ran at once (85 SLURM nodes projected slower than 17).
    def job(agent: str, other: bool) -> JobShape:
        j = _job(agent)
        if other:
            j.endpoints = {**j.endpoints, "other": (5.0, 0.0, 100.0)}
        return j

    jobs = [job(f"a{i}", i % 2 == 0) for i in range(8)]
    limits = {"m": {"requests_per_minute": 3000.0}, "other": {"requests_per_minute": 6000.0}}
    walls = [simulate(jobs, _costs(), **_slurm(n), rate_limits=limits, steps=20_000) for n in (1, 2, 4, 8)]
    assert all(later <= earlier * 1.01 for earlier, later in itertools.pairwise(walls)), walls
    free = [simulate(jobs, _costs(), **_slurm(n), steps=20_000) for n in (1, 2, 4, 8)]
    assert all(later <= earlier * 1.01 for earlier, later in itertools.pairwise(free)), free


def test_a_burst_shortens_a_limited_run_by_at_most_its_depth() -> None:
    layout = {"nodes": 1, "workers_per_node": 1, "cores_per_node": 2.0, "process_per_job": False, "steps": 20_000}
    jobs = [_job("a"), _job("b")]
    limits = {"m": {"requests_per_minute": 300.0}}  # 5 calls/s: the jobs would make 9
    plain = simulate(jobs, _costs(), **layout, rate_limits=limits)
    burst = simulate(jobs, _costs(), **layout, rate_limits=limits, burst_s=5.0)
    # Each job starts after an idle spell (its fixed cost, the imports): at most 5 s of calls sent at once each.
    assert plain >= 400.0 * (1 - 1e-9)
    assert plain - 2 * 5.0 * 1.01 <= burst < plain - 5.0


def test_forked_workers_start_after_the_sweep_process_has_imported() -> None:
    # A second worker of the fork launcher inherits the parent's imports: it cannot start its job before them.
    costs = Costs(cpu_per_call_s=0.0, fixed_per_job_s=0.0, fixed_per_sweep_s=0.0, startup_s=10.0, import_s=30.0)
    one = {"nodes": 1, "cores_per_node": 2.0, "process_per_job": False, "steps": 20_000}
    short = _job("a")
    short.scenarios = 10
    for workers in (1, 2):  # b, the long job, goes to the second worker: it ends no sooner than 40 s + its 110 s
        assert simulate([short, _job("b")], costs, workers_per_node=workers, **one) >= (40.0 + 100 * 11 / 10) * (1 - 1e-9)
