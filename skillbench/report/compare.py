"""Paired comparison of agents on the same scenarios: per judge, flips, exact McNemar (sign test), paired
bootstrap CI of the difference, Holm-corrected verdicts per pair, and a ranking with bootstrap rank intervals.

The unit is the scenario (what the benchmark samples). With repeated trials an agent's result on a scenario
is its pass rate over the scenario's scored trials; with one trial it is its pass/fail. Per judge and pair
(A, B), over the scenarios both have a verdict on:

* **flips**: scenarios where A did better than B, and the reverse (with one trial: A passed and B failed);
* **exact McNemar**: the two-sided binomial test of those two counts at 1/2 (``stats.mcnemar_exact``; with
  trials this is the sign test of the per-scenario differences, which is McNemar's test when n = 1);
* **paired bootstrap CI** of the mean difference (A − B), resampling scenarios with one set of draws;
* **Holm's step-down correction** over every (pair, judge) test of the comparison, at ``alpha``.

A pair's line: "A > B under 5/5 judges (Holm-adjusted p ≤ 0.004)" when every judge's adjusted p is below
``alpha`` in the same direction; "A > B under 3/5 judges (…); not distinguishable under 2" when only some
are; "not distinguishable" when none is.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from skillbench.report import resampling, stats
from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_SEED
from skillbench.report.frame import job_labels, jobs_frame
from skillbench.report.jobs import (
    Job,
    ReportError,
    benchmark_versions,
    left_out_lines,
    load_jobs,
    panel_labels,
)
from skillbench.report.tables import markdown_table, pct

DEFAULT_ALPHA = 0.05
CORRECTION = "Holm (step-down, family = every agent pair × judge of this comparison)"


class CompareRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PairTest(CompareRecord):
    """Agents A and B under one judge, over the scenarios both have a verdict on."""

    agent_a: str
    agent_b: str
    judge: str
    scenarios: int = Field(description="Scenarios with a verdict for both agents.")
    rate_a: float | None
    rate_b: float | None
    difference: float | None = Field(description="Mean over shared scenarios of A's minus B's pass rate.")
    ci_low: float | None
    ci_high: float | None
    a_better: list[str] = Field(description="Scenarios where A did better (one trial: A passed, B failed).")
    b_better: list[str]
    p_value: float | None = Field(description="Exact McNemar (two-sided binomial on the flips).")
    p_adjusted: float | None = Field(None, description="Holm-adjusted p over every test of the comparison.")
    significant: bool = False


class PairVerdict(CompareRecord):
    higher: str
    lower: str
    judges_for_higher: int = Field(description="Judges under which the higher agent is significantly better.")
    judges_for_lower: int
    judges: int
    max_p_adjusted: float | None = Field(description="Largest Holm-adjusted p among the significant judges.")
    min_p_adjusted: float | None
    line: str


class RankRow(CompareRecord):
    agent: str
    pass_rate: float | None = Field(description="Mean over judges of the pass rate on the common scenarios.")
    rank: int
    rank_low: int | None = Field(description="Bootstrap percentile interval of the rank (1 = best).")
    rank_high: int | None


class Comparison(CompareRecord):
    sources: list[str]
    agents: list[str]
    judges: list[str]
    trials: int = Field(description="Most trials of any agent on a scenario.")
    alpha: float
    correction: str
    draws: int
    seed: int
    level: float
    tests: list[PairTest]
    verdicts: list[PairVerdict]
    ranking: list[RankRow]
    ranking_scenarios: int = Field(description="Scenarios every agent has a verdict on under every judge (the ranking's).")
    notes: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(
        default_factory=list,
        description="Why the comparison may not be what it seems: a benchmark that differs between the compared "
        "runs, jobs left out (unfinished, still running), jobs whose rows disagree with their own summary.",
    )


def side_labels(groups: list[list[Job]], sources: list[str]) -> dict[Path, tuple[str, str]]:
    """(agent, judge) label per job; an agent label found in several of the given folders gets ``@<folder>``
    appended, so two runs of the same agent are two sides of the comparison."""
    everyone = [job for group in groups for job in group]
    labels = job_labels(everyone)
    seen: dict[str, set[int]] = {}
    for index, group in enumerate(groups):
        for job in group:
            seen.setdefault(labels[job.path][0], set()).add(index)
    names = [Path(source).name or source for source in sources]
    if len(set(names)) < len(names):
        names = [f"{i + 1}:{name}" for i, name in enumerate(names)]
    for index, group in enumerate(groups):
        for job in group:
            agent, judge = labels[job.path]
            if len(seen[agent]) > 1:
                labels[job.path] = (f"{agent} @{names[index]}", judge)
    return labels


def scenario_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Scenario × (agent, judge) → pass rate over the scenario's scored trials (NaN: no verdict)."""
    scored = frame[frame["passed"].notna()].copy()
    scored["passed"] = scored["passed"].astype(float)
    return scored.pivot_table(
        index="scenario_id", columns=["agent_label", "judge_label"], values="passed", aggfunc="mean"
    )


