"""Repeated trials: k rollouts of each scenario, each with its own seed, and the pass^k / pass@k estimators.

Trial 0 is the rollout a job without trials makes (same seed, same rollout key, so stored rollouts are
reused); trial t > 0 draws its seed from ``(run.seed, t)``, so every trial is a distinct, reproducible
conversation: the agent's and user simulator's requests carry it (a provider's ``seed`` parameter; the
simulated models draw their per-conversation choices from it) and so do the mock's seeded failures.

The estimators are the unbiased ones from n ≥ k trials of a task with c successes (docs/reports.md):
pass^k = C(c, k) / C(n, k), the chance that k trials drawn without replacement all pass, and
pass@k = 1 − C(n − c, k) / C(n, k), the chance that at least one of them passes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
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


def mean_pass_hat_k(counts: dict[str, tuple[int, int]], k: int) -> float | None:
    """pass^k over tasks: the mean of C(c,k)/C(n,k) over tasks with n ≥ k scored trials (None if none has)."""
    return _mean_over_tasks(pass_hat_k, counts, k)


def mean_pass_at_k(counts: dict[str, tuple[int, int]], k: int) -> float | None:
    """pass@k over tasks: the mean of 1 − C(n−c,k)/C(n,k) over tasks with n ≥ k scored trials."""
    return _mean_over_tasks(pass_at_k, counts, k)


def _mean_over_tasks(estimator: Callable[[int, int, int], float], counts: dict[str, tuple[int, int]], k: int) -> float | None:
    values = [estimator(n, c, k) for n, c in counts.values() if n >= k]
    return sum(values) / len(values) if values else None
