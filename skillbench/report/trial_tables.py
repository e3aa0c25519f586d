"""Repeated trials in the report: Table 1b (pass^k and pass@k per agent × judge with bootstrap CIs) and the passes
per scenario. Both apply when some row has ``trial > 0`` (``run.trials`` > 1); the numbers are computed by
``skillbench/report/figures/trials.py`` (``ctx.trials``, ``ctx.trial_cells``), whose docstring gives the estimators."""

from __future__ import annotations

from skillbench.engine.trials import cap_note
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
        "Agent", "Judge", "Scenarios", "Trials", *[f"pass^{k}" for k in ks], *[f"pass@{k}" for k in ks if k > 1],
        f"pass^{max_k} {ctx.level:.0%} CI", "Consistent %",
    ]  # fmt: skip
    display = []
    notes: list[str] = []
    for (agent, judge), cell in by_cell.items():
        first = cell[1]
        capped = first.max_k is not None and first.max_k < first.trials
        last = cell.get(max_k)
        display.append(
            [
                agent, judge, str(first.scenarios), f"{first.trials} (k ≤ {first.max_k})" if capped else str(first.trials),
                *[pct(cell[k].pass_hat_k) if k in cell else "—" for k in ks],
                *[pct(cell[k].pass_at_k) if k in cell else "—" for k in ks if k > 1],
                ci(last.pass_hat_k_ci_low, last.pass_hat_k_ci_high) if last else "—", pct(first.consistency),
            ]
        )  # fmt: skip
        if capped:
            notes.append(f"{agent} × {judge}: {cap_note(first.max_k or 0, first.trials, first.scenarios, first.short)}.")
        table1 = ctx.cell(agent, judge)
        if first.pass_hat_k is not None and table1.pass_rate is not None and abs(first.pass_hat_k - table1.pass_rate) > 5e-4:
            notes.append(
                f"{agent} × {judge}: pass^1 {pct(first.pass_hat_k)} weighs each of the {first.scenarios} scenarios once; "
                f"Table 1's {pct(table1.pass_rate)} ({table1.passed}/{table1.scored}) weighs each scored trial, and the "
                "scenarios have different numbers of scored trials."
            )
    columns = [
        "agent", "judge", "k", "trials", "max_k", "scenarios", "pass_hat_k", "pass_hat_k_ci_low", "pass_hat_k_ci_high",
        "pass_at_k", "pass_at_k_ci_low", "pass_at_k_ci_high", "consistency", "consistency_ci_low", "consistency_ci_high",
    ]  # fmt: skip
    data = [
        [r.agent, r.judge, r.k, r.trials, r.max_k, r.scenarios, r.pass_hat_k, r.pass_hat_k_ci_low, r.pass_hat_k_ci_high,
         r.pass_at_k, r.pass_at_k_ci_low, r.pass_at_k_ci_high, r.consistency, r.consistency_ci_low,
         r.consistency_ci_high]
        for r in rates
    ]  # fmt: skip
    return Table(
        headers=headers,
        display=display,
        data=data,
        data_headers=columns,
        footnotes=[
            "pass^k: chance that k trials of a scenario all pass; pass@k: that at least one does. Unbiased estimates "
            "from n ≥ k scored trials with c passes: C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k), averaged over scenarios "
            "(docs/reports.md, Repeated trials). Every k of a row averages over the same scenarios (Scenarios: those "
            "with a scored trial, as in Table 1); k goes up to the fewest scored trials of any of them (τ²-bench's "
            "rule), so a scenario short of trials lowers the largest k (— above it) and never changes which scenarios "
            "a figure covers. pass^1 = pass@1 is the pass rate when every scenario has as many scored trials.",
            f"CI: exact (Clopper–Pearson) over the row's scenarios, each scenario's estimate one unit "
            f"({ctx.level:.0%}; docs/reports.md, Confidence intervals). Consistent: share of those scenarios whose "
            "scored trials all got the same verdict.",
            *notes,
        ],
    )


@report_table("trial_consistency", title="Repeated trials — passes per scenario", order=12, terminal=False)
def trial_consistency(ctx: ReportContext) -> Table | None:
    if not has_trials(ctx):
        return None
    display, data = [], []
    for c in ctx.trial_cells:
        for scenario, (n, passes) in sorted(c.population.counts.items()):
            consistent = passes in (0, n)
            display.append([c.agent, c.judge, scenario, str(n), str(passes), "yes" if consistent else "no"])
            data.append([c.agent, c.judge, scenario, n, passes, consistent])
    return Table(
        headers=["Agent", "Judge", "Scenario", "Scored trials", "Passed", "Consistent"],
        display=display,
        data=data,
        data_headers=["agent", "judge", "scenario_id", "trials", "passed", "consistent"],
    )
