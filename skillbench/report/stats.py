"""Agreement and test statistics used by the reports, with their degenerate cases defined (the intervals and the
bootstrap are ``report/resampling.py``'s).

Conventions (documented in docs/reports.md):

* Cohen's κ is ``(p_o - p_e) / (1 - p_e)``. When ``p_e == 1`` (both judges gave one and the same
  verdict to every shared transcript) κ is 0/0 and is reported as ``None`` ("undefined: no
  variance"), never as 1; percent agreement (100 %) is still reported. When one judge is constant
  and the other is not, ``p_e < 1`` and κ is well defined (it is 0, as scikit-learn gives).
* No shared transcripts → agreement and κ are ``None`` with ``n = 0``.
* Fleiss' κ and Krippendorff's α are ``None`` when expected disagreement is zero or there are no
  pairable ratings.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from skillbench.report.defaults import DEFAULT_LEVEL
from skillbench.report.resampling import mean_share_interval, percentile_ci, share_interval


def mean_or_none(values: Sequence[float]) -> float | None:
    """The mean; None when there is nothing to average (a missing figure, never a 0)."""
    return float(np.mean(values)) if values else None


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Share of items on which two raters agree; None for no items."""
    if len(a) != len(b):
        raise ValueError("raters must rate the same items")
    if not a:
        return None
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two raters over the same items; None when empty or undefined (p_e == 1)."""
    if len(a) != len(b):
        raise ValueError("raters must rate the same items")
    n = len(a)
    if n == 0:
        return None
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    p_e = sum(count_a[k] * count_b[k] for k in count_a) / (n * n)
    if math.isclose(p_e, 1.0):
        return None
    return (p_o - p_e) / (1.0 - p_e)


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' κ from an items × categories matrix of rating counts (same number of raters per item).

    None when there are no items, fewer than two raters, or expected agreement is 1 (no variance).
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return None
    raters = counts.sum(axis=1)
    if not np.allclose(raters, raters[0]) or raters[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of raters for every item")
    n, m = counts.shape[0], raters[0]
    p_j = counts.sum(axis=0) / (n * m)
    p_i = ((counts**2).sum(axis=1) - m) / (m * (m - 1))
    p_bar, p_e = p_i.mean(), float((p_j**2).sum())
    if math.isclose(p_e, 1.0):
        return None
    return float((p_bar - p_e) / (1.0 - p_e))


def krippendorff_alpha_nominal(units: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's α (nominal) from per-unit rating lists; None values are missing ratings.

    Units with fewer than two ratings are not pairable and are skipped. None when no pairable
    ratings remain or expected disagreement is zero (every rating the same value).
    """
    categories: dict[Hashable, int] = {}
    for unit in units:
        for value in unit:
            if value is not None:
                categories.setdefault(value, len(categories))
    counts = np.zeros((len(units), len(categories)))
    for row, unit in enumerate(units):
        for value in unit:
            if value is not None:
                counts[row, categories[value]] += 1
    return krippendorff_alpha_nominal_counts(counts)


