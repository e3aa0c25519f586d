"""Repeated trials: pass^k and pass@k per agent × judge with bootstrap CIs, and per-scenario consistency.

Applies when some row has ``trial > 0`` (``run.trials`` > 1). The estimators are the unbiased ones
(``skillbench/engine/trials.py``, docs/reports.md "Repeated trials"): per scenario with n scored trials of
which c pass, pass^k = C(c,k)/C(n,k) and pass@k = 1 − C(n−c,k)/C(n,k), averaged over the scenarios with
n ≥ k. CIs resample scenarios with the report's one set of bootstrap draws (``ReportRows.weights``).
Shown by ``skillbench/report/trial_tables.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from skillbench.engine.trials import pass_at_k, pass_hat_k
from skillbench.report import stats
from skillbench.report.model import TrialRate
from skillbench.report.rows import ReportRows


@dataclass
class TrialCell:
    """One agent × judge cell over repeated trials."""

    agent: str
    judge: str
    trials: int  # the most scored trials of any scenario in the cell
    scenarios: int  # scenarios with at least one scored trial
    counts: dict[str, tuple[int, int]]  # scenario → (n scored trials, c passes)
    pass_hat: dict[int, float | None] = field(default_factory=dict)
    pass_hat_ci: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)
    pass_at: dict[int, float | None] = field(default_factory=dict)
    pass_at_ci: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)
    consistency: float | None = None  # share of scenarios whose scored trials all agree (n ≥ 2)
    consistency_ci: tuple[float | None, float | None] = (None, None)


def has_trials(rows: ReportRows) -> bool:
    """Some row has trial > 0 (a report read back from report.json re-reads its rows: see ReportRows)."""
    frame = rows.frame
    return not frame.empty and "trial" in frame and bool((frame["trial"] > 0).any())


def scenario_counts(cell_rows: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Scenario → (n scored trials, c passes) over ``cell_rows`` (one agent × judge); NA verdicts left out."""
    scored = cell_rows[cell_rows["passed"].notna()]
    grouped = scored.groupby("scenario_id")["passed"].agg(["size", "sum"])
    return {str(s): (int(n), int(c)) for s, (n, c) in grouped.iterrows()}


def _draws(rows: ReportRows, values: dict[str, float]) -> np.ndarray:
    """Bootstrap draws of the mean of per-scenario ``values`` (scenarios absent from ``values`` weigh 0)."""
    position = rows.scenario_position
    num, den = np.zeros(len(rows.scenario_ids)), np.zeros(len(rows.scenario_ids))
    for scenario, value in values.items():
        num[position[scenario]], den[position[scenario]] = value, 1.0
    return stats.ratio_draws(rows.weights, num, den)


def trial_cell(rows: ReportRows, agent: str, judge: str, cell_rows: pd.DataFrame, max_k: int) -> TrialCell:
    """One agent × judge's pass^k and pass@k for k = 1..max_k and its consistency, each with its CI."""
    counts = scenario_counts(cell_rows)
    cell = TrialCell(
        agent=agent, judge=judge, trials=max((n for n, _ in counts.values()), default=0), scenarios=len(counts),
        counts=counts,
    )
    for k in range(1, max_k + 1):
        for estimator, point, interval in (
            (pass_hat_k, cell.pass_hat, cell.pass_hat_ci),
            (pass_at_k, cell.pass_at, cell.pass_at_ci),
        ):
            values = {s: estimator(n, c, k) for s, (n, c) in counts.items() if n >= k}
            point[k] = float(np.mean(list(values.values()))) if values else None
            interval[k] = stats.percentile_ci(_draws(rows, values), rows.level) if values else (None, None)
    agree = {s: float(c in (0, n)) for s, (n, c) in counts.items() if n >= 2}
    if agree:
        cell.consistency = float(np.mean(list(agree.values())))
        cell.consistency_ci = stats.percentile_ci(_draws(rows, agree), rows.level)
    return cell


def trial_cells(rows: ReportRows, agents: list[str]) -> list[TrialCell]:
    """Every agent × judge cell with scored rows, in ``agents`` (Table 1) order then judge."""
    frame = rows.frame
    max_k = int(frame["trial"].max()) + 1 if not frame.empty else 0
    groups = dict(list(frame.groupby(["agent_label", "judge_label"]))) if not frame.empty else {}
    return [
        trial_cell(rows, agent, judge, groups[(agent, judge)], max_k)
        for agent in agents
        for judge in rows.judges
        if (agent, judge) in groups
    ]


def trial_rates(cells: list[TrialCell]) -> list[TrialRate]:
    """The report's repeated-trials part (report.json ``trials``): one record per agent × judge × k."""
    return [
        TrialRate(
            agent=c.agent, judge=c.judge, k=k, trials=c.trials, scenarios=sum(n >= k for n, _ in c.counts.values()),
            pass_hat_k=c.pass_hat.get(k), pass_hat_k_ci_low=c.pass_hat_ci.get(k, (None, None))[0],
            pass_hat_k_ci_high=c.pass_hat_ci.get(k, (None, None))[1], pass_at_k=c.pass_at.get(k),
            pass_at_k_ci_low=c.pass_at_ci.get(k, (None, None))[0], pass_at_k_ci_high=c.pass_at_ci.get(k, (None, None))[1],
            consistency=c.consistency, consistency_ci_low=c.consistency_ci[0], consistency_ci_high=c.consistency_ci[1],
        )
        for c in cells
        if c.scenarios
        for k in range(1, c.trials + 1)
    ]  # fmt: skip
