"""Compute every table of a report from loaded jobs: pass rates, rubric means, agreement, CIs."""

from __future__ import annotations

import itertools
import warnings
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.report import stats
from skillbench.report.frame import job_labels, jobs_frame
from skillbench.report.jobs import Job, ReportError
from skillbench.report.model import (
    AdjacentDifference,
    BootstrapInfo,
    Cell,
    JobInfo,
    JudgePair,
    JudgeStrictness,
    ModelRow,
    ModelStrictness,
    PanelAgreement,
    RankingPair,
    RankingStability,
    Report,
    RubricRow,
)

DEFAULT_DRAWS = 2000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95
_TIE = 1e-12


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice is a legitimate "no data" here
        return np.nanmean(values, axis=axis)


def _share(values: pd.Series) -> float | None:
    """Share of True among known values; NA (judge or infra error) is neither a pass nor a fail."""
    known = values.dropna()
    return float(known.astype(bool).mean()) if len(known) else None


def _unit_ids(frame: pd.DataFrame) -> pd.Series:
    """One id per transcript: agent label + scenario + rollout key (a missing key takes its group's key)."""
    first = frame.groupby(["agent_label", "scenario_id"])["rollout_key"].transform("first")
    keys = frame["rollout_key"].fillna(first).fillna("")
    return frame["agent_label"] + "\x1f" + frame["scenario_id"] + "\x1f" + keys.astype(str)


