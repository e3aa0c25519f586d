"""Table 3: how far the judges agree on the pass/fail verdict: per pair, percent agreement and Cohen's κ; over the
panel, Fleiss' κ (transcripts judged by every judge) and Krippendorff's α (by at least two)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from skillbench.report import stats
from skillbench.report.model import JudgePair, PanelAgreement
from skillbench.report.rows import unit_ids


def verdict_matrix(frame: pd.DataFrame, judges: list[str]) -> np.ndarray:
    """Transcripts × judges: 1 pass, 0 fail, -1 not judged (or no verdict); transcripts in id order."""
    scored = frame[frame["passed"].notna()]
    if scored.empty:
        return np.full((0, len(judges)), -1, dtype=np.int8)
    codes, units = pd.factorize(unit_ids(frame)[scored.index], sort=True)
    column = pd.Index(judges, dtype=object).get_indexer(pd.Index(scored["judge_label"], dtype=object))
    matrix = np.full((len(units), len(judges)), -1, dtype=np.int8)
    matrix[codes, column] = scored["passed"].astype(bool).to_numpy(dtype=np.int8)
    return matrix


def judge_agreement(frame: pd.DataFrame, judges: list[str]) -> tuple[list[JudgePair], PanelAgreement]:
    matrix = verdict_matrix(frame, judges)
    judged = matrix >= 0
    pairs: list[JudgePair] = []
    for a, b in itertools.combinations(range(len(judges)), 2):
        shared = judged[:, a] & judged[:, b]
        va, vb = matrix[shared, a].astype(bool).tolist(), matrix[shared, b].astype(bool).tolist()
        kappa = stats.cohen_kappa(va, vb)
        note = None
        if not va:
            note = "no transcript judged by both"
        elif kappa is None:
            note = "undefined: both judges gave the same verdict to every shared transcript"
        pairs.append(
            JudgePair(
                judge_a=judges[a],
                judge_b=judges[b],
                n=len(va),
                agreement=stats.percent_agreement(va, vb),
                kappa=kappa,
                note=note,
            )
        )
    # Per transcript: how many judges passed it and how many failed it.
    counts = np.column_stack([(matrix == 1).sum(axis=1), (matrix == 0).sum(axis=1)])
    complete = judged.all(axis=1)
    fleiss = stats.fleiss_kappa(counts[complete]) if len(judges) >= 2 and complete.any() else None
    alpha = stats.krippendorff_alpha_nominal_counts(counts) if len(judges) >= 2 else None
    kappas = [p.kappa for p in pairs if p.kappa is not None]
    agreements = [p.agreement for p in pairs if p.agreement is not None]
    panel = PanelAgreement(
        judges=judges,
        mean_agreement=stats.mean_or_none(agreements),
        mean_kappa=stats.mean_or_none(kappas),
        pairs_with_kappa=len(kappas),
        fleiss_kappa=fleiss,
        fleiss_items=int(complete.sum()) if len(judges) >= 2 else 0,
        krippendorff_alpha=alpha,
        alpha_items=int((judged.sum(axis=1) >= 2).sum()),
    )
    return pairs, panel
