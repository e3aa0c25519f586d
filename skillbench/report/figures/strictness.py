"""Judge strictness (which judge is the most lenient or strictest for each agent, and by how much) and ranking
stability (Kendall's τ between the judges' rankings of the agents; whether every judge puts the same agent on top).
Both read Table 1's rates (``figures/pass_rates.py``)."""

from __future__ import annotations

import itertools

import numpy as np

from skillbench.report import stats
from skillbench.report.model import (
    JudgeStrictness,
    ModelRow,
    ModelStrictness,
    RankingPair,
    RankingStability,
)

_TIE = 1e-12  # rates closer than this are a tie


def judge_strictness(
    rows: dict[str, ModelRow], order: list[str], judges: list[str]
) -> tuple[list[ModelStrictness], list[JudgeStrictness]]:
    per_model: list[ModelStrictness] = []
    strictest: dict[str, int] = dict.fromkeys(judges, 0)
    lenient: dict[str, int] = dict.fromkeys(judges, 0)
    compared: dict[str, int] = dict.fromkeys(judges, 0)
    offsets: dict[str, list[float]] = {j: [] for j in judges}
    for agent in order:
        rates = {j: r for j, r in rows[agent].pass_rates.items() if r is not None and j in judges}
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
            mean_offset_points=stats.mean_or_none(offsets[j]),
        )
        for j in judges
    ]
    return per_model, per_judge


def ranking_stability(rows: dict[str, ModelRow], order: list[str], judges: list[str]) -> RankingStability:
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
        mean_tau=stats.mean_or_none(taus),
        top_by_judge=top_by_judge,
        top_by_mean=top_by_mean,
        same_top_under_every_judge=same,
    )
