"""Clustering action sequences: TF-IDF over action n-grams, K-Means, k by silhouette (or fixed)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import silhouette_score

from skillbench.mining.records import ActionSequence, Cluster


def ngrams(actions: Sequence[str], n_max: int = 2) -> list[str]:
    grams = list(actions)
    for n in range(2, n_max + 1):
        grams += [" ".join(actions[i:i + n]) for i in range(len(actions) - n + 1)]
    return grams


def vectorise(sequences: Sequence[Sequence[str]], n_max: int = 2):  # type: ignore[no-untyped-def]
    vectorizer = TfidfVectorizer(analyzer=lambda seq: ngrams(seq, n_max), sublinear_tf=True)
    return vectorizer.fit_transform([list(s) for s in sequences])


def kmeans_labels(matrix, *, k: int | None, k_min: int, k_max: int, seed: int,  # type: ignore[no-untyped-def]
                  distinct: int | None = None) -> tuple[np.ndarray, dict[str, float]]:
    """Labels, and the chosen k with its silhouette (k fixed when given, else the best silhouette in range).

    ``distinct``: how many different sequences there are; no k above it is tried (identical points
    cannot form more clusters).
    """
    n = matrix.shape[0]
    limit = min(n - 1, distinct if distinct is not None else n)
    if n < 3 or limit < 2 or k == 1:
        return np.zeros(n, dtype=int), {"k": 1, "silhouette": 0.0}
    candidates = [min(k, limit)] if k else list(range(max(2, k_min), min(k_max, limit) + 1)) or [limit]
    best: tuple[float, int, np.ndarray] | None = None
    for count in candidates:
        labels = KMeans(n_clusters=count, n_init=4, random_state=seed).fit_predict(matrix)
        score = float(silhouette_score(matrix, labels, metric="cosine", sample_size=min(n, 2000), random_state=seed)) \
            if len(set(labels)) > 1 else -1.0
        if best is None or score > best[0]:
            best = (score, count, labels)
    assert best is not None
    return best[2], {"k": best[1], "silhouette": round(best[0], 4)}


def cluster_sequences(sequences: Sequence[ActionSequence], *, group_by_purpose: bool, k: int | None, k_min: int,
                      k_max: int, n_max: int, seed: int) -> tuple[list[Cluster], dict[str, dict[str, float]]]:
    groups: dict[str, list[ActionSequence]] = defaultdict(list)
    for seq in sequences:
        groups[(seq.purpose or "unlabelled") if group_by_purpose else "all"].append(seq)
    clusters: list[Cluster] = []
    notes: dict[str, dict[str, float]] = {}
    for group in sorted(groups):
        members = groups[group]
        labels, info = kmeans_labels(vectorise([m.actions for m in members], n_max), k=k, k_min=k_min,
                                     k_max=k_max, seed=seed, distinct=len({tuple(m.actions) for m in members}))
        notes[group] = info
        by_label: dict[int, list[str]] = defaultdict(list)
        for member, label in zip(members, labels, strict=True):
            by_label[int(label)].append(member.conversation_id)
        # Numbered by size then first member, so ids do not depend on K-Means' arbitrary label order.
        ordered = sorted(by_label.values(), key=lambda ids: (-len(ids), ids[0]))
        clusters += [Cluster(id=f"{group}-{i:02d}", group=group, members=ids) for i, ids in enumerate(ordered)]
    return clusters, notes
