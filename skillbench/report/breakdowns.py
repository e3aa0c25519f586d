"""Report tables of pass rates broken down by what decides a deployment: the scenario path (prompt injection,
guardrail refusal, tool failure, transfer, ...), the industry and the skill, per agent × judge, each with its
bootstrap CI, and a flag where an agent is significantly worse on one group than on the rest of its scenarios.

The flag's test: per agent × judge and group, a one-sided Fisher exact test of the group's passes against the
passes on every other scenario of the same agent × judge (is the group worse than the rest?); the p-values of one
agent × judge and breakdown are Holm-adjusted over its groups (family-wise error 5 %), and a group is flagged when
its adjusted p < 0.05. With repeated trials (a ``trial`` column) a scenario counts once in the test, by the
majority of its trials (a tie is a fail), since trials of one scenario are not independent draws.
"""

from __future__ import annotations

import pandas as pd

from skillbench.report.build import ReportContext
from skillbench.report.model import GroupRate
from skillbench.report.stats import percentile_ci
from skillbench.report.tables import Table, ci, pct, report_table

ALPHA = 0.05
WORSE = "▼ worse"
# breakdown key → (frame column, header)
BREAKDOWNS: dict[str, tuple[str, str]] = {"path": ("path", "Path"), "industry": ("industry", "Industry"),
                                         "skill": ("skill_id", "Skill")}
TEST_NOTE = (
    "Flag: one-sided Fisher exact test of the {group}'s pass count against the agent's other scenarios under the same "
    "judge, Holm-adjusted over the {groups} of that agent × judge; ▼ where the adjusted p < 0.05. CIs: percentile "
    "bootstrap over scenarios (the report's draws). n: scored rows (judge and infrastructure errors left out)."
)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1), in the input order."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def worse_p(passes: int, n: int, rest_passes: int, rest_n: int) -> float:
    """One-sided Fisher exact p that the group's pass rate is below the rest's (1.0 when either side is empty)."""
    if n == 0 or rest_n == 0:
        return 1.0
    from scipy import (
        stats as scipy_stats,  # imported here: a report without breakdown rows never pays for scipy
    )

    return float(scipy_stats.fisher_exact([[passes, n - passes], [rest_passes, rest_n - rest_passes]],
                                          alternative="less").pvalue)


def _test_units(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario for the test: with trials, the majority verdict over them (ties fail)."""
    if "trial" not in rows.columns or rows["trial"].nunique(dropna=True) <= 1:
        return rows
    majority = rows.groupby(["scenario_id", "group"], observed=True)["passed"].mean().reset_index()
    majority["passed"] = majority["passed"] > 0.5
    return majority


def group_rates(ctx: ReportContext, key: str) -> list[GroupRate]:
    """Every agent × judge × group of breakdown ``key`` with scored rows: rate, CI, the rest's rate and the flag."""
    column = BREAKDOWNS[key][0]
    if not ctx.jobs or ctx.frame.empty or column not in ctx.frame.columns:
        return []
    frame = ctx.frame
    scored = frame[frame["passed"].notna()]
    scored = scored.assign(group=scored[column].astype(str))
    cells = list(scored.groupby(["agent_label", "judge_label"], sort=True, observed=True))
    parts: list[tuple[pd.DataFrame, str]] = []
    keys: list[tuple[str, str, str, pd.DataFrame]] = []
    for (agent, judge), rows in cells:
        for group, part in rows.groupby("group", sort=True, observed=True):
            parts.append((part, "passed"))
            keys.append((str(agent), str(judge), str(group), part))
    draws = ctx._rate_draws_many(parts)
    fields: list[dict] = []
    by_cell: dict[tuple[str, str], list[int]] = {}
    for index, ((agent, judge, group, part), drawn) in enumerate(zip(keys, draws, strict=True)):
        low, high = percentile_ci(drawn, ctx.level)
        fields.append({"breakdown": key, "agent": agent, "judge": judge, "group": group, "n": len(part),
                       "pass_rate": float(part["passed"].astype(bool).mean()), "ci_low": low, "ci_high": high,
                       "rest_pass_rate": None, "p_holm": None, "significantly_worse": False})
        by_cell.setdefault((agent, judge), []).append(index)
    for (agent, judge), rows in cells:
        units = _test_units(rows)
        indices = by_cell[(str(agent), str(judge))]
        p_values = []
        for index in indices:
            inside = units["group"] == fields[index]["group"]
            mine, rest = units[inside]["passed"].astype(bool), units[~inside]["passed"].astype(bool)
            fields[index]["rest_pass_rate"] = float(rest.mean()) if len(rest) else None
            p_values.append(worse_p(int(mine.sum()), len(mine), int(rest.sum()), len(rest)))
        for index, adjusted in zip(indices, holm(p_values), strict=True):
            fields[index]["p_holm"] = adjusted
            fields[index]["significantly_worse"] = adjusted < ALPHA
    return [GroupRate(**f) for f in fields]


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def breakdown_table(ctx: ReportContext, key: str) -> Table | None:
    header = BREAKDOWNS[key][1]
    rates = [r for r in ctx.breakdowns if r.breakdown == key]
    if not rates:
        return None
    table = Table(headers=["Agent", "Judge", header, "n", "Pass %", "95% CI", "Rest %", "Δ (points)", "p (Holm)", "Flag"],
                  data_headers=["agent", "judge", key, "n", "pass_rate", "ci_low", "ci_high", "rest_pass_rate",
                                "difference", "p_holm", "significantly_worse"])
    for r in rates:
        delta = None if r.pass_rate is None or r.rest_pass_rate is None else r.pass_rate - r.rest_pass_rate
        table.display.append([r.agent, r.judge, r.group, str(r.n), pct(r.pass_rate), ci(r.ci_low, r.ci_high),
                              pct(r.rest_pass_rate), "—" if delta is None else f"{round(delta * 100, 1) + 0.0:+.1f}",
                              _p(r.p_holm), WORSE if r.significantly_worse else ""])
        table.data.append([r.agent, r.judge, r.group, r.n, r.pass_rate, r.ci_low, r.ci_high, r.rest_pass_rate, delta,
                           r.p_holm, r.significantly_worse])
    plural = {"path": "paths", "industry": "industries", "skill": "skills"}[key]
    table.footnotes.append(TEST_NOTE.format(group=header.lower(), groups=plural))
    flagged = [r for r in rates if r.significantly_worse]
    table.footnotes.append(
        f"Significantly worse than its own rate elsewhere: {len(flagged)} of {len(rates)} "
        + ("(" + "; ".join(f"{r.agent} under {r.judge} on {r.group}: {pct(r.pass_rate)} % vs {pct(r.rest_pass_rate)} %" for r in flagged[:10])
           + ("; …" if len(flagged) > 10 else "") + ")." if flagged else "(none)."))
    return table


@report_table("breakdown_path", title="Pass rate by scenario path per agent × judge", order=22)
def breakdown_path(ctx: ReportContext) -> Table | None:
    return breakdown_table(ctx, "path")


@report_table("breakdown_industry", title="Pass rate by industry per agent × judge", order=23)
def breakdown_industry(ctx: ReportContext) -> Table | None:
    return breakdown_table(ctx, "industry")


@report_table("breakdown_skill", title="Pass rate by skill per agent × judge", order=24)
def breakdown_skill(ctx: ReportContext) -> Table | None:
    return breakdown_table(ctx, "skill")