def _draws_of_mean(weights: np.ndarray, values: np.ndarray, present: np.ndarray) -> np.ndarray:
    return resampling.ratio_draws(weights, np.where(present, values, 0.0), present.astype(float))


def compare_frame(
    frame: pd.DataFrame,
    *,
    sources: list[str],
    alpha: float = DEFAULT_ALPHA,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    panels: list[str] | None = None,
) -> Comparison:
    """The comparison of every agent pair under every judge of ``frame`` (``load_results`` columns).

    ``panels``: judge labels that are panel columns (``report/panel_verdicts.py``): tested like a judge, said apart in a
    pair's line, and left out of the ranking's mean over judges.
    """
    panels = panels or []
    if frame.empty:
        raise ReportError("no finished rows to compare")
    agents = sorted(frame["agent_label"].unique())
    judges = sorted(frame["judge_label"].unique())
    if len(agents) < 2:
        raise ReportError(
            f"only one agent ({agents[0]}) in these folders: compare needs two or more agents on the same scenarios "
            "(two runs of the same agent are told apart by their folder names)"
        )
    rates = scenario_rates(frame)
    scenarios = list(rates.index)
    weights = resampling.bootstrap_weights(len(scenarios), draws, seed)
    judged_by = {agent: [j for j in judges if (agent, j) in rates.columns] for agent in agents}
    # A pair with no judge in common has nothing to test: said as that, not as scenarios they do not share.
    notes = [
        f"{a} and {b} share no judge ({a}: {', '.join(judged_by[a]) or 'no verdict'}; "
        f"{b}: {', '.join(judged_by[b]) or 'no verdict'})"
        for a, b in itertools.combinations(agents, 2) if not set(judged_by[a]) & set(judged_by[b])
    ]
    tests: list[PairTest] = []
    for (a, b), judge in itertools.product(itertools.combinations(agents, 2), judges):
        if (a, judge) not in rates.columns or (b, judge) not in rates.columns:
            continue
        ra, rb = rates[(a, judge)].to_numpy(), rates[(b, judge)].to_numpy()
        both = ~np.isnan(ra) & ~np.isnan(rb)
        shared = [s for s, keep in zip(scenarios, both, strict=True) if keep]
        if not shared:
            notes.append(f"{a} and {b} share no scenario with a verdict under {judge}")
            continue
        diff = np.where(both, ra - rb, 0.0)
        low, high = resampling.percentile_ci(_draws_of_mean(weights, diff, both), level)
        a_better = [s for s, d, keep in zip(scenarios, diff, both, strict=True) if keep and d > 0]
        b_better = [s for s, d, keep in zip(scenarios, diff, both, strict=True) if keep and d < 0]
        tests.append(
            PairTest(
                agent_a=a, agent_b=b, judge=judge, scenarios=len(shared),
                rate_a=float(np.mean(ra[both])), rate_b=float(np.mean(rb[both])),
                difference=float(np.mean(diff[both])), ci_low=low, ci_high=high,
                a_better=a_better, b_better=b_better, p_value=stats.mcnemar_exact(len(a_better), len(b_better)),
            )
        )  # fmt: skip
    if not tests:
        raise ReportError(
            f"nothing to compare: {'; '.join(notes)}. Fix: compare runs that share a judge (the same judge config "
            "for every agent, e.g. python -m skillbench agent=<a>,<b> judge=<judge> -m)"
        )
    for test, adjusted in zip(tests, stats.holm([t.p_value for t in tests if t.p_value is not None]), strict=True):
        test.p_adjusted = adjusted
        test.significant = adjusted < alpha and bool(test.a_better or test.b_better)
    trials = int(frame.groupby(["agent_label", "judge_label", "scenario_id"]).size().max())
    ranking, ranked_scenarios = _ranking(rates, agents, [j for j in judges if j not in panels], weights, level)
    return Comparison(
        sources=sources, agents=agents, judges=judges, trials=trials, alpha=alpha, correction=CORRECTION,
        draws=draws, seed=seed, level=level, tests=tests, verdicts=_verdicts(tests, agents, alpha, panels),
        ranking=ranking, ranking_scenarios=ranked_scenarios, notes=notes,
    )  # fmt: skip


