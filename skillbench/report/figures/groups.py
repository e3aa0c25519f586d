"""Pass rates by what decides a deployment: the scenario path, the industry and the skill, per agent × judge, each
with its confidence interval, and the flag where an agent is significantly worse on one group than on the rest of its
scenarios (shown by ``skillbench/report/breakdowns.py``). A group's rate and the rest's count the same unit, every
scored row (with trials, every scored trial), as Table 1 does; the interval is the exact one over scenarios
(``report/resampling.py``).

The flag's test: per agent × judge and group, a one-sided Fisher exact test of the group's passes against the
passes on every other scenario of the same agent × judge (is the group worse than the rest?); the p-values of one
agent × judge and breakdown are Holm-adjusted over its groups (family-wise error 5 %), and a group is flagged when
its adjusted p < 0.05. With repeated trials (a ``trial`` column) a scenario counts once in the test, by the
majority of its trials (a tie is a fail), since trials of one scenario are not independent draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import gammaln, logsumexp

from skillbench.report.model import GroupRate
from skillbench.report.resampling import share_intervals
from skillbench.report.rows import ReportRows
from skillbench.report.stats import holm

ALPHA = 0.05
# breakdown key → (frame column, header)
BREAKDOWNS: dict[str, tuple[str, str]] = {"path": ("path", "Path"), "industry": ("industry", "Industry"),
                                         "skill": ("skill_id", "Skill")}


def worse_p_many(passes: np.ndarray, n: np.ndarray, rest_passes: np.ndarray, rest_n: np.ndarray) -> np.ndarray:
    """The one-sided Fisher exact p that each group's pass rate is below the rest's (1.0 when either side is empty):
    the hypergeometric lower tail P(X ≤ passes) of drawing the group's n units from its agent × judge's n + rest_n,
    of which passes + rest_passes passed. Summed in log space from ``scipy.special`` (which the intervals load
    anyway) rather than through ``scipy.stats``, whose import alone cost the paper-scale report ~55 MB and ~0.7 s."""
    k, a = passes.astype(np.int64), n.astype(np.int64)
    total, good = a + rest_n.astype(np.int64), k + rest_passes.astype(np.int64)
    low = np.maximum(0, a - (total - good))  # the fewest passes the group can hold
    width = int((k - low).max(initial=-1)) + 1
    if width <= 0:
        return np.ones(len(k))
    j = low[:, None] + np.arange(width)[None, :]  # each group's outcomes at or below its own, padded
    inside = j <= k[:, None]
    j = np.where(inside, j, low[:, None])
    log_pmf = (_log_comb(good[:, None], j) + _log_comb((total - good)[:, None], a[:, None] - j)
               - _log_comb(total, a)[:, None])
    p = np.exp(logsumexp(np.where(inside, log_pmf, -np.inf), axis=1))
    return np.where((a == 0) | (rest_n == 0), 1.0, np.minimum(1.0, p))


def _log_comb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k), elementwise."""
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def group_rates(rows: ReportRows, key: str) -> list[GroupRate]:
    """Every agent × judge × group of breakdown ``key`` with scored rows: rate, CI, the rest's rate and the flag.
    Vectorised over the groups (a 17 × 5 × 500 sweep has ~4,000 agent × judge × skill groups)."""
    column = BREAKDOWNS[key][0]
    if not rows.jobs or rows.frame.empty or column not in rows.frame.columns:
        return []
    frame = rows.frame
    scored = frame["passed"].notna().to_numpy()
    if not scored.any():
        return []
    passed = frame["passed"].to_numpy(dtype=object)[scored].astype(bool)
    cell_labels = (frame["agent_label"] + "\x1f" + frame["judge_label"]).to_numpy()[scored]
    cell_code, cells = pd.factorize(cell_labels, sort=True)
    group_code, groups = pd.factorize(np.array([str(v) for v in frame[column].tolist()], dtype=object)[scored], sort=True)
    position = rows.scenario_codes[scored]
    parts, part = np.unique(cell_code * len(groups) + group_code, return_inverse=True)
    n_scenarios = len(rows.scenario_ids)
    num, den = np.zeros((n_scenarios, len(parts))), np.zeros((n_scenarios, len(parts)))
    np.add.at(den, (position, part), 1.0)
    np.add.at(num, (position, part), passed.astype(float))
    low, high = share_intervals(num, den, rows.level)  # one interval per group, its scenarios the clusters
    n = np.bincount(part, minlength=len(parts))
    hits = np.bincount(part, weights=passed.astype(float), minlength=len(parts))
    # The test's units: one per scenario (with trials, the majority of its trials; a tie fails).
    unit_keys, unit_of_row = np.unique(part * n_scenarios + position, return_inverse=True)
    unit_pass = np.bincount(unit_of_row, weights=passed.astype(float)) / np.bincount(unit_of_row) > 0.5
    unit_part = unit_keys // n_scenarios
    t_n = np.bincount(unit_part, minlength=len(parts)).astype(float)
    t_hits = np.bincount(unit_part, weights=unit_pass.astype(float), minlength=len(parts))
    part_cell = parts // len(groups)
    cell_n, cell_hits = np.bincount(part_cell, weights=t_n), np.bincount(part_cell, weights=t_hits)
    rest_n, rest_hits = cell_n[part_cell] - t_n, cell_hits[part_cell] - t_hits
    p = worse_p_many(t_hits, t_n, rest_hits, rest_n)
    # What is shown is in the unit of the rates above (every scored row, as Table 1), for the rest too.
    rows_n, rows_hits = np.bincount(part_cell, weights=n), np.bincount(part_cell, weights=hits)
    rest_rows, rest_row_hits = rows_n[part_cell] - n, rows_hits[part_cell] - hits
    adjusted = np.ones(len(parts))
    for cell in np.unique(part_cell):
        mine = np.flatnonzero(part_cell == cell)
        adjusted[mine] = holm(list(p[mine]))
    agents_judges = [str(c).split("\x1f", 1) for c in cells]
    out: list[GroupRate] = []
    for i, code in enumerate(parts):
        agent, judge = agents_judges[code // len(groups)]
        out.append(GroupRate(
            breakdown=key, agent=agent, judge=judge, group=str(groups[code % len(groups)]), n=int(n[i]),  # type: ignore[arg-type]
            pass_rate=float(hits[i] / n[i]), ci_low=None if np.isnan(low[i]) else float(low[i]),
            ci_high=None if np.isnan(high[i]) else float(high[i]),
            rest_pass_rate=float(rest_row_hits[i] / rest_rows[i]) if rest_rows[i] else None, rest_n=int(rest_rows[i]),
            scenarios=int(t_n[i]), rest_scenarios=int(rest_n[i]), p_holm=float(adjusted[i]),
            significantly_worse=bool(adjusted[i] < ALPHA)))
    return out
