"""Repeated trials in the report: pass^k and pass@k per agent × judge with bootstrap CIs, and per-scenario consistency.

Applies when some row has ``trial > 0`` (``run.trials`` > 1). The estimators are the unbiased ones
(``skillbench/engine/trials.py``, docs/reports.md "Repeated trials"): per scenario with n scored trials of
which c pass, pass^k = C(c,k)/C(n,k) and pass@k = 1 − C(n−c,k)/C(n,k), averaged over the scenarios with
n ≥ k. CIs resample scenarios with the report's one set of bootstrap draws (``ctx.weights``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from skillbench.engine.trials import pass_at_k, pass_hat_k
from skillbench.report import stats
from skillbench.report.build import ReportContext
from skillbench.report.model import TrialRate
from skillbench.report.tables import Table, ci, pct, report_table


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


def has_trials(ctx: ReportContext) -> bool:
    """Some row has trial > 0 (a report read back from report.json re-reads its rows: see ReportContext)."""
    frame = ctx.frame
    return not frame.empty and "trial" in frame and bool((frame["trial"] > 0).any())


def scenario_counts(rows: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Scenario → (n scored trials, c passes) over ``rows`` (one agent × judge); NA verdicts left out."""
    scored = rows[rows["passed"].notna()]
    grouped = scored.groupby("scenario_id")["passed"].agg(["size", "sum"])
    return {str(s): (int(n), int(c)) for s, (n, c) in grouped.iterrows()}


def _draws(ctx: ReportContext, values: dict[str, float]) -> np.ndarray:
    """Bootstrap draws of the mean of per-scenario ``values`` (scenarios absent from ``values`` weigh 0)."""
    position = {s: i for i, s in enumerate(ctx.scenario_ids)}
    num, den = np.zeros(len(ctx.scenario_ids)), np.zeros(len(ctx.scenario_ids))
    for scenario, value in values.items():
        num[position[scenario]], den[position[scenario]] = value, 1.0
    return stats.ratio_draws(ctx.weights, num, den)


def trial_cell(ctx: ReportContext, agent: str, judge: str, rows: pd.DataFrame, max_k: int) -> TrialCell:
    counts = scenario_counts(rows)
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
            interval[k] = stats.percentile_ci(_draws(ctx, values), ctx.level) if values else (None, None)
    agree = {s: float(c in (0, n)) for s, (n, c) in counts.items() if n >= 2}
    if agree:
        cell.consistency = float(np.mean(list(agree.values())))
        cell.consistency_ci = stats.percentile_ci(_draws(ctx, agree), ctx.level)
    return cell


def trial_cells(ctx: ReportContext) -> list[TrialCell]:
    """Every agent × judge cell with scored rows, in Table 1 order then judge (cached on the context)."""
    cached = ctx.__dict__.get("_trial_cells")
    if cached is not None:
        return cached
    frame = ctx.frame
    max_k = int(frame["trial"].max()) + 1 if not frame.empty else 0
    groups = dict(list(frame.groupby(["agent_label", "judge_label"]))) if not frame.empty else {}
    cells = [
        trial_cell(ctx, agent, judge, groups[(agent, judge)], max_k)
        for agent in ctx.agents
        for judge in ctx.judges
        if (agent, judge) in groups
    ]
    ctx.__dict__["_trial_cells"] = cells
    return cells


def trial_rates(ctx: ReportContext) -> list[TrialRate]:
    """The report's repeated-trials part (report.json ``trials``): one record per agent × judge × k."""
    if not has_trials(ctx):
        return []
    return [
        TrialRate(
            agent=c.agent, judge=c.judge, k=k, trials=c.trials, scenarios=sum(n >= k for n, _ in c.counts.values()),
            pass_hat_k=c.pass_hat.get(k), pass_hat_k_ci_low=c.pass_hat_ci.get(k, (None, None))[0],
            pass_hat_k_ci_high=c.pass_hat_ci.get(k, (None, None))[1], pass_at_k=c.pass_at.get(k),
            pass_at_k_ci_low=c.pass_at_ci.get(k, (None, None))[0], pass_at_k_ci_high=c.pass_at_ci.get(k, (None, None))[1],
            consistency=c.consistency, consistency_ci_low=c.consistency_ci[0], consistency_ci_high=c.consistency_ci[1],
        )
        for c in trial_cells(ctx)
        if c.scenarios
        for k in range(1, c.trials + 1)
    ]  # fmt: skip


