"""Report tables of pass rates broken down by what decides a deployment: the scenario path (prompt injection,
guardrail refusal, tool failure, transfer, ...), the industry and the skill, per agent × judge, each with its
bootstrap CI, and a flag where an agent is significantly worse on one group than on the rest of its scenarios.

The rates, CIs and the flag's test are computed by ``skillbench/report/figures/groups.py`` (``ctx.breakdowns``).
"""

from __future__ import annotations

from skillbench.report.build import ReportContext
from skillbench.report.figures.groups import BREAKDOWNS
from skillbench.report.tables import Table, ci, pct, report_table

WORSE = "▼ worse"
TEST_NOTE = (
    "Flag: one-sided Fisher exact test of the {group}'s pass count against the agent's other scenarios under the same "
    "judge, Holm-adjusted over the {groups} of that agent × judge; ▼ where the adjusted p < 0.05. CIs: exact "
    "(Clopper–Pearson) at the effective sample size, scenarios the clusters. n: scored rows (judge and infrastructure "
    "errors left out); Rest %: the agent's other scored rows under that judge, the same unit."
)
TRIALS_NOTE = (
    "With repeated trials, n, Pass % and Rest % count every scored trial (as Table 1); the test counts each scenario "
    "once, by the majority of its trials (a tie fails), since trials of one scenario are not independent draws."
)


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
                  data_headers=["agent", "judge", key, "n", "pass_rate", "ci_low", "ci_high", "rest_n", "rest_pass_rate",
                                "difference", "scenarios", "rest_scenarios", "p_holm", "significantly_worse"])
    for r in rates:
        delta = None if r.pass_rate is None or r.rest_pass_rate is None else r.pass_rate - r.rest_pass_rate
        table.display.append([r.agent, r.judge, r.group, str(r.n), pct(r.pass_rate), ci(r.ci_low, r.ci_high),
                              pct(r.rest_pass_rate), "—" if delta is None else f"{round(delta * 100, 1) + 0.0:+.1f}",
                              _p(r.p_holm), WORSE if r.significantly_worse else ""])
        table.data.append([r.agent, r.judge, r.group, r.n, r.pass_rate, r.ci_low, r.ci_high, r.rest_n, r.rest_pass_rate,
                           delta, r.scenarios, r.rest_scenarios, r.p_holm, r.significantly_worse])
    plural = {"path": "paths", "industry": "industries", "skill": "skills"}[key]
    table.footnotes.append(TEST_NOTE.format(group=header.lower(), groups=plural))
    if any(r.scenarios is not None and r.scenarios != r.n for r in rates):
        table.footnotes.append(TRIALS_NOTE)
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
