"""Coverage of the report's 95 % intervals for a share, by simulation: how often the interval holds the true rate.

    python benchmarks/interval_coverage.py               # 10,000 simulated data sets per case (about 1 minute)
    python benchmarks/interval_coverage.py --sets 2000   # quicker, noisier

Two tables, each a row per case and a column per method:

* **Independent rows** (one trial per scenario): n scenarios, each passing with probability p. Methods: skillbench's
  interval (``report/resampling.py share_intervals``: here exactly Clopper–Pearson), the percentile bootstrap the
  report used before (2,000 draws over scenarios, its default), and Wilson's score interval for reference.
* **Clustered rows** (4 trials per scenario): each scenario's own pass probability is drawn from a beta distribution
  with mean p and intra-scenario correlation ρ, then its 4 trials from it. Methods: skillbench's interval (clusters:
  the scenarios), Clopper–Pearson on the rows as if independent, and the percentile bootstrap over scenarios.

A method "holds" a case when its coverage is at least 95 % less the simulation's noise (about 0.5 points at 10,000
sets). Not a test (tests/report/test_resampling.py runs a smaller grid in seconds); docs/reports.md quotes this table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillbench.report.resampling import bootstrap_weights, ratio_draws_many, share_intervals

LEVEL = 0.95
Z = 1.959963984540054


def wilson(passes: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = passes / n
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z * np.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2)) / (1 + Z**2 / n)
    return centre - half, centre + half


def bootstrap(num: np.ndarray, den: np.ndarray, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """The percentile bootstrap over clusters (the report's before this change), in chunks of data sets."""
    weights = bootstrap_weights(num.shape[0], draws, 0)
    lows, highs = [], []
    for start in range(0, num.shape[1], 500):
        found = ratio_draws_many(weights, num[:, start:start + 500], den[:, start:start + 500])
        with np.errstate(all="ignore"):
            low, high = np.nanpercentile(found, [2.5, 97.5], axis=1)
        lows.append(low)
        highs.append(high)
    return np.concatenate(lows), np.concatenate(highs)


def coverage(low: np.ndarray, high: np.ndarray, p: float) -> float:
    return float(np.mean((low <= p + 1e-12) & (p - 1e-12 <= high)))


def independent_rows(sets: int, rng: np.random.Generator) -> list[list[str]]:
    rows = []
    for p in (0.0, 0.02, 0.5):
        for n in (5, 20, 71):
            num = (rng.random((n, sets)) < p).astype(float)
            den = np.ones((n, sets))
            ours = coverage(*share_intervals(num, den, LEVEL), p)
            boot = coverage(*bootstrap(num, den, 2000), p)
            wil = coverage(*wilson(num.sum(axis=0), den.sum(axis=0)), p)
            width = float(np.mean(np.subtract(*share_intervals(num, den, LEVEL)[::-1])))
            rows.append([f"{p:g}", str(n), f"{ours:.1%}", f"{width * 100:.1f}", f"{boot:.1%}", f"{wil:.1%}"])
    return rows


def clustered_rows(sets: int, rng: np.random.Generator, trials: int = 4) -> list[list[str]]:
    rows = []
    for rho in (0.3, 0.7):
        for p in (0.02, 0.2, 0.5):
            for scenarios in (5, 20, 71):
                a, b = p * (1 / rho - 1), (1 - p) * (1 / rho - 1)
                per_scenario = rng.beta(a, b, size=(scenarios, sets))
                num = rng.binomial(trials, per_scenario).astype(float)
                den = np.full((scenarios, sets), float(trials))
                ours = coverage(*share_intervals(num, den, LEVEL), p)
                # every trial a row of its own: the interval that ignores the clusters
                flat = (np.arange(trials)[:, None, None] < num[None]).reshape(trials * scenarios, sets).astype(float)
                naive = coverage(*share_intervals(flat, np.ones_like(flat), LEVEL), p)
                boot = coverage(*bootstrap(num, den, 2000), p)
                rows.append([f"{rho:g}", f"{p:g}", str(scenarios), f"{ours:.1%}", f"{naive:.1%}", f"{boot:.1%}"])
    return rows


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=10_000, help="simulated data sets per case (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"Independent rows: coverage of the 95 % interval over {args.sets:,} binomial data sets per case\n")
    print(table(["p", "n", "skillbench (Clopper–Pearson)", "its mean width (points)", "percentile bootstrap (before)",
                 "Wilson"], independent_rows(args.sets, rng)))
    print(f"\nClustered rows: 4 trials per scenario, scenario rates ~ beta(mean p, correlation ρ), {args.sets:,} data sets "
          "per case\n")
    print(table(["ρ", "p", "scenarios", "skillbench (clusters)", "rows as independent", "percentile bootstrap"],
                clustered_rows(args.sets, rng)))


if __name__ == "__main__":
    main()
