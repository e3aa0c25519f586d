"""Statistics against scikit-learn, SciPy and hand computation, including the degenerate cases."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score

from skillbench.report import stats


@pytest.mark.parametrize("seed", range(8))
def test_cohen_kappa_matches_sklearn_on_random_verdicts(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(5, 60)
    a = [rng.random() < 0.6 for _ in range(n)]
    b = [x if rng.random() < 0.7 else not x for x in a]
    assert stats.cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))


def test_cohen_kappa_crafted_values() -> None:
    # κ = 1: identical verdicts with variance.
    assert stats.cohen_kappa([True, False, True, False], [True, False, True, False]) == pytest.approx(1.0)
    # κ = 0: verdicts independent by construction (p_o = p_e = 0.5).
    a, b = [True, True, False, False], [True, False, True, False]
    assert stats.cohen_kappa(a, b) == pytest.approx(0.0)
    assert cohen_kappa_score(a, b) == pytest.approx(0.0)
    # κ = -1: always opposite.
    assert stats.cohen_kappa([True, False, True, False], [False, True, False, True]) == pytest.approx(-1.0)
    # Negative, by hand: p_o = 1/3, p_e = (1/3)(1/3) + (2/3)(2/3) = 5/9 → κ = (3/9 - 5/9) / (4/9) = -0.5.
    a, b = [True, False, False], [False, True, False]
    assert stats.cohen_kappa(a, b) == pytest.approx(-0.5)
    assert cohen_kappa_score(a, b) == pytest.approx(-0.5)


def test_cohen_kappa_one_judge_always_passing_is_zero() -> None:
    always = [True] * 6
    other = [True, False, True, True, False, True]
    # p_e = p_o = share of passes of the other judge → κ = 0, defined (sklearn agrees).
    assert stats.cohen_kappa(always, other) == pytest.approx(0.0)
    assert cohen_kappa_score(always, other) == pytest.approx(0.0)


def test_cohen_kappa_zero_variance_is_undefined_not_one() -> None:
    same = [True] * 5
    with pytest.warns(Warning):
        assert math.isnan(cohen_kappa_score(same, same))  # sklearn: 0/0
    assert stats.cohen_kappa(same, same) is None
    assert stats.percent_agreement(same, same) == 1.0
    # Both constant but opposite: p_e = 0 → κ = 0 - 0 = 0 (defined).
    assert stats.cohen_kappa([True] * 4, [False] * 4) == pytest.approx(0.0)


def test_empty_overlap_gives_none() -> None:
    assert stats.cohen_kappa([], []) is None
    assert stats.percent_agreement([], []) is None


def test_fleiss_kappa_wikipedia_example() -> None:
    # Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories → κ ≈ 0.210.
    counts = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    assert stats.fleiss_kappa(counts) == pytest.approx(0.2099, abs=5e-4)


def test_fleiss_kappa_degenerate_and_two_raters() -> None:
    assert stats.fleiss_kappa(np.array([[3, 0], [3, 0]])) is None  # everyone always passes: undefined
    assert stats.fleiss_kappa(np.array([[3, 0], [0, 3]])) == pytest.approx(1.0)
    assert stats.fleiss_kappa(np.zeros((0, 2))) is None
    # Two raters: Fleiss' κ is Scott's π. a=[1,1,0,0], b=[1,0,0,0]: p_o = 3/4, pooled p = 3/8,
    # p_e = (3/8)^2 + (5/8)^2 = 34/64 → π = (48/64 - 34/64) / (30/64) = 14/30.
    counts = np.array([[2, 0], [1, 1], [0, 2], [0, 2]])
    assert stats.fleiss_kappa(counts) == pytest.approx(14 / 30)
    with pytest.raises(ValueError):
        stats.fleiss_kappa(np.array([[2, 0], [1, 0]]))


def test_krippendorff_alpha_reference_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers, 12 units,
    # missing values, nominal α = 0.743.
    rows = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    units = [list(unit) for unit in zip(*rows, strict=True)]
    assert stats.krippendorff_alpha_nominal(units) == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_alpha_degenerate() -> None:
    assert stats.krippendorff_alpha_nominal([[True, True], [True, True]]) is None  # no variance
    assert stats.krippendorff_alpha_nominal([[True], [False, None]]) is None  # nothing pairable
    assert stats.krippendorff_alpha_nominal([[True, True], [False, False]]) == pytest.approx(1.0)


def _alpha_pair_by_pair(units: list[list[object]]) -> float:
    """Krippendorff's α (nominal) by its definition: every ordered pair of ratings within a unit."""
    pairs: list[tuple[object, object, float]] = []
    for unit in units:
        values = [v for v in unit if v is not None]
        pairs += [(x, y, 1 / (len(values) - 1)) for i, x in enumerate(values) for j, y in enumerate(values) if i != j]
    total = sum(w for *_, w in pairs)
    marginal: dict[object, float] = {}
    for x, _, w in pairs:
        marginal[x] = marginal.get(x, 0.0) + w
    observed = sum(w for x, y, w in pairs if x != y) / total
    expected = sum(marginal[x] * marginal[y] for x in marginal for y in marginal if x != y) / (total * (total - 1))
    return 1 - observed / expected


