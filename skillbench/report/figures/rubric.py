"""Table 2: mean rubric scores (1–5) and the hallucination rate per agent, per judge and averaged over judges."""

from __future__ import annotations

import numpy as np
import pandas as pd

from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.report import stats
from skillbench.report.model import RubricRow


def rubric_rows(frame: pd.DataFrame, order: list[str], judges: list[str]) -> list[RubricRow]:
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
        means = {c: stats.mean_or_none([v[c] for v in per_judge.values() if v[c] is not None]) for c in columns}
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


def _float(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if np.isnan(number) else number
