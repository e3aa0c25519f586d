"""Table 1 and the differences between adjacent agents: each agent's pass rate under each judge, the rule-based
rate, the mean over judges with its CI, the rank, and the paired CI of each difference between neighbours."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillbench.report import stats
from skillbench.report.model import AdjacentDifference, Cell, ModelRow
from skillbench.report.rows import ReportRows

CellDraws = Mapping[tuple[str, str], np.ndarray]


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice is a legitimate "no data" here
        return np.nanmean(values, axis=axis)


def _share(values: pd.Series) -> float | None:
    """Share of True among known values; NA (judge or infra error) is neither a pass nor a fail."""
    known = values.dropna()
    return float(known.astype(bool).mean()) if len(known) else None


def mean_draws(rows: ReportRows, cell_draws: CellDraws) -> dict[str, np.ndarray]:
    """Per agent: bootstrap draws of the mean over judges (paired across agents)."""
    means: dict[str, np.ndarray] = {}
    for agent in rows.agents_seen:
        per_judge = [cell_draws[(agent, j)] for j in rows.member_judges if (agent, j) in cell_draws]
        if per_judge:
            means[agent] = _nanmean(np.vstack(per_judge), axis=0)
    return means


def _model_row(
    rows: ReportRows, agent: str, agent_rows: pd.DataFrame, cells: Mapping[tuple[str, str], Cell],
    means: Mapping[str, np.ndarray],
) -> tuple[ModelRow, pd.DataFrame]:
    """The agent's Table 1 row without its rule CI, and the rollouts that CI is drawn from."""
    rates = {judge: cells[(agent, judge)].pass_rate for judge in rows.judges}
    present = [rates[judge] for judge in rows.member_judges if rates[judge] is not None]  # panels: not a judge
    # The rule verdict belongs to the rollout, not the judge: count each scenario (and trial) once per agent.
    rollouts = agent_rows.sort_values("rule_passed", na_position="last").drop_duplicates(["scenario_id", "trial"])
    row = ModelRow(
        rank=0,
        agent=agent,
        simulated=bool(agent_rows["simulated"].any()) if not agent_rows.empty else False,
        pass_rates=rates,
        rule_pass_rate=_share(rollouts["rule_passed"]),
        rule_rollouts=int(rollouts["rule_passed"].notna().sum()),
        mean_pass_rate=float(np.mean(present)) if present else None,
        judges_in_mean=len(present),
    )
    if agent in means:
        row.mean_ci_low, row.mean_ci_high = stats.percentile_ci(means[agent], rows.level)
    return row, rollouts


def model_rows(
    rows: ReportRows, cells: Mapping[tuple[str, str], Cell], means: Mapping[str, np.ndarray]
) -> dict[str, ModelRow]:
    """Table 1 rows by agent, in Table 1 order (mean over judges, best first), ranked; ``cells`` by (agent, judge),
    ``means``: :func:`mean_draws`."""
    frame = rows.frame[["agent_label", "scenario_id", "trial", "rule_passed", "simulated"]]
    by_agent = dict(list(frame.groupby("agent_label"))) if not frame.empty else {}
    parts = {
        agent: _model_row(rows, agent, by_agent.get(agent, frame.iloc[0:0]), cells, means)
        for agent in rows.agents_seen
    }
    table = {agent: row for agent, (row, _) in parts.items()}
    # Every agent's rule-verdict bootstrap in one matrix product, as for the cells.
    ruled = [agent for agent, row in table.items() if row.rule_pass_rate is not None]
    for agent, draws in zip(ruled, rows.rate_draws_many([(parts[a][1], "rule_passed") for a in ruled]), strict=True):
        table[agent].rule_ci_low, table[agent].rule_ci_high = stats.percentile_ci(draws, rows.level)
    order = sorted(table, key=lambda a: (table[a].mean_pass_rate is None, -(table[a].mean_pass_rate or 0.0), a))
    for rank, agent in enumerate(order, start=1):
        table[agent].rank = rank
    return {agent: table[agent] for agent in order}


def adjacent_differences(
    ranked_rows: Mapping[str, ModelRow], means: Mapping[str, np.ndarray], level: float
) -> list[AdjacentDifference]:
    """Each agent against the next one down Table 1 (``ranked_rows``: :func:`model_rows`), with the paired CI."""
    ranked = [a for a, row in ranked_rows.items() if row.mean_pass_rate is not None]
    differences: list[AdjacentDifference] = []
    for higher, lower in itertools.pairwise(ranked):
        low, high = stats.percentile_ci(means[higher] - means[lower], level)
        differences.append(
            AdjacentDifference(
                higher=higher,
                lower=lower,
                difference=float(ranked_rows[higher].mean_pass_rate - ranked_rows[lower].mean_pass_rate),  # type: ignore[operator]
                ci_low=low,
                ci_high=high,
                excludes_zero=None if low is None or high is None else bool(low > 0 or high < 0),
            )
        )
    return differences