def _verdicts(tests: list[PairTest], agents: list[str], alpha: float, panels: list[str]) -> list[PairVerdict]:
    verdicts: list[PairVerdict] = []
    for a, b in itertools.combinations(agents, 2):
        pair = [t for t in tests if t.agent_a == a and t.agent_b == b]
        mine = [t for t in pair if t.judge not in panels]
        if not mine:
            continue
        for_a = [t for t in mine if t.significant and (t.difference or 0) > 0]
        for_b = [t for t in mine if t.significant and (t.difference or 0) < 0]
        higher, lower, wins, losses = (a, b, for_a, for_b) if len(for_a) >= len(for_b) else (b, a, for_b, for_a)
        if not wins:  # the pair's overall direction, for the wording only
            mean = float(np.mean([t.difference or 0.0 for t in mine]))
            higher, lower = (a, b) if mean >= 0 else (b, a)
        significant_p = [t.p_adjusted for t in wins if t.p_adjusted is not None]
        all_p = [t.p_adjusted for t in mine if t.p_adjusted is not None]
        n = len(mine)
        noun = "judge" if n == 1 else "judges"
        if wins:
            line = f"{higher} > {lower} under {len(wins)}/{n} {noun} (Holm-adjusted p ≤ {_p(max(significant_p))})"
            rest = n - len(wins) - len(losses)
            if losses:
                line += f"; {lower} > {higher} under {len(losses)}"
            if rest:
                line += f"; not distinguishable under {rest}"
        else:
            line = f"{higher} vs {lower}: not distinguishable under {n} {noun} (smallest Holm-adjusted p {_p(min(all_p))})"
        for test in (t for t in pair if t.judge in panels):
            if test.significant:
                better, worse = (a, b) if (test.difference or 0) > 0 else (b, a)
                line += f"; {test.judge}: {better} > {worse} (Holm-adjusted p {_p(test.p_adjusted)})"
            else:
                line += f"; {test.judge}: not distinguishable (Holm-adjusted p {_p(test.p_adjusted)})"
        verdicts.append(
            PairVerdict(
                higher=higher, lower=lower, judges_for_higher=len(wins), judges_for_lower=len(losses), judges=n,
                max_p_adjusted=max(significant_p) if significant_p else None,
                min_p_adjusted=min(all_p) if all_p else None, line=line,
            )
        )  # fmt: skip
    verdicts.sort(key=lambda v: (-v.judges_for_higher, v.higher, v.lower))
    return verdicts


def _ranking(
    rates: pd.DataFrame, agents: list[str], judges: list[str], weights: np.ndarray, level: float
) -> tuple[list[RankRow], int]:
    """Rank by the mean over judges of the pass rate on the scenarios every agent has under every judge; the
    rank interval is the percentile interval of each agent's rank over the bootstrap draws (ties: average rank)."""
    columns = [(a, j) for a in agents for j in judges if (a, j) in rates.columns]
    if not columns or len(columns) < len(agents) * len(judges):
        return [], 0
    values = rates[columns].to_numpy()
    common = ~np.isnan(values).any(axis=1)
    if not common.any():
        return [], 0
    per_agent = values.reshape(len(values), len(agents), len(judges)).mean(axis=2)  # scenario × agent
    point = per_agent[common].mean(axis=0)
    w = weights * common[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        draws = (w @ np.where(common[:, None], per_agent, 0.0)) / w.sum(axis=1, keepdims=True)  # draw × agent
    ranks = np.vstack([_ranks(row) for row in draws if not np.isnan(row).any()])
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(ranks, [tail, 100.0 - tail], axis=0) if len(ranks) else (None, None)
    point_ranks = _ranks(point)
    rows = [
        RankRow(
            agent=agent, pass_rate=float(point[i]), rank=int(np.floor(point_ranks[i])),
            rank_low=None if low is None else int(np.floor(low[i])),
            rank_high=None if high is None else int(np.ceil(high[i])),
        )
        for i, agent in enumerate(agents)
    ]  # fmt: skip
    rows.sort(key=lambda r: (r.rank, r.agent))
    return rows, int(common.sum())


def _ranks(values: np.ndarray) -> np.ndarray:
    """1 = highest; ties share their best rank (competition ranking)."""
    return np.array([1 + int((values > v + 1e-12).sum()) for v in values], dtype=float)


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2g}" if value >= 0.001 else f"{value:.1e}"


