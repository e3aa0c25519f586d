"""Panel verdicts: a column per agent whose pass/fail is the vote of its judges' verdicts (no model call).

A job whose pass rule sets ``panel`` (majority | unanimous) makes its agent a panel: for each scenario and
trial, the verdicts of the member judges (``panel_judges``, default every judge the agent has, at least two)
under their own jobs' pass rules are combined:

* **majority**: pass when more than half of the members with a verdict pass (a tie fails); no verdict when
  no member has one;
* **unanimous**: pass when every member has a verdict and all pass; no verdict when a member has none.

The panel is written as an ordinary job folder (``<n>_panel_<vote>_<agent>``, judge ``panel_<vote>``, its
config's ``judge.panel`` naming the vote and members), so Table 1, the CIs, pass^k, ``diff`` and ``compare``
show it as one more column. Reports tell panel columns from judges by ``judge.panel``: they are left out of
the mean over judges, judge agreement, strictness and ranking stability, and get their own table of
agreement with each member (``panel_agreement``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillbench.config.schema import PassRuleConfig
from skillbench.engine.results import (
    HUMAN_JUDGE,
    JobSummary,
    ResultRow,
    pass_counts,
)
from skillbench.engine.summary import path_breakdown, rule_pass_rate, trial_estimates
from skillbench.evaluation.pass_rule import vote
from skillbench.report import stats
from skillbench.report.build import ReportContext
from skillbench.report.frame import job_labels
from skillbench.report.jobs import PANEL_KEY, Job, ReportError, is_panel
from skillbench.report.tables import Table, pct, report_table


def panel_name(how: str) -> str:
    return f"panel_{how}"


def _rule(job: Job) -> PassRuleConfig | None:
    try:
        return PassRuleConfig.model_validate(job.config.get("pass_rule"))
    except ValueError:
        return None


def panel_row(members: dict[str, ResultRow | None], how: str, judge: str, rule_name: str) -> ResultRow:
    """One scenario × trial of the panel from its members' rows (judge name → row, None: the member has none)."""
    first = next(row for row in members.values() if row is not None)
    verdicts = {name: row.passed for name, row in members.items() if row is not None and row.passed is not None}
    missing = sorted(name for name in members if name not in verdicts)
    # unanimous needs every member's verdict; majority, at least one
    passed = None if not verdicts or (how == "unanimous" and missing) else vote(list(verdicts.values()), how)
    failing = sorted(name for name, verdict in verdicts.items() if not verdict)
    reasons = [f"{name} fails" for name in failing] if passed is False else []
    infra = first.infra_error
    return first.model_copy(
        update={
            "judge": judge,
            "pass_rule": rule_name,
            "verdict_key": None,
            "scores": None,
            "passed": None if infra else passed,
            "fail_reasons": reasons,
            "judge_error": None if infra or passed is not None else f"panel: no verdict from {', '.join(missing)}",
            "usage": {},
            "judge_s": 0.0,
            "rollout_s": 0.0,
        }
    )


def _summary(template: JobSummary, rows: list[ResultRow], judge: str, model: str) -> JobSummary:
    passed, scored, rate = pass_counts(rows)
    pass_hat, pass_at = trial_estimates(rows, template.trials)
    return template.model_copy(
        update={
            "judge": judge, "judge_model": model, "scenarios": len(rows), "scored": scored, "passed": passed, "pass_rate": rate,
            "rule_pass_rate": rule_pass_rate(rows), "by_path": path_breakdown(rows), "pass_hat_k": pass_hat,
            "pass_at_k": pass_at, "rubric_means": dict.fromkeys(template.rubric_means), "task_completion": {},
            "hallucinated_actions": 0, "judge_errors": sum(r.judge_error is not None for r in rows),
            "usage": {}, "llm_calls": 0, "failed_attempts": 0, "retries": 0, "cache_hits": 0, "prompt_tokens": 0,
            "cached_prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0,
        }
    )  # fmt: skip