@report_table("pass_k", title="Table 1b — repeated trials: pass^k and pass@k (%) per agent × judge", order=11)
def pass_k_table(ctx: ReportContext) -> Table | None:
    rates = ctx.trials
    if not rates:
        return None
    by_cell: dict[tuple[str, str], dict[int, TrialRate]] = {}
    for rate in rates:
        by_cell.setdefault((rate.agent, rate.judge), {})[rate.k] = rate
    max_k = max(rate.k for rate in rates)
    ks = range(1, max_k + 1)
    headers = [
        "Agent", "Judge", "Trials", *[f"pass^{k}" for k in ks], *[f"pass@{k}" for k in ks if k > 1],
        f"pass^{max_k} {ctx.level:.0%} CI", "Consistent %",
    ]  # fmt: skip
    display = []
    for (agent, judge), cell in by_cell.items():
        first, last = cell[min(cell)], cell.get(max_k)
        display.append(
            [
                agent, judge, str(first.trials), *[pct(cell[k].pass_hat_k) if k in cell else "—" for k in ks],
                *[pct(cell[k].pass_at_k) if k in cell else "—" for k in ks if k > 1],
                ci(last.pass_hat_k_ci_low, last.pass_hat_k_ci_high) if last else "—", pct(first.consistency),
            ]
        )  # fmt: skip
    columns = [
        "agent", "judge", "k", "pass_hat_k", "pass_hat_k_ci_low", "pass_hat_k_ci_high", "pass_at_k",
        "pass_at_k_ci_low", "pass_at_k_ci_high", "consistency", "consistency_ci_low", "consistency_ci_high",
        "scenarios_with_n_ge_k",
    ]  # fmt: skip
    data = [
        [r.agent, r.judge, r.k, r.pass_hat_k, r.pass_hat_k_ci_low, r.pass_hat_k_ci_high, r.pass_at_k, r.pass_at_k_ci_low,
         r.pass_at_k_ci_high, r.consistency, r.consistency_ci_low, r.consistency_ci_high, r.scenarios]
        for r in rates
    ]  # fmt: skip
    b = ctx.bootstrap
    return Table(
        headers=headers,
        display=display,
        data=data,
        data_headers=columns,
        footnotes=[
            "pass^k: chance that k trials of a scenario all pass; pass@k: that at least one does. Unbiased estimates "
            "from n ≥ k scored trials with c passes: C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k), averaged over scenarios "
            "(docs/reports.md, Repeated trials). pass^1 = pass@1 is the pass rate.",
            f"CI: percentile bootstrap over {b.scenarios} scenario(s), {b.draws} draws, the report's draws. "
            "Consistent: share of scenarios whose scored trials all got the same verdict.",
        ],
    )


@report_table("trial_consistency", title="Repeated trials — passes per scenario", order=12, terminal=False)
def trial_consistency(ctx: ReportContext) -> Table | None:
    if not has_trials(ctx):
        return None
    display, data = [], []
    for c in trial_cells(ctx):
        for scenario, (n, passes) in sorted(c.counts.items()):
            consistent = passes in (0, n)
            display.append([c.agent, c.judge, scenario, str(n), str(passes), "yes" if consistent else "no"])
            data.append([c.agent, c.judge, scenario, n, passes, consistent])
    return Table(
        headers=["Agent", "Judge", "Scenario", "Scored trials", "Passed", "Consistent"],
        display=display,
        data=data,
        data_headers=["agent", "judge", "scenario_id", "trials", "passed", "consistent"],
    )
