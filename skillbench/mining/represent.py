"""Representative workflow of a cluster: the medoid (offline, deterministic) under normalised edit similarity."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from skillbench.mining.records import ActionSequence, Cluster, Workflow


def collapse(actions: Sequence[str]) -> list[str]:
    """Consecutive repeats as one (a re-asked question or a repeated query is the same step)."""
    return [a for i, a in enumerate(actions) if i == 0 or a != actions[i - 1]]


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """1 - edit distance / the longer length (1.0 for two empty sequences)."""
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - edit_distance(a, b) / longest


MEDOID_POOL = 60  # members each one is compared with: the cost is len(cluster) x this, not len(cluster) squared


def medoid(sequences: Sequence[Sequence[str]], limit: int = MEDOID_POOL) -> int:
    """Index of the sequence most similar on average to the first ``limit`` sequences (all when fewer).

    Every member is a candidate; only the comparison set is cut, so a large cluster (STAR's biggest holds
    hundreds of dialogues) costs n x ``limit`` edit distances instead of n squared. The first members are
    the cluster's in conversation order, a deterministic sample of it.
    """
    pool = [collapse(s) for s in sequences]
    others = pool[:limit]
    scores = [sum(similarity(s, o) for o in others) for s in pool]
    return max(range(len(pool)), key=lambda i: (scores[i], -i))


def representative(cluster: Cluster, by_id: dict[str, ActionSequence], samples: int = 10,
                   pool: int = MEDOID_POOL) -> Workflow:
    members = [by_id[m] for m in cluster.members]
    index = medoid([m.actions for m in members], pool)
    tools = Counter(t for m in members for t in m.tools)
    ranked = sorted(range(len(members)), key=lambda i: (-similarity(collapse(members[i].actions), collapse(members[index].actions)), i))
    return Workflow(cluster_id=cluster.id, group=cluster.group, actions=collapse(members[index].actions),
                    tools=[t for t, _ in tools.most_common()], support=len(members),
                    personal=round(sum(m.personal for m in members) / len(members), 4),
                    samples=[members[i].conversation_id for i in ranked[:samples]])
