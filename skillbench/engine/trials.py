"""Repeated trials: k rollouts of each scenario, each with its own seed, and the pass^k / pass@k estimators.

Trial 0 is the rollout a job without trials makes (same seed, same rollout key, so stored rollouts are
reused); trial t > 0 draws its seed from ``(run.seed, t)``, so every trial is a distinct, reproducible
conversation: the agent's and user simulator's requests carry it (a provider's ``seed`` parameter; the
simulated models draw their per-conversation choices from it) and so do the mock's seeded failures.

The estimators are the unbiased ones from n ≥ k trials of a task with c successes (docs/reports.md):
pass^k = C(c, k) / C(n, k), the chance that k trials drawn without replacement all pass, and
pass@k = 1 − C(n − c, k) / C(n, k), the chance that at least one of them passes.

**One population for every k** (:class:`TrialPopulation`): every k of one agent × judge averages over the same
scenarios, those with a scored trial (the scenarios of its pass rate in Table 1), and k goes up to the fewest scored
trials of any of them, as τ²-bench caps k at its smallest trial count. A scenario with fewer scored trials (judge or
infrastructure errors, a budget stop) therefore lowers the largest k instead of leaving some k's means: averaging each
k over whichever scenarios reach it made pass@3 < pass@2 possible and pass^1 differ from the pass rate for no reason
a reader could see. This module is the one implementation: the job's summary and the report's Table 1b call it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from math import comb


def trial_seed(seed: int, trial: int) -> int:
    """The seed of trial ``trial`` of a job seeded ``seed``: ``seed`` itself for trial 0, else a stable 31-bit hash."""
    if trial == 0:
        return seed
    digest = hashlib.sha256(f"skillbench-trial:{seed}:{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of pass^k (all of k trials pass) from c passes in n ≥ k trials: C(c,k)/C(n,k)."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of pass@k (at least one of k trials passes) from c passes in n ≥ k trials: 1 − C(n−c,k)/C(n,k)."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")


def task_counts(verdicts: Iterable[tuple[str, bool | None]]) -> dict[str, tuple[int, int]]:
    """(task, verdict) pairs → task → (n scored trials, c passes); unscored verdicts (None) are left out."""
    counts: dict[str, list[int]] = {}
    for task, passed in verdicts:
        if passed is None:
            continue
        n_c = counts.setdefault(task, [0, 0])
        n_c[0] += 1
        n_c[1] += bool(passed)
    return {task: (n, c) for task, (n, c) in counts.items()}


Estimator = Callable[[int, int, int], float]


@dataclass(frozen=True)
class TrialPopulation:
    """The scenarios every pass^k and pass@k of one agent × judge averages over, and how far k goes."""

    counts: dict[str, tuple[int, int]]  # scenario → (n scored trials, c passes), every scenario with a scored trial
    planned: int  # the trials the run asked for (run.trials), or the most any scenario has when unknown

    @property
    def scenarios(self) -> int:
        return len(self.counts)

    @property
    def max_k(self) -> int:
        """The largest k every scenario supports: the fewest scored trials of any (τ²-bench's cap); 0 without any."""
        return min((n for n, _ in self.counts.values()), default=0)

    @property
    def most(self) -> int:
        """The most scored trials of any scenario."""
        return max((n for n, _ in self.counts.values()), default=0)

    @property
    def short(self) -> dict[str, int]:
        """Scenarios with fewer scored trials than planned → their scored trials (what lowered the cap)."""
        return {s: n for s, (n, _) in sorted(self.counts.items()) if n < self.planned}

    @property
    def passes(self) -> int:
        return sum(c for _, c in self.counts.values())

    @property
    def scored(self) -> int:
        return sum(n for n, _ in self.counts.values())

    def cap_note(self) -> str:
        """Why k stops below the planned trials, in one sentence ('' when it does not)."""
        return cap_note(self.max_k, self.planned, self.scenarios, self.short)

    def values(self, estimator: Estimator, k: int) -> dict[str, float]:
        """Each scenario's estimate at k (empty for k above the cap: no k is averaged over a subset)."""
        if not 1 <= k <= self.max_k:
            return {}
        return {s: estimator(n, c, k) for s, (n, c) in self.counts.items()}

    def mean(self, estimator: Estimator, k: int) -> float | None:
        """The estimate at k over every scenario; None for k above the cap."""
        values = self.values(estimator, k)
        return sum(values.values()) / len(values) if values else None

    def consistent(self) -> dict[str, float]:
        """Per scenario, 1.0 when its scored trials all got the same verdict (empty when the cap is below 2)."""
        if self.max_k < 2:
            return {}
        return {s: float(c in (0, n)) for s, (n, c) in self.counts.items()}


def cap_note(max_k: int, planned: int, scenarios: int, short: dict[str, int], listed: int = 5) -> str:
    """Why k stops at ``max_k`` below ``planned`` trials: the scenarios short of trials (scenario → scored trials)."""
    if not short or not scenarios:
        return ""
    named = ", ".join(f"{s} ({n})" for s, n in list(short.items())[:listed]) + (", …" if len(short) > listed else "")
    return (f"k stops at {max_k}, the fewest scored trials of any scenario: {len(short)} of {scenarios} scenario(s) "
            f"have fewer than {planned} ({named}; judge or infrastructure errors, or a stop). A rerun fills in "
            "infrastructure errors")


def trial_population(counts: dict[str, tuple[int, int]], planned: int | None = None) -> TrialPopulation:
    """The population of ``counts`` (:func:`task_counts`); ``planned``: the run's trials, when known."""
    most = max((n for n, _ in counts.values()), default=0)
    return TrialPopulation(counts=dict(counts), planned=max(planned or 0, most))


def mean_pass_hat_k(counts: dict[str, tuple[int, int]], k: int) -> float | None:
    """pass^k over every task of ``counts``: the mean of C(c,k)/C(n,k); None for k above the fewest trials of any."""
    return trial_population(counts).mean(pass_hat_k, k)


def mean_pass_at_k(counts: dict[str, tuple[int, int]], k: int) -> float | None:
    """pass@k over every task of ``counts``: the mean of 1 − C(n−c,k)/C(n,k); None for k above the cap."""
    return trial_population(counts).mean(pass_at_k, k)
