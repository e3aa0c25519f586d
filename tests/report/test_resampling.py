"""The one resampling module: seeded cluster bootstrap, and intervals of shares that keep their coverage at 0 %,
100 %, in small groups and when rows share a scenario (coverage by simulation, in seconds)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from skillbench.report import resampling
from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_SEED
from skillbench.report.resampling import mean_share_interval, share_interval, share_intervals


def test_bootstrap_weights_are_seeded_multinomial_draws() -> None:
    w1 = resampling.bootstrap_weights(10, 200, seed=3)
    w2 = resampling.bootstrap_weights(10, 200, seed=3)
    assert np.array_equal(w1, w2)
    assert w1.shape == (200, 10)
    assert np.all(w1.sum(axis=1) == 10)
    assert not np.array_equal(w1, resampling.bootstrap_weights(10, 200, seed=4))
    assert resampling.bootstrap_weights(3).shape == (DEFAULT_DRAWS, 3)  # one default for report, compare and lab


def test_ratio_draws_and_percentile_ci() -> None:
    weights = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    draws = resampling.ratio_draws(weights, np.array([1.0, 0.0, 1.0]), np.array([1.0, 1.0, 1.0]))
    assert draws[0] == pytest.approx(0.5) and draws[1] == pytest.approx(1.0) and math.isnan(draws[2])
    assert resampling.percentile_ci(np.array([np.nan, np.nan])) == (None, None)
    low, high = resampling.percentile_ci(np.arange(101, dtype=float))
    assert low == pytest.approx(2.5) and high == pytest.approx(97.5)


def test_ratio_draws_many_equals_ratio_draws_per_column() -> None:
    rng = np.random.default_rng(1)
    weights = resampling.bootstrap_weights(40, 300, seed=2)
    numerators = rng.integers(0, 2, size=(40, 7)).astype(float)
    denominators = np.maximum(numerators, rng.integers(0, 2, size=(40, 7)))
    denominators[:, 3] = 0.0  # a statistic with no data: every draw NaN
    many = resampling.ratio_draws_many(weights, numerators, denominators)
    for column in range(7):
        single = resampling.ratio_draws(weights, numerators[:, column], denominators[:, column])
        assert np.array_equal(many[column], single, equal_nan=True)


@pytest.mark.parametrize("n", [1, 5, 20, 71])
def test_one_row_per_scenario_is_exactly_clopper_pearson(n: int) -> None:
    for passes in range(n + 1):
        exact = scipy_stats.binomtest(passes, n).proportion_ci(method="exact")
        got = share_interval(np.r_[np.ones(passes), np.zeros(n - passes)], np.ones(n))
        assert got == pytest.approx((exact.low, exact.high), abs=1e-9)


def test_zero_and_all_never_read_as_certainty() -> None:
    low, high = share_interval(np.zeros(71), np.ones(71))  # 0 of 71 scenarios (the decision audit's example)
    assert low == 0.0 and high == pytest.approx(0.0506, abs=1e-4)
    low, high = share_interval(np.full(20, 4.0), np.full(20, 4.0))  # 80 of 80 trials, but only 20 scenarios
    assert high == 1.0 and low == pytest.approx(scipy_stats.binomtest(20, 20).proportion_ci(method="exact").low)
    assert share_interval(np.zeros(3), np.zeros(3)) == (None, None)  # no row: no interval


@pytest.mark.parametrize("p", [0.0, 0.02, 0.5])
@pytest.mark.parametrize("n", [5, 20, 71])
def test_coverage_by_simulation_independent_rows(p: float, n: int) -> None:
    """10,000 binomial data sets per case: the 95 % interval holds the true rate at least 94 % of the time."""
    rng = np.random.default_rng(int(p * 1000) + n)
    passes = (rng.random((n, 10_000)) < p).astype(float)
    low, high = share_intervals(passes, np.ones_like(passes))
    assert np.mean((low <= p) & (p <= high)) >= 0.94


@pytest.mark.parametrize(("rho", "p", "scenarios"), [(0.3, 0.02, 71), (0.7, 0.02, 71), (0.7, 0.2, 20), (0.3, 0.5, 5),
                                                     (0.7, 0.5, 71)])
def test_coverage_by_simulation_when_trials_share_a_scenario(rho: float, p: float, scenarios: int) -> None:
    """4 trials per scenario, scenario rates ~ beta(mean p, intra-scenario correlation ρ): the interval over clusters
    holds, and treating the 4 trials as independent rows does not (benchmarks/interval_coverage.py: the full grid)."""
    rng = np.random.default_rng(7)
    a, b = p * (1 / rho - 1), (1 - p) * (1 / rho - 1)
    passes = rng.binomial(4, rng.beta(a, b, size=(scenarios, 10_000))).astype(float)
    low, high = share_intervals(passes, np.full_like(passes, 4.0))
    assert np.mean((low <= p) & (p <= high)) >= 0.94
    rows = (np.arange(4)[:, None, None] < passes[None]).reshape(4 * scenarios, -1).astype(float)
    low, high = share_intervals(rows, np.ones_like(rows))
    assert np.mean((low <= p) & (p <= high)) < 0.94


def test_clusters_widen_the_interval_only_as_much_as_their_rows_are_alike() -> None:
    alike = share_interval(np.array([4.0] * 10 + [0.0] * 10), np.full(20, 4.0))  # every trial as its scenario
    mixed = share_interval(np.array([2.0] * 20), np.full(20, 4.0))  # every scenario half passes
    rows = share_interval(np.r_[np.ones(40), np.zeros(40)], np.ones(80))
    scenarios = share_interval(np.r_[np.ones(10), np.zeros(10)], np.ones(20))
    assert alike == pytest.approx(scenarios)  # trials that always agree are one observation
    assert mixed == pytest.approx(rows)  # trials that vary as independent draws count as rows
    assert scenarios[1] - scenarios[0] > rows[1] - rows[0]


def test_a_mean_of_shares_over_the_same_scenarios() -> None:
    passes = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0])
    one = share_interval(passes, np.ones(8))
    same = mean_share_interval(np.column_stack([passes, passes]), np.ones((8, 2)))
    assert same == pytest.approx(one)  # two judges reading alike add no conversation
    low, high = mean_share_interval(np.column_stack([np.ones(8), np.zeros(8)]), np.ones((8, 2)))
    assert low < 0.5 < high
    assert mean_share_interval(np.zeros((3, 2)), np.zeros((3, 2))) == (None, None)


def test_the_lab_and_the_report_share_one_default() -> None:
    from skillbench.lab.cli import _parser

    args = _parser().parse_args(["validate"])
    assert (args.draws, args.seed) == (DEFAULT_DRAWS, DEFAULT_SEED)