def krippendorff_alpha_nominal_counts(counts: np.ndarray) -> float | None:
    """Krippendorff's α (nominal) from a units × categories matrix of how many raters gave each value.

    The coincidence matrix is o[c, k] = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1) over the units with
    m_u ≥ 2 ratings; α = 1 − D_o / D_e as in ``krippendorff_alpha_nominal``.
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2 or counts.size == 0:
        return None
    raters = counts.sum(axis=1)
    pairable = counts[raters >= 2]
    if pairable.shape[0] == 0:
        return None
    weights = 1.0 / (pairable.sum(axis=1) - 1.0)
    coincidence = (pairable * weights[:, None]).T @ pairable - np.diag((pairable * weights[:, None]).sum(axis=0))
    total = float(coincidence.sum())
    if total == 0:
        return None
    marginals = coincidence.sum(axis=1)
    observed = float(coincidence.sum() - np.trace(coincidence)) / total
    expected = float(marginals.sum() ** 2 - (marginals**2).sum()) / (total * (total - 1))
    if expected == 0:
        return None
    return 1.0 - observed / expected


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Kendall's τ-b between two score lists over the same items; None if < 2 items or undefined.

    The same integers and the same floating-point steps as ``scipy.stats.kendalltau`` (1.17), so the
    value is bit-identical (tests/report/test_stats.py compares them); computed here by counting pairs
    (a report ranks at most a few dozen models) because importing scipy.stats costs a report ~0.7 s
    CPU and ~65 MB.
    """
    if len(a) != len(b):
        raise ValueError("rankings must cover the same items")
    n = len(a)
    if n < 2:
        return None
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    dx = np.sign(x[:, None] - x[None, :])[np.triu_indices(n, 1)]
    dy = np.sign(y[:, None] - y[None, :])[np.triu_indices(n, 1)]
    total = n * (n - 1) // 2
    x_ties, y_ties = int((dx == 0).sum()), int((dy == 0).sum())
    if x_ties == total or y_ties == total:
        return None  # one ranking is constant: τ is undefined (SciPy gives NaN)
    concordant_minus_discordant = int((dx * dy).sum())
    tau = concordant_minus_discordant / np.sqrt(total - x_ties) / np.sqrt(total - y_ties)
    tau = float(np.minimum(1.0, max(-1.0, tau)))
    return None if math.isnan(tau) else tau


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (binomial test, SciPy). 1.0 when b+c == 0."""
    if b + c == 0:
        return 1.0
    from scipy import stats as scipy_stats  # only `diff` needs it; the report path stays without scipy

    return float(scipy_stats.binomtest(b, b + c, 0.5, alternative="two-sided").pvalue)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1), in the input order."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


# Agreement of a verdict with a reference label (people's pass/fail), with the planted-defect lab's figures. The
# positive class is a failure, as in the lab: sensitivity = share of the reference's failures the verdict also
# fails, specificity = share of the reference's passes it also passes.
AGREEMENT_FIGURES: tuple[str, ...] = ("accuracy", "kappa", "sensitivity", "specificity", "balanced_accuracy")


@dataclass(frozen=True)
class LabelAgreement:
    """One verdict against reference labels: counts, the five figures and a CI for each (report/resampling.py)."""

    n: int
    both_pass: int
    reference_pass_verdict_fail: int
    reference_fail_verdict_pass: int
    both_fail: int
    figures: dict[str, float | None]
    cis: dict[str, tuple[float | None, float | None]]


def _figures(tp: np.ndarray, fn: np.ndarray, fp: np.ndarray, tn: np.ndarray) -> dict[str, np.ndarray]:
    """The figures from (weighted) confusion counts, elementwise; NaN where undefined. tp: both fail; fn: the
    reference fails, the verdict passes; fp: the reference passes, the verdict fails; tn: both pass."""
    with np.errstate(invalid="ignore", divide="ignore"):
        n = tp + fn + fp + tn
        accuracy = np.where(n > 0, (tp + tn) / np.where(n > 0, n, 1), np.nan)
        sensitivity = np.where(tp + fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1), np.nan)
        specificity = np.where(tn + fp > 0, tn / np.where(tn + fp > 0, tn + fp, 1), np.nan)
        expected = np.where(n > 0, ((tp + fn) * (tp + fp) + (tn + fp) * (tn + fn)) / np.where(n > 0, n * n, 1), np.nan)
        undefined = np.isnan(expected) | np.isclose(expected, 1.0)
        kappa = np.where(undefined, np.nan, (accuracy - expected) / np.where(undefined, 1, 1 - expected))
    return {"accuracy": accuracy, "kappa": kappa, "sensitivity": sensitivity, "specificity": specificity,
            "balanced_accuracy": (sensitivity + specificity) / 2}


def label_agreement(reference: Sequence[bool], verdict: Sequence[bool], units: Sequence[int], weights: np.ndarray,
                    level: float = DEFAULT_LEVEL) -> LabelAgreement:
    """``verdict`` against ``reference`` over the same items; ``units[i]`` is item i's cluster, its column of
    ``weights`` (a scenario or an imported task, so its trials move together). κ is :func:`cohen_kappa`'s (None when
    undefined); a figure with no item of its class (no reference failure: no sensitivity) is None.

    CIs (report/resampling.py): accuracy, sensitivity and specificity are shares, balanced accuracy the mean of two,
    so each gets the exact interval at its effective size over the clusters; κ gets the percentile bootstrap."""
    if not (len(reference) == len(verdict) == len(units)):
        raise ValueError("reference, verdict and units must cover the same items")
    cells = np.zeros((weights.shape[1] if weights.ndim == 2 else 0, 4))
    for ref, got, unit in zip(reference, verdict, units, strict=True):
        cells[unit, (not ref) * 2 + (not got)] += 1  # columns: both pass, ref pass/verdict fail, ref fail/pass, both fail
    totals = cells.sum(axis=0)
    point = _figures(*(np.array([totals[i]]) for i in (3, 2, 1, 0)))
    figures = {name: None if np.isnan(values[0]) else float(values[0]) for name, values in point.items()}
    cis = dict.fromkeys(AGREEMENT_FIGURES, (None, None))
    if not len(reference):
        return LabelAgreement(0, 0, 0, 0, 0, figures, cis)
    figures["kappa"] = cohen_kappa(list(reference), list(verdict))  # the one definition, degenerate cases included
    both_pass, both_fail = cells[:, 0], cells[:, 3]
    reference_pass, reference_fail = cells[:, 0] + cells[:, 1], cells[:, 2] + cells[:, 3]
    cis["accuracy"] = share_interval(both_pass + both_fail, cells.sum(axis=1), level)
    if figures["sensitivity"] is not None:
        cis["sensitivity"] = share_interval(both_fail, reference_fail, level)
    if figures["specificity"] is not None:
        cis["specificity"] = share_interval(both_pass, reference_pass, level)
    if figures["balanced_accuracy"] is not None:
        cis["balanced_accuracy"] = mean_share_interval(np.column_stack([both_fail, both_pass]),
                                                       np.column_stack([reference_fail, reference_pass]), level)
    if figures["kappa"] is not None and weights.size:
        drawn = weights @ cells
        cis["kappa"] = percentile_ci(_figures(drawn[:, 3], drawn[:, 2], drawn[:, 1], drawn[:, 0])["kappa"], level)
    return LabelAgreement(len(reference), int(totals[0]), int(totals[1]), int(totals[2]), int(totals[3]), figures, cis)