def compare_runs(
    paths: list[Path | str], *, alpha: float = DEFAULT_ALPHA, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED
) -> tuple[Comparison, list[Job]]:
    """Load the folders (runs, sweeps) and compare every agent pair under every judge."""
    sources = [str(p) for p in paths]
    groups = [load_jobs([Path(p)]) for p in paths]
    jobs = [job for group in groups for job in group]
    labels = side_labels(groups, sources)
    frame = jobs_frame(jobs, labels=labels)
    panels = sorted(panel_labels(jobs, labels))
    warnings = (version_warnings(jobs, labels) + [f"left out: {line}" for line in left_out_lines(jobs)]
                + [f"damaged input: {line}" for job in jobs for line in job.disagreements])
    try:
        comparison = compare_frame(frame, sources=sources, alpha=alpha, draws=draws, seed=seed, panels=panels)
    except ReportError as exc:  # a refusal names what was left out: it may be why too few agents remain
        if not warnings:
            raise
        said, fix, how = str(exc).partition(". Fix: ")
        raise ReportError(f"{said} ({'; '.join(warnings)}){fix}{how}") from None
    comparison.warnings = warnings
    return comparison, jobs


def version_warnings(jobs: list[Job], labels: dict[Path, tuple[str, str]]) -> list[str]:
    """A warning per benchmark whose compared finished runs were produced on different versions (as ``diff``'s)."""
    by_agent: dict[str, dict[str, set[str]]] = {}
    for job in jobs:
        if job.finished:
            for name, versions in benchmark_versions([job]).items():
                by_agent.setdefault(name, {}).setdefault(labels[job.path][0], set()).update(versions)
    warnings = []
    for name, agents in sorted(by_agent.items()):
        if len(set().union(*agents.values())) > 1:
            sides = "; ".join(f"{agent}: {', '.join(sorted(v))}" for agent, v in sorted(agents.items()))
            warnings.append(f"benchmark '{name}' differs between the compared runs ({sides}): scenarios with the same "
                            "id may have different content, so a difference may come from the data, not the agents")
    return warnings


def compare_markdown(comparison: Comparison, max_flips: int = 5) -> str:
    c = comparison
    lines = [
        "# skillbench compare",
        "",
        f"{len(c.agents)} agent(s) × {len(c.judges)} judge(s) · up to {c.trials} trial(s) per scenario · "
        f"α = {c.alpha} after {c.correction}",
        "",
        "## Verdict per pair",
        "",
    ]
    lines[4:4] = [f"**Warning**: {warning}" for warning in c.warnings] + ([""] if c.warnings else [])
    lines += [f"- {v.line}" for v in c.verdicts] or ["- (no pair shares a scenario under a common judge)"]
    lines += ["", "## Per pair and judge", ""]
    rows = [
        [
            t.agent_a, t.agent_b, t.judge, str(t.scenarios), pct(t.rate_a), pct(t.rate_b),
            "—" if t.difference is None else f"{t.difference * 100:+.1f}",
            "—" if t.ci_low is None else f"[{t.ci_low * 100:+.1f}, {t.ci_high * 100:+.1f}]",  # type: ignore[operator]
            str(len(t.a_better)), str(len(t.b_better)), _p(t.p_value), _p(t.p_adjusted), "yes" if t.significant else "no",
        ]
        for t in c.tests
    ]  # fmt: skip
    headers = ["A", "B", "Judge", "Scenarios", "A %", "B %", "Δ points", f"{c.level:.0%} CI", "A better",
               "B better", "McNemar p", "Holm p", "Significant"]  # fmt: skip
    lines.append(markdown_table(rows, headers))
    unit = "scenarios where one agent did better (per-scenario pass rate over trials)" if c.trials > 1 else (
        "scenarios one agent passed and the other failed"
    )
    lines += ["", f"_A better / B better: {unit}; McNemar: exact two-sided binomial test on those counts._"]
    if c.ranking:
        lines += ["", f"## Ranking (mean over judges, {c.ranking_scenarios} common scenarios)", ""]
        lines.append(
            markdown_table(
                [
                    [str(r.rank), r.agent, pct(r.pass_rate), "—" if r.rank_low is None else f"{r.rank_low}–{r.rank_high}"]
                    for r in c.ranking
                ],
                ["Rank", "Agent", "Pass %", f"Rank {c.level:.0%} interval"],
            )
        )
        lines += ["", f"_Rank interval: percentile bootstrap over scenarios ({c.draws} draws, seed {c.seed})._"]
    flips = [t for t in c.tests if t.a_better or t.b_better]
    if flips and max_flips:
        lines += ["", "## Flipped scenarios (first few per pair and judge; all in the JSON)", ""]
        for t in flips:
            lines.append(
                f"- {t.agent_a} vs {t.agent_b} × {t.judge}: A better on {_few(t.a_better, max_flips)}; "
                f"B better on {_few(t.b_better, max_flips)}"
            )
    if c.notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in c.notes]
    return "\n".join(lines) + "\n"


def _few(items: list[str], limit: int) -> str:
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")