def test_krippendorff_alpha_counts_equal_the_pairwise_definition() -> None:
    """The report computes α from a transcripts × verdicts count matrix; on random panels with missing
    ratings it equals α counted pair by pair, and the list form gives the same."""
    rng = np.random.default_rng(7)
    for raters, categories in ((2, 2), (5, 2), (4, 3)):
        ratings = rng.integers(0, categories, size=(300, raters)).astype(object)
        ratings[rng.random(ratings.shape) < 0.25] = None
        units = [list(unit) for unit in ratings]
        counts = np.array([[unit.count(c) for c in range(categories)] for unit in units])
        expected = _alpha_pair_by_pair(units)
        assert stats.krippendorff_alpha_nominal_counts(counts) == pytest.approx(expected, rel=1e-12)
        assert stats.krippendorff_alpha_nominal(units) == pytest.approx(expected, rel=1e-12)


def test_kendall_tau_matches_scipy_and_degenerate_cases() -> None:
    a, b = [0.9, 0.5, 0.4, 0.1], [0.8, 0.6, 0.1, 0.2]
    assert stats.kendall_tau(a, b) == pytest.approx(scipy_stats.kendalltau(a, b).statistic)
    assert stats.kendall_tau([0.5, 0.5, 0.1], [0.4, 0.3, 0.1]) == pytest.approx(
        scipy_stats.kendalltau([0.5, 0.5, 0.1], [0.4, 0.3, 0.1]).statistic
    )
    assert stats.kendall_tau([0.5], [0.2]) is None
    assert stats.kendall_tau([0.5, 0.5], [0.1, 0.2]) is None  # constant ranking: undefined


def test_mcnemar_exact() -> None:
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(5, 0) == pytest.approx(2 * 0.5**5)
    assert stats.mcnemar_exact(7, 2) == pytest.approx(scipy_stats.binomtest(7, 9, 0.5).pvalue)
    assert stats.mcnemar_exact(3, 3) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(6))
def test_kendall_tau_is_bit_identical_to_scipy(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 17)
    # Pass rates on a coarse grid, so ties in either ranking are common.
    a = [rng.randint(0, 8) / 8 for _ in range(n)]
    b = [rng.randint(0, 8) / 8 for _ in range(n)]
    expected = scipy_stats.kendalltau(a, b).statistic
    got = stats.kendall_tau(a, b)
    assert (got is None and math.isnan(expected)) or got == float(expected)


def test_label_agreement_matches_its_definitions() -> None:
    """Failure is the positive class: sensitivity = failures caught, specificity = passes kept; κ is cohen_kappa's,
    and every bootstrap draw that repeats the data exactly gives its point figure; the shares get the exact interval
    of their counts (one item per cluster: Clopper–Pearson)."""
    from skillbench.report.resampling import bootstrap_weights
    from skillbench.report.stats import cohen_kappa, label_agreement

    human = [True, True, True, False, False, False, False, True]
    verdict = [True, False, True, False, True, False, False, True]
    units = list(range(len(human)))
    found = label_agreement(human, verdict, units, np.ones((5, len(human))))
    assert (found.both_pass, found.reference_pass_verdict_fail, found.reference_fail_verdict_pass, found.both_fail) == (3, 1, 1, 3)
    assert found.figures["accuracy"] == 6 / 8 and found.figures["sensitivity"] == 3 / 4 and found.figures["specificity"] == 3 / 4
    assert found.figures["balanced_accuracy"] == 3 / 4 and found.figures["kappa"] == pytest.approx(cohen_kappa(human, verdict))
    assert found.cis["kappa"] == pytest.approx((found.figures["kappa"],) * 2)
    exact = scipy_stats.binomtest(6, 8).proportion_ci(method="exact")
    assert found.cis["accuracy"] == pytest.approx((exact.low, exact.high))
    caught = scipy_stats.binomtest(3, 4).proportion_ci(method="exact")
    assert found.cis["sensitivity"] == pytest.approx((caught.low, caught.high))
    low, high = found.cis["balanced_accuracy"]
    assert low < 3 / 4 < high
    none_failed = label_agreement([True, True], [True, False], [0, 1], bootstrap_weights(2, 50, 0))
    assert none_failed.figures["sensitivity"] is None and none_failed.cis["sensitivity"] == (None, None)