def build_report(
    jobs: list[Job],
    *,
    title: str = "skillbench report",
    sources: list[str] | None = None,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> tuple[Report, pd.DataFrame]:
    """The report of these jobs and the row frame it was computed from (finished jobs only)."""
    if not jobs:
        raise ReportError("no job folders to report on")
    frame = jobs_frame(jobs)
    labels = job_labels(jobs)
    raw_rows = sum(len(j.rows) for j in jobs if j.finished)
    duplicates = raw_rows - len(frame)
    notes: list[str] = []

    judges = sorted({labels[j.path][1] for j in jobs})
    agents_all = sorted({labels[j.path][0] for j in jobs})
    scenario_ids = sorted(frame["scenario_id"].unique()) if not frame.empty else []
    weights = stats.bootstrap_weights(len(scenario_ids), draws, seed)
    position = {s: i for i, s in enumerate(scenario_ids)}

    def vectors(sub: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
        num, den = np.zeros(len(scenario_ids)), np.zeros(len(scenario_ids))
        valid = sub[sub[column].notna()]
        index = valid["scenario_id"].map(position).to_numpy(dtype=int)
        np.add.at(den, index, 1.0)
        np.add.at(num, index, valid[column].astype(bool).to_numpy(dtype=float))
        return num, den

    # Cells: coverage, rate and CI.
    cells: list[Cell] = []
    cell_draws: dict[tuple[str, str], np.ndarray] = {}
    groups = dict(list(frame.groupby(["agent_label", "judge_label"]))) if not frame.empty else {}
    for agent, judge in itertools.product(agents_all, judges):
        cell_jobs = [j for j in jobs if labels[j.path] == (agent, judge)]
        sub = groups.get((agent, judge))
        finished = [j for j in cell_jobs if j.finished]
        if sub is not None and finished:
            rate = _share(sub["passed"])
            cell = Cell(
                agent=agent,
                judge=judge,
                status="ok" if rate is not None else "no_verdicts",
                scenarios=len(sub),
                scored=int(sub["passed"].notna().sum()),
                passed=int(sub["passed"].sum()),
                judge_errors=int((sub["status"] == "judge_error").sum()),
                infra_errors=int((sub["status"] == "infra_error").sum()),
                pass_rate=rate,
                jobs=[str(j.path) for j in cell_jobs],
            )
            if rate is not None:
                draws_ = stats.ratio_draws(weights, *vectors(sub, "passed"))
                cell_draws[(agent, judge)] = draws_
                cell.ci_low, cell.ci_high = stats.percentile_ci(draws_, level)
            if len(cell_jobs) > len(finished):
                cell.note = f"{len(cell_jobs) - len(finished)} other job(s) of this cell did not finish"
        elif finished:
            cell = Cell(agent=agent, judge=judge, status="no_verdicts", jobs=[str(j.path) for j in cell_jobs])
            cell.note = "the job finished with no result rows"
        elif cell_jobs:
            status = "unreadable" if any(j.status == "unreadable" for j in cell_jobs) else "unfinished"
            hint = next((j.error_hint for j in cell_jobs if j.error_hint), None)
            cell = Cell(agent=agent, judge=judge, status=status, jobs=[str(j.path) for j in cell_jobs])
            cell.note = (
                "job did not finish (no summary.json)" if status == "unfinished" else "job files are invalid"
            )
            if hint:
                cell.note += f"; reason: {hint}"
        else:
            cell = Cell(
                agent=agent, judge=judge, status="missing", note="no job folder for this agent × judge"
            )
        cells.append(cell)
    cell_by = {(c.agent, c.judge): c for c in cells}

    # Table 1: per-agent means over judges, rule-based rate; agents ordered by the mean.
    model_rows: dict[str, ModelRow] = {}
    mean_draws: dict[str, np.ndarray] = {}
    for agent in agents_all:
        rates = {judge: cell_by[(agent, judge)].pass_rate for judge in judges}
        present = [r for r in rates.values() if r is not None]
        agent_rows = frame[frame["agent_label"] == agent]
        # The rule verdict belongs to the rollout, not the judge: count each scenario once per agent.
        rollouts = agent_rows.sort_values("rule_passed", na_position="last").drop_duplicates("scenario_id")
        rule_rate = _share(rollouts["rule_passed"])
        row = ModelRow(
            rank=0,
            agent=agent,
            simulated=bool(agent_rows["simulated"].any()) if not agent_rows.empty else False,
            pass_rates=rates,
            rule_pass_rate=rule_rate,
            rule_rollouts=int(rollouts["rule_passed"].notna().sum()),
            mean_pass_rate=float(np.mean(present)) if present else None,
            judges_in_mean=len(present),
        )
        if rule_rate is not None:
            row.rule_ci_low, row.rule_ci_high = stats.percentile_ci(
                stats.ratio_draws(weights, *vectors(rollouts, "rule_passed")), level
            )
        per_judge = [cell_draws[(agent, j)] for j in judges if (agent, j) in cell_draws]
        if per_judge:
            mean_draws[agent] = _nanmean(np.vstack(per_judge), axis=0)
            row.mean_ci_low, row.mean_ci_high = stats.percentile_ci(mean_draws[agent], level)
        model_rows[agent] = row
    order = sorted(
        agents_all,
        key=lambda a: (model_rows[a].mean_pass_rate is None, -(model_rows[a].mean_pass_rate or 0.0), a),
    )
    for rank, agent in enumerate(order, start=1):
        model_rows[agent].rank = rank

    adjacent: list[AdjacentDifference] = []
    ranked = [a for a in order if model_rows[a].mean_pass_rate is not None]
    for higher, lower in itertools.pairwise(ranked):
        low, high = stats.percentile_ci(mean_draws[higher] - mean_draws[lower], level)
        adjacent.append(
            AdjacentDifference(
                higher=higher,
                lower=lower,
                difference=float(model_rows[higher].mean_pass_rate - model_rows[lower].mean_pass_rate),  # type: ignore[operator]
                ci_low=low,
                ci_high=high,
                excludes_zero=None if low is None or high is None else bool(low > 0 or high < 0),
            )
        )

    table2 = _rubric(frame, order, judges)
    table3, panel = _agreement(frame, judges)
    strict_models, strict_judges = _strictness(model_rows, order, judges)
    ranking = _ranking(model_rows, order, judges)

    # Caveats the reader must see.
    simulated = bool(frame["simulated"].any()) if not frame.empty else False
    if simulated:
        notes.append(
            "SIMULATED models present: offline, deterministic stand-ins; their numbers are not real model results."
        )
    for cell in cells:
        if cell.status in {"missing", "unfinished", "unreadable"}:
            notes.append(f"{cell.status} cell {cell.agent} × {cell.judge}: {cell.note}")
        elif cell.judge_errors or cell.infra_errors:
            notes.append(
                f"{cell.agent} × {cell.judge}: {cell.judge_errors} judge error(s) and {cell.infra_errors} infra error(s) "
                "excluded from the pass rate (not counted as failures)"
            )
    if duplicates:
        notes.append(
            f"{duplicates} duplicate row(s) of the same cell and scenario in several jobs: kept the latest finished job's"
        )
    for job in jobs:
        notes.extend(job.problems)
    pass_rules = sorted(frame["pass_rule"].unique()) if not frame.empty else []
    report = Report(
        title=title,
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        sources=sources or sorted({str(j.path.parent) for j in jobs}),
        simulated=simulated,
        pass_rules=pass_rules,
        agents=order,
        judges=judges,
        jobs=[
            JobInfo(
                path=str(j.path),
                agent=labels[j.path][0],
                judge=labels[j.path][1],
                status=j.status,  # type: ignore[arg-type]
                rows=len(j.rows),
                problems=j.problems,
                error_hint=j.error_hint,
            )
            for j in sorted(jobs, key=lambda j: str(j.path))
        ],
        cells=cells,
        table1=[model_rows[a] for a in order],
        table2=table2,
        table3=table3,
        panel=panel,
        strictness_models=strict_models,
        strictness_judges=strict_judges,
        ranking=ranking,
        adjacent=adjacent,
        bootstrap=BootstrapInfo(draws=draws, seed=seed, level=level, scenarios=len(scenario_ids)),
        counts={
            "jobs": len(jobs),
            "jobs_finished": sum(j.finished for j in jobs),
            "jobs_unfinished": sum(j.status == "unfinished" for j in jobs),
            "jobs_unreadable": sum(j.status == "unreadable" for j in jobs),
            "cells_missing": sum(c.status == "missing" for c in cells),
            "rows": len(frame),
            "scored": int(frame["passed"].notna().sum()),
            "judge_errors": int((frame["status"] == "judge_error").sum()),
            "infra_errors": int((frame["status"] == "infra_error").sum()),
            "duplicates_dropped": duplicates,
        },
        notes=notes,
    )
    return report, frame


def _rubric(frame: pd.DataFrame, order: list[str], judges: list[str]) -> list[RubricRow]:
    columns = [*DIMENSION_NAMES, "hallucination_rate"]
    scored = frame[frame["task_completion"].notna()].copy()
    scored["hallucination_rate"] = scored["hallucinated_action"].astype(float)
    for dimension in DIMENSION_NAMES:
        scored[dimension] = scored[dimension].astype(float)
    per_cell = scored.groupby(["agent_label", "judge_label"])[columns].mean() if not scored.empty else None
    counts = scored.groupby(["agent_label", "judge_label"]).size() if not scored.empty else None
    rows: list[RubricRow] = []
    for agent in order:
        per_judge: dict[str, dict[str, float | None]] = {}
        scored_n: dict[str, int] = {}
        for judge in judges:
            if per_cell is not None and (agent, judge) in per_cell.index:
                values = per_cell.loc[(agent, judge)]
                per_judge[judge] = {c: _float(values[c]) for c in columns}
                scored_n[judge] = int(counts.loc[(agent, judge)])  # type: ignore[union-attr]
        means = {c: _mean([v[c] for v in per_judge.values() if v[c] is not None]) for c in columns}
        rows.append(
            RubricRow(
                agent=agent,
                means={d: means[d] for d in DIMENSION_NAMES},
                hallucination_rate=means["hallucination_rate"],
                per_judge=per_judge,
                scored=scored_n,
            )
        )
    return rows


def _agreement(frame: pd.DataFrame, judges: list[str]) -> tuple[list[JudgePair], PanelAgreement]:
    verdicts: dict[str, dict[str, bool]] = {j: {} for j in judges}
    if not frame.empty:
        scored = frame[frame["passed"].notna()]
        for judge, unit, passed in zip(
            scored["judge_label"], _unit_ids(frame)[scored.index], scored["passed"], strict=True
        ):
            verdicts[judge][unit] = bool(passed)
    pairs: list[JudgePair] = []
    for a, b in itertools.combinations(judges, 2):
        va, vb = stats.pair_overlap(verdicts[a], verdicts[b])
        kappa = stats.cohen_kappa(va, vb)
        note = None
        if not va:
            note = "no transcript judged by both"
        elif kappa is None:
            note = "undefined: both judges gave the same verdict to every shared transcript"
        pairs.append(
            JudgePair(
                judge_a=a,
                judge_b=b,
                n=len(va),
                agreement=stats.percent_agreement(va, vb),
                kappa=kappa,
                note=note,
            )
        )
    units = sorted(set().union(*verdicts.values()), key=str) if verdicts else []
    complete = [u for u in units if all(u in verdicts[j] for j in judges)]
    fleiss = None
    if len(judges) >= 2 and complete:
        counts = np.array(
            [[sum(verdicts[j][u] for j in judges), sum(not verdicts[j][u] for j in judges)] for u in complete]
        )
        fleiss = stats.fleiss_kappa(counts)
    ratings = [[verdicts[j].get(u) for j in judges] for u in units]
    alpha = stats.krippendorff_alpha_nominal(ratings) if len(judges) >= 2 else None
    kappas = [p.kappa for p in pairs if p.kappa is not None]
    agreements = [p.agreement for p in pairs if p.agreement is not None]
    panel = PanelAgreement(
        judges=judges,
        mean_agreement=_mean(agreements),
        mean_kappa=_mean(kappas),
        pairs_with_kappa=len(kappas),
        fleiss_kappa=fleiss,
        fleiss_items=len(complete) if len(judges) >= 2 else 0,
        krippendorff_alpha=alpha,
        alpha_items=sum(sum(r is not None for r in rating) >= 2 for rating in ratings),
    )
    return pairs, panel


def _strictness(
    rows: dict[str, ModelRow], order: list[str], judges: list[str]
) -> tuple[list[ModelStrictness], list[JudgeStrictness]]:
    per_model: list[ModelStrictness] = []
    strictest: dict[str, int] = dict.fromkeys(judges, 0)
    lenient: dict[str, int] = dict.fromkeys(judges, 0)
    compared: dict[str, int] = dict.fromkeys(judges, 0)
    offsets: dict[str, list[float]] = {j: [] for j in judges}
    for agent in order:
        rates = {j: r for j, r in rows[agent].pass_rates.items() if r is not None}
        if not rates:
            per_model.append(ModelStrictness(agent=agent, most_lenient=[], strictest=[], spread_points=None))
            continue
        high, low = max(rates.values()), min(rates.values())
        most = [j for j, r in rates.items() if r >= high - _TIE]
        least = [j for j, r in rates.items() if r <= low + _TIE]
        per_model.append(
            ModelStrictness(
                agent=agent, most_lenient=most, strictest=least, spread_points=(high - low) * 100.0
            )
        )
        if len(rates) >= 2:
            mean = float(np.mean(list(rates.values())))
            for judge, rate in rates.items():
                compared[judge] += 1
                offsets[judge].append((rate - mean) * 100.0)
            for judge in least:
                strictest[judge] += 1
            for judge in most:
                lenient[judge] += 1
    per_judge = [
        JudgeStrictness(
            judge=j,
            models=compared[j],
            strictest_for=strictest[j],
            most_lenient_for=lenient[j],
            mean_offset_points=_mean(offsets[j]),
        )
        for j in judges
    ]
    return per_model, per_judge


def _ranking(rows: dict[str, ModelRow], order: list[str], judges: list[str]) -> RankingStability:
    pairs: list[RankingPair] = []
    for a, b in itertools.combinations(judges, 2):
        shared = [
            m
            for m in order
            if rows[m].pass_rates.get(a) is not None and rows[m].pass_rates.get(b) is not None
        ]
        tau = stats.kendall_tau(
            [rows[m].pass_rates[a] for m in shared], [rows[m].pass_rates[b] for m in shared]
        )  # type: ignore[misc]
        pairs.append(RankingPair(judge_a=a, judge_b=b, models=len(shared), tau=tau))
    top_by_judge: dict[str, list[str]] = {}
    for judge in judges:
        rates = {m: rows[m].pass_rates.get(judge) for m in order}
        present = {m: r for m, r in rates.items() if r is not None}
        if present:
            best = max(present.values())
            top_by_judge[judge] = [m for m, r in present.items() if r >= best - _TIE]
    means = {m: rows[m].mean_pass_rate for m in order if rows[m].mean_pass_rate is not None}
    top_by_mean = [m for m, r in means.items() if r >= max(means.values()) - _TIE] if means else []
    same: bool | None = None
    if len(top_by_judge) >= 2:
        same = bool(set.intersection(*(set(v) for v in top_by_judge.values())))
    taus = [p.tau for p in pairs if p.tau is not None]
    return RankingStability(
        pairs=pairs,
        mean_tau=_mean(taus),
        top_by_judge=top_by_judge,
        top_by_mean=top_by_mean,
        same_top_under_every_judge=same,
    )


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _float(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if np.isnan(number) else number
