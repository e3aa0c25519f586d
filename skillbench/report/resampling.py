"""How skillbench states its uncertainty, for the report, ``compare`` and the judge lab alike: one module, one default
number of draws and one seed (``report/defaults.py``).

The unit that is resampled is always a **cluster**: what the data were sampled by. A scenario with all its trials, an
imported task with all its conversations, a source rollout with its planted variants. Rows of one cluster are never
counted as independent.

Two kinds of interval (docs/reports.md, "Confidence intervals"):

* **A share** (a pass rate, a rule-based rate, pass^k, pass@k, consistency, accuracy, sensitivity, specificity, and
  the mean of such shares: the mean over judges, balanced accuracy) gets the **Clopper–Pearson interval at its
  effective sample size** (Korn & Graubard 1998, the interval NCHS uses for clustered survey proportions). The
  effective size is the share's p(1 − p) over its cluster-robust variance, times (z / t_{clusters−1})², kept between
  the Kish number of clusters (every trial of a scenario the same) and the number of rows (every row independent).
  Without clusters (one row per scenario) it is exactly the Clopper–Pearson interval; at 0 % and 100 % the size is
  the number of clusters, so 0 of 71 scenarios gives [0, 5.1 %], never [0, 0]; so it is when the passes (or the
  fails) sit in fewer than two clusters, where the variance cannot see how alike a cluster's rows are. Clopper–Pearson
  never covers less than its level at any p and n; ``benchmarks/interval_coverage.py`` prints the simulated coverage,
  clustered cases included.
* **Anything else** (a difference of two means, Cohen's κ, a rank) gets the **percentile interval of the cluster
  bootstrap**: one set of draws (``bootstrap_weights``) shared by every statistic of a report, so differences are
  paired (both agents see the same resampled scenarios) and the numbers are reproducible.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv, ndtri, stdtrit

from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_LEVEL, DEFAULT_SEED

__all__ = [
    "DEFAULT_DRAWS", "DEFAULT_LEVEL", "DEFAULT_SEED", "bootstrap_weights", "exact_interval", "mean_share_interval",
    "percentile_ci", "ratio_draws", "ratio_draws_many", "share_interval", "share_intervals",
]  # fmt: skip

Interval = tuple[float | None, float | None]


def bootstrap_weights(n_items: int, n_boot: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Multiplicity of each cluster in each bootstrap draw (n_boot × n_items), seeded.

    Every statistic of one report uses the same draws, so differences between models are paired.
    """
    if n_items == 0 or n_boot == 0:
        return np.zeros((n_boot, n_items))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_items, size=(n_boot, n_items))
    offsets = (np.arange(n_boot) * n_items)[:, None]
    flat = np.bincount((draws + offsets).ravel(), minlength=n_boot * n_items)
    return flat.reshape(n_boot, n_items).astype(float)


def percentile_ci(samples: np.ndarray, level: float = DEFAULT_LEVEL) -> Interval:
    """Percentile interval of bootstrap samples, ignoring NaN draws; (None, None) if all are NaN."""
    samples = np.asarray(samples, dtype=float)
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return None, None
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(samples, [tail, 100.0 - tail])
    return float(low), float(high)