def panel_jobs(jobs: list[Job], out: Path) -> list[Job]:
    """The panel job of every agent whose jobs' pass rule sets ``panel`` (folders under ``out``, not written).
    ReportError when one cannot be formed as asked: a member no job is judged by, or fewer than two members."""
    finished = [job for job in jobs if job.finished and not is_panel(job)]
    labels = job_labels(finished)
    by_agent: dict[str, list[Job]] = {}
    for job in finished:
        rule = _rule(job)
        if rule is not None and rule.panel is not None:
            by_agent.setdefault(labels[job.path][0], []).append(job)
    panels: list[Job] = []
    for index, (agent, group) in enumerate(sorted(by_agent.items())):
        rule = _rule(group[0])
        assert rule is not None and rule.panel is not None
        judges = sorted({job.judge for job in group})
        unknown = [name for name in rule.panel_judges or [] if name not in judges]
        if unknown:  # a typo would silently shrink the panel (2 of 3 becoming 2 of 2)
            raise ReportError(f"pass_rule.panel_judges: unknown judge {unknown[0]!r} (judges of {agent} in these runs: "
                              f"{', '.join(judges)}). Fix: name only judges of these runs, or give the runs of "
                              f"{unknown[0]!r} too")  # fmt: skip
        # People's labels (the judge 'human' of an import) are what a panel is measured against, not a member of it,
        # unless pass_rule.panel_judges names them.
        members = [job for job in group if (job.judge != HUMAN_JUDGE if rule.panel_judges is None
                                            else job.judge in rule.panel_judges)]
        names = [job.judge for job in members]
        if len(set(names)) < 2:
            raise ReportError(
                f"pass_rule.panel needs at least two judges per agent; {agent} has {', '.join(names) or 'none'}. Fix: "
                "give the runs of the other judges too, or name two of its judges in pass_rule.panel_judges"
            )
        if len(set(names)) < len(names):
            raise ReportError(f"panel of {agent}: judge {max(names, key=names.count)!r} appears in two jobs; "
                              "give one folder per judge")  # fmt: skip
        judge = panel_name(rule.panel)
        by_member = {job.judge: {(r.scenario_id, r.trial): r for r in job.rows} for job in members}
        units = sorted({unit for rows in by_member.values() for unit in rows})
        rows = [
            panel_row({name: by_member[name].get(unit) for name in sorted(by_member)}, rule.panel, judge, rule.name)
            for unit in units
        ]
        model = f"panel/{rule.panel}({','.join(sorted(by_member))})"
        config: dict[str, Any] = json.loads(json.dumps(members[0].config))
        config["judge"] = {"name": judge, "model": model, PANEL_KEY: {"vote": rule.panel, "members": sorted(by_member)}}
        assert members[0].summary is not None
        panels.append(
            Job(
                path=out / f"{index}_{judge}_{agent.replace(' ', '_').replace('/', '_')}",
                config=config, rows=rows, summary=_summary(members[0].summary, rows, judge, model), status="finished",
                launch_cwd=members[0].launch_cwd,
            )
        )  # fmt: skip
    return panels


@report_table("panel_agreement", title="Panel verdicts — agreement of each panel with its members", order=55)
def panel_agreement(ctx: ReportContext) -> Table | None:
    panels = ctx.panel_judges
    if not panels:
        return None
    frame = ctx.frame[ctx.frame["passed"].notna()]
    members = {
        ctx.labels[job.path][1]: job.config["judge"][PANEL_KEY]["members"] for job in ctx.jobs if is_panel(job)
    }
    display, data = [], []
    for panel in sorted(panels):
        for member in members.get(panel, []):
            for agent in [*ctx.agents, "(all agents)"]:
                rows = frame if agent == "(all agents)" else frame[frame["agent_label"] == agent]
                keys = ["agent_label", "scenario_id", "trial"]
                mine = rows[rows["judge_label"] == panel].set_index(keys)["passed"]
                theirs = rows[rows["judge_label"] == member].set_index(keys)["passed"]
                shared = mine.index.intersection(theirs.index)
                if not len(shared):
                    continue
                a = mine.loc[shared].astype(bool).tolist()
                b = theirs.loc[shared].astype(bool).tolist()
                agreement, kappa = stats.percent_agreement(a, b), stats.cohen_kappa(a, b)
                display.append([panel, member, agent, str(len(shared)), pct(agreement),
                                "—" if kappa is None else f"{kappa:.3f}", pct(sum(a) / len(a)), pct(sum(b) / len(b))])
                data.append([panel, member, agent, len(shared), agreement, kappa, sum(a) / len(a), sum(b) / len(b)])
    return Table(
        headers=["Panel", "Member", "Agent", "Shared", "Agreement %", "Cohen's κ", "Panel pass %", "Member pass %"],
        display=display,
        data=data,
        data_headers=["panel", "member", "agent", "shared", "agreement", "kappa", "panel_pass_rate",
                      "member_pass_rate"],
        footnotes=[
            "Panel columns vote over their members' verdicts (majority: more than half pass, a tie fails; unanimous: "
            "every member passes); they are left out of the mean over judges, Table 3 and the strictness tables.",
            "κ undefined (—) when both give one and the same verdict to every shared transcript.",
        ],
    )  # fmt: skip
