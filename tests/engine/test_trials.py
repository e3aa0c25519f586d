"""Repeated trials: the estimators against brute force, trial seeds and keys, and a job with run.trials > 1."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.selection import select_scenarios
from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.engine.job import rollout_key
from skillbench.engine.trials import (
    mean_pass_at_k,
    mean_pass_hat_k,
    pass_at_k,
    pass_hat_k,
    task_counts,
    trial_population,
    trial_seed,
)
from tests.conftest import compose_config


def _brute_force(outcomes: tuple[bool, ...], k: int) -> tuple[float, float]:
    """(share of k-subsets that all pass, share with at least one pass), by enumerating every subset."""
    subsets = list(itertools.combinations(outcomes, k))
    return sum(all(s) for s in subsets) / len(subsets), sum(any(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_estimators_equal_the_share_of_k_subsets(n: int) -> None:
    for outcomes in itertools.product([False, True], repeat=n):
        c = sum(outcomes)
        for k in range(1, n + 1):
            every, some = _brute_force(outcomes, k)
            assert pass_hat_k(n, c, k) == pytest.approx(every)
            assert pass_at_k(n, c, k) == pytest.approx(some)


def test_every_k_averages_over_one_population_capped_at_the_fewest_scored_trials() -> None:
    counts = task_counts([("a", True), ("a", True), ("a", False), ("b", False), ("b", True), ("b", None), ("c", True)])
    assert counts == {"a": (3, 2), "b": (2, 1), "c": (1, 1)}
    population = trial_population(counts, planned=3)
    assert population.scenarios == 3 and population.max_k == 1 and population.short == {"b": 2, "c": 1}
    assert mean_pass_hat_k(counts, 1) == pytest.approx((2 / 3 + 1 / 2 + 1) / 3)
    # c has one scored trial: k stops at 1 for every scenario, rather than k = 2 averaging over a and b only
    assert mean_pass_hat_k(counts, 2) is None and mean_pass_at_k(counts, 2) is None
    assert population.consistent() == {}  # consistency needs two scored trials of every scenario
    assert "k stops at 1" in population.cap_note() and "b (2), c (1)" in population.cap_note()
    complete = {"a": (3, 2), "b": (3, 1)}
    assert mean_pass_hat_k(complete, 2) == pytest.approx((1 / 3 + 0) / 2)
    assert mean_pass_at_k(complete, 3) == pytest.approx(1.0)
    assert trial_population(complete, planned=3).cap_note() == ""
    with pytest.raises(ValueError):
        pass_hat_k(2, 3, 1)


@pytest.mark.parametrize("seed", range(20))
def test_on_one_population_pass_at_k_never_falls_and_pass_hat_k_never_rises(seed: int) -> None:
    rng = random.Random(seed)
    counts = {}
    for scenario in range(rng.randint(1, 12)):
        n = rng.randint(1, 5)
        counts[f"s{scenario}"] = (n, rng.randint(0, n))
    population = trial_population(counts, planned=5)
    at = [population.mean(pass_at_k, k) for k in range(1, population.max_k + 1)]
    hat = [population.mean(pass_hat_k, k) for k in range(1, population.max_k + 1)]
    assert all(x <= y + 1e-12 for x, y in itertools.pairwise(at))
    assert all(x >= y - 1e-12 for x, y in itertools.pairwise(hat))
    assert all(population.mean(pass_hat_k, k) is None for k in range(population.max_k + 1, 6))
    if len({n for n, _ in counts.values()}) == 1:  # as many scored trials each: pass^1 is the pooled pass rate
        assert hat[0] == pytest.approx(population.passes / population.scored)


def test_trial_zero_keeps_the_seed_and_other_trials_differ() -> None:
    assert trial_seed(7, 0) == 7
    seeds = {trial_seed(7, t) for t in range(1, 50)}
    assert len(seeds) == 49 and 7 not in seeds
    assert trial_seed(7, 3) == trial_seed(7, 3) != trial_seed(8, 3)


def test_trial_zero_rollout_key_is_the_key_of_a_run_without_trials() -> None:
    cfg = compose_config("benchmark=smoke", "agent=sim_sloppy")
    benchmark = load_benchmark(cfg.benchmark.source)
    scenario = select_scenarios(benchmark, cfg.benchmark)[0]
    # Pinned: the key every run before run.trials existed stored this rollout under. If you changed the
    # rollout key on purpose, stored rollouts are no longer reused: say so in the docs and update the value.
    # Updated for tool-result-v2 (a refused call's text states its kind; docs/decisions.md, Tools).
    before_trials = "35976c2128352b664592989e839187a9301f958687bf68ea4492f2fbc431d56d"
    assert scenario.id == "bk-fee-happy-01"
    assert rollout_key(cfg, benchmark, scenario) == rollout_key(cfg, benchmark, scenario, 0) == before_trials
    trial_keys = {rollout_key(cfg, benchmark, scenario, t) for t in range(4)}
    assert len(trial_keys) == 4
    with_trials = compose_config("benchmark=smoke", "agent=sim_sloppy", "run.trials=4")
    assert rollout_key(with_trials, benchmark, scenario, 0) == before_trials  # the setting itself is not in the key


def _rows(job_dir: Path) -> list[ResultRow]:
    return [ResultRow.model_validate_json(line) for line in (job_dir / RESULTS_FILE).read_text().splitlines()]


def test_a_job_with_trials_reuses_trial_zero_and_varies_the_others(tmp_path: Path) -> None:
    store = tmp_path / "store"
    base = ("benchmark=smoke", "benchmark.limit=4", "agent=sim_sloppy", f"store.root={store}")
    single = run_job(compose_config(*base), tmp_path / "one")
    assert single.trials == 1 and single.pass_hat_k == {}
    summary = run_job(compose_config(*base, "run.trials=3"), tmp_path / "three")
    rows = _rows(tmp_path / "three")
    assert [(r.scenario_id, r.trial) for r in rows] == [
        (s, t) for s in dict.fromkeys(r.scenario_id for r in rows) for t in range(3)
    ]
    assert summary.scenarios == len(rows) == 12 and summary.trials == 3
    first = {r.scenario_id: r for r in _rows(tmp_path / "one")}
    for row in rows:
        if row.trial == 0:  # the stored rollout of the run without trials, not a new conversation
            assert row.rollout_key == first[row.scenario_id].rollout_key
            assert row.usage["agent"].calls == 0 and row.usage["agent"].cache_hits > 0
        else:
            assert row.usage["agent"].calls > 0
    assert len({r.rollout_key for r in rows}) == 12
    # The simulated agent draws its per-conversation lapses from the trial's seed: transcripts differ.
    assert summary.usage["judge"].calls + summary.usage["judge"].cache_hits >= 8
    counts = task_counts((r.scenario_id, r.passed) for r in rows)
    assert summary.pass_hat_k == {str(k): mean_pass_hat_k(counts, k) for k in (1, 2, 3)}
    assert summary.pass_hat_k["1"] == summary.pass_rate
    again = run_job(compose_config(*base, "run.trials=3"), tmp_path / "again")
    assert again.usage["agent"].calls == 0  # every trial is stored on its own
    assert [r.passed for r in _rows(tmp_path / "again")] == [r.passed for r in rows]


def test_the_dry_run_estimate_counts_every_trial(tmp_path: Path) -> None:
    from hydra import compose, initialize_config_module

    from skillbench.plan.estimate import estimate_run
    from skillbench.plan.sweep import ComposedJob, plan_jobs

    def planned(*overrides: str):
        with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
            cfg = compose("config", overrides=list(overrides), return_hydra_config=False)
        return plan_jobs([ComposedJob(list(overrides), cfg)])

    one = estimate_run(planned("benchmark=smoke"), tmp_path / "outputs")
    four = estimate_run(planned("benchmark=smoke", "run.trials=4"), tmp_path / "outputs")
    assert four.jobs[0].conversations == 4 * one.jobs[0].conversations == 4 * 14
    assert four.calls == 4 * one.calls