def ratio_draws(weights: np.ndarray, numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Per-draw ratio sum(w*num)/sum(w*den) over clusters; NaN where a draw has no denominator."""
    num = weights @ numerator
    den = weights @ denominator
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def ratio_draws_many(weights: np.ndarray, numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """``ratio_draws`` for many statistics at once: one row of draws per column of ``numerators``.

    One matrix product instead of one pass over the weight matrix per statistic (a 17 × 5 report asks
    for ~100). Equal to ``ratio_draws`` column by column whenever the sums are exact in float64, as
    they are for the report's counts (integers far below 2**53), whatever order BLAS adds them in.
    """
    num = (weights @ numerators).T
    den = (weights @ denominators).T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def exact_interval(successes: np.ndarray, n: np.ndarray, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson bounds for ``successes`` of ``n`` (elementwise; non-integer counts, as an effective sample size
    gives them, through the beta quantiles): [0, 1] where n is 0."""
    x, n = np.asarray(successes, dtype=float), np.asarray(n, dtype=float)
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(x > 0, betaincinv(np.maximum(x, 1e-300), np.maximum(n - x + 1, 1e-300), tail), 0.0)
        high = np.where(x < n, betaincinv(x + 1, np.maximum(n - x, 1e-300), 1.0 - tail), 1.0)
    empty = n <= 0
    return np.where(empty, 0.0, low), np.where(empty, 1.0, high)


def _effective(num: np.ndarray, den: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """(estimate, effective sample size) of the mean over parts of each share; ``num``/``den``: clusters × shares ×
    parts (a part: one judge of a mean over judges, sensitivity or specificity of balanced accuracy)."""
    totals = den.sum(axis=0)  # shares × parts
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.where(totals > 0, totals, 1.0)
        parts = num.sum(axis=0) / safe
        estimate = parts.mean(axis=1)
        # The linearised (cluster-robust) variance of the mean of ratios, and each cluster's weight in it.
        influence = ((num - parts[None] * den) / safe[None]).mean(axis=2)  # clusters × shares
        variance = (influence**2).sum(axis=0)
        weight = (den / safe[None]).mean(axis=2)
        kish = 1.0 / np.maximum((weight**2).sum(axis=0), 1e-300)  # clusters, as many as the weights allow
        rows = totals.max(axis=1)
        clusters = (weight > 0).sum(axis=0)
        z = ndtri(0.5 + level / 2.0)
        t = stdtrit(np.maximum(clusters - 1, 1), 0.5 + level / 2.0)
        adjusted = estimate * (1 - estimate) / np.where(variance > 0, variance, 1.0) * (z / t) ** 2
        # Clusters holding a pass, and clusters holding a fail (summed over parts).
        passing = (num.sum(axis=2) > 0).sum(axis=0)
        failing = (num.sum(axis=2) < den.sum(axis=2)).sum(axis=0)
    # When passes (or fails) sit in fewer than two clusters (0 % and 100 % included), or there is one cluster, the
    # variance cannot tell how alike a cluster's rows are: each cluster counts once (a single pass among 71
    # scenarios × 4 trials would otherwise read as 1 of 284 independent rows; benchmarks/interval_coverage.py).
    unknown = (np.minimum(passing, failing) < 2) | (clusters < 2)
    effective = np.where(unknown, kish, np.where(variance > 0, np.clip(adjusted, kish, rows), rows))
    return estimate, np.minimum(effective, rows)


def share_intervals(numerators: np.ndarray, denominators: np.ndarray,
                    level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """The interval of many shares at once: column g of ``numerators``/``denominators`` (clusters × shares) is one
    share's passes and scored rows per cluster. NaN bounds for a share with no row."""
    num = np.asarray(numerators, dtype=float)[:, :, None]
    den = np.asarray(denominators, dtype=float)[:, :, None]
    estimate, effective = _effective(num, den, level)
    low, high = exact_interval(estimate * effective, effective, level)
    empty = den.sum(axis=(0, 2)) <= 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def _interval(low: float, high: float) -> Interval:
    return (None, None) if np.isnan(low) or np.isnan(high) else (float(low), float(high))


def share_interval(numerator: np.ndarray, denominator: np.ndarray, level: float = DEFAULT_LEVEL) -> Interval:
    """The interval of one share from its passes and scored rows per cluster; (None, None) without rows."""
    low, high = share_intervals(np.asarray(numerator, dtype=float)[:, None], np.asarray(denominator, dtype=float)[:, None], level)
    return _interval(low[0], high[0])


def mean_share_interval(numerators: np.ndarray, denominators: np.ndarray, level: float = DEFAULT_LEVEL) -> Interval:
    """The interval of the mean of several shares over the same clusters (columns: the parts, e.g. one agent's judges;
    a part without rows is left out): the effective size is never above the largest part's rows, since averaging
    readings of the same conversations adds no conversation."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    present = den.sum(axis=0) > 0
    if not present.any():
        return None, None
    estimate, effective = _effective(num[:, None, present], den[:, None, present], level)
    low, high = exact_interval(estimate * effective, effective, level)
    return _interval(low[0], high[0])
