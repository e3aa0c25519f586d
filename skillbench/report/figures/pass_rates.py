"""Table 1 and the differences between adjacent agents: each agent's pass rate under each judge, the rule-based
rate, the mean over judges with its CI, the rank, and the paired CI of each difference between neighbours."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from skillbench.report import resampling
from skillbench.report.model import AdjacentDifference, Cell, ModelRow
from skillbench.report.rows import ReportRows

CellDraws = Mapping[tuple[str, str], np.ndarray]
CellCounts = Mapping[tuple[str, str], tuple[np.ndarray, np.ndarray]]  # passes and scored rows per scenario


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
    rows: ReportRows, agent: str, agent_rows: pd.DataFrame, cells: Mapping[tuple[str, str], Cell], counts: CellCounts,
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
    parts = [counts[(agent, judge)] for judge in rows.member_judges if (agent, judge) in counts]
    if parts:  # the mean over judges is a mean of shares over the same scenarios (report/resampling.py)
        row.mean_ci_low, row.mean_ci_high = resampling.mean_share_interval(
            np.column_stack([num for num, _ in parts]), np.column_stack([den for _, den in parts]), rows.level)
    return row, rollouts


def model_rows(rows: ReportRows, cells: Mapping[tuple[str, str], Cell], counts: CellCounts) -> dict[str, ModelRow]:
    """Table 1 rows by agent, in Table 1 order (mean over judges, best first), ranked; ``cells`` by (agent, judge),
    ``counts``: each scored cell's passes and scored rows per scenario (``CellFigures.counts``)."""
    frame = rows.frame[["agent_label", "scenario_id", "trial", "rule_passed", "simulated"]]
    by_agent = dict(list(frame.groupby("agent_label"))) if not frame.empty else {}
    parts = {
        agent: _model_row(rows, agent, by_agent.get(agent, frame.iloc[0:0]), cells, counts)
        for agent in rows.agents_seen
    }
    table = {agent: row for agent, (row, _) in parts.items()}
    for agent, row in table.items():
        if row.rule_pass_rate is not None:
            row.rule_ci_low, row.rule_ci_high = rows.rate_interval(parts[agent][1], "rule_passed")
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
        low, high = resampling.percentile_ci(means[higher] - means[lower], level)
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
