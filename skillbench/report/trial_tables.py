"""Repeated trials in the report: Table 1b (pass^k and pass@k per agent × judge with bootstrap CIs) and the passes
per scenario. Both apply when some row has ``trial > 0`` (``run.trials`` > 1); the numbers are computed by
``skillbench/report/figures/trials.py`` (``ctx.trials``, ``ctx.trial_cells``), whose docstring gives the estimators."""

from __future__ import annotations

from skillbench.report.build import ReportContext
from skillbench.report.figures.trials import has_trials
from skillbench.report.model import TrialRate
from skillbench.report.tables import Table, ci, pct, report_table


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
    for c in ctx.trial_cells:
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
