"""``skillbench mine measure star``: clustering and representative workflows against STAR's gold tasks."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from skillbench.mining.catalogue import ToolPredictor, source_catalogue
from skillbench.mining.cluster import cluster_sequences
from skillbench.mining.extract import SMALL_TALK, TurnTypes, annotated, text_only
from skillbench.mining.ingest import read_source
from skillbench.mining.pii import scrub
from skillbench.mining.records import ActionSequence, Cluster, Workflow
from skillbench.mining.represent import collapse, representative, similarity

# Past a query or a question without an edge: an available result, then a yes, then the query's success.
_CONTINUE = ("available", "yes", "query_success")
_NOT_ACTIONS = {"query_success", "query_failure", "available", "unavailable", "yes", "no", "hello"}


def main_path(graph: dict[str, str], start: str = "hello") -> list[str]:
    """The happy path through a STAR flow graph: follow edges; past a query or a yes/no question, take success."""
    path, node, seen = [], start, set()
    while node and node not in seen:
        seen.add(node)
        path.append(node)
        nxt = graph.get(node)
        if nxt is None or (node.startswith("query") and node not in _NOT_ACTIONS):
            nxt = next((c for c in _CONTINUE if c in graph and c not in seen), None)
        node = nxt
    kept = [n for n in path if n not in _NOT_ACTIONS and n not in SMALL_TALK]
    return ["query" if n.startswith("query") else n for n in kept]


def comparable(actions: list[str]) -> list[str]:
    return collapse(["query" if a.startswith("query") else a for a in actions])


def mined_workflows(sequences: list[ActionSequence], clusters: list[Any], tasks: list[str]) -> dict[str, Workflow]:
    """Per task: the representative workflow of the cluster holding most of its dialogues (labels hidden while clustering)."""
    by_id = {s.conversation_id: s for s in sequences}
    out: dict[str, Workflow] = {}
    for task in sorted(tasks):
        counts = Counter({c.id: sum(by_id[m].purpose == task for m in c.members) for c in clusters})
        if not counts or counts.most_common(1)[0][1] == 0:
            continue
        best = next(c for c in clusters if c.id == counts.most_common(1)[0][0])
        out[task] = representative(best, by_id)
    return out


def gold_workflow(task: str, graph: dict[str, str], support: int) -> Workflow:
    """A STAR task's gold workflow: its flow graph's main path, each query node calling the task's API (``query:<task>``)."""
    actions = [f"query:{task}" if a == "query" else a for a in main_path(graph)]
    return Workflow(cluster_id=task, group=task, actions=actions, tools=[task], support=support)


def flow_similarity(sequences: list[ActionSequence], clusters: list[Any], graphs: dict[str, dict[str, str]]) -> dict[str, float]:
    """Per task: the cluster holding most of its dialogues, its representative vs the graph's main path."""
    workflows = mined_workflows(sequences, clusters, list(graphs))
    return {task: round(similarity(comparable(w.actions), main_path(graphs[task])), 4) for task, w in workflows.items()}


def star_graphs(root: Path) -> dict[str, dict[str, str]]:
    return {p.parent.name: json.loads(p.read_text())["graph"] for p in sorted((root / "tasks").glob("*/*.json"))
            if p.stem == p.parent.name}


def measure_star(root: Path, *, per_purpose: int | None, k: int | None, k_min: int, k_max: int, text_types: int,
                 seed: int = 0, mined_by: str = "global") -> dict[str, Any]:
    """ARI, NMI and flow similarity of both extraction paths, and the mined and gold workflow of each task.

    ``mined_by``: the mined workflow of a task comes from the global clustering (labels hidden: the
    cluster holding most of the task's dialogues, as the flow similarity scores it) or, with
    ``purpose``, from K-Means within the task's own dialogues (as ``skillbench mine`` does with labels):
    the largest cluster's medoid.
    """
    conversations = [scrub(c).conversation for c in read_source("star", root, {"per_purpose": per_purpose})]
    graphs = star_graphs(root)
    out: dict[str, Any] = {"dialogues": len(conversations), "tasks": len({c.metadata.purpose for c in conversations})}
    types = TurnTypes(conversations, n_types=text_types, seed=seed)
    # The text path as `skillbench mine extractor=text` runs it: turn types and the catalogue tools predicted from
    # the words (the catalogue: the APIs the dialogues call; the calls themselves are not read).
    tools = ToolPredictor(conversations, source_catalogue(conversations))
    paths = (("annotated", annotated), ("text", lambda c: text_only(c, types)), ("text_tools", lambda c: text_only(c, types, tools)))
    for name, extract in paths:
        sequences = [s for s in map(extract, conversations) if not s.dropped]
        clusters, notes = cluster_sequences(sequences, group_by_purpose=False, k=k, k_min=k_min, k_max=k_max, n_max=2, seed=seed)
        assigned = {m: c.id for c in clusters for m in c.members}
        truth = [s.purpose for s in sequences]
        found = [assigned[s.conversation_id] for s in sequences]
        per_task = flow_similarity(sequences, clusters, graphs)
        if name == "annotated":  # the workflows the flow similarity scored, for the end-to-end comparison
            support = Counter(s.purpose for s in sequences)
            by_purpose = clusters if mined_by == "global" else cluster_sequences(
                sequences, group_by_purpose=True, k=None, k_min=2, k_max=4, n_max=2, seed=seed)[0]
            out["workflows"] = {"mined": mined_workflows(sequences, by_purpose, list(graphs)),
                                "gold": {t: gold_workflow(t, g, support[t]) for t, g in graphs.items() if support[t]}}
        out[name] = {"sequences": len(sequences), "k": notes["all"]["k"], "silhouette": notes["all"]["silhouette"],
                     "ARI": round(adjusted_rand_score(truth, found), 4), "NMI": round(normalized_mutual_info_score(truth, found), 4),
                     "flow_similarity": round(sum(per_task.values()) / max(1, len(per_task)), 4), "per_task": per_task}
        if name == "text_tools":  # a STAR task is named as its API: the share of dialogues whose predicted tool it is
            out[name]["tool_accuracy"] = round(sum(s.tools[:1] == [s.purpose] for s in sequences) / max(1, len(sequences)), 4)
    return out


def grouped(sequences: list[ActionSequence]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for s in sequences:
        out[s.purpose or ""].append(s.conversation_id)
    return out


def measure_abcd(root: Path) -> dict[str, Any]:
    """Each ABCD dialogue's extracted actions against its subflow's required actions in ``kb.json``.

    Also each subflow's mined workflow (the medoid of its dialogues' action sequences) and its gold
    one (the required actions, each a call of that action's tool), for the end-to-end comparison.
    """
    gold: dict[str, list[str]] = json.loads((root / "kb.json").read_text())
    per_dialogue: dict[str, float] = {}
    sequences: list[ActionSequence] = []
    for conversation in read_source("abcd", root, {}):
        purpose = conversation.metadata.purpose
        if purpose not in gold:
            continue
        sequence = annotated(scrub(conversation).conversation)
        if sequence.dropped:
            continue
        sequences.append(sequence)
        actions = [a.split(":", 1)[1] for a in sequence.actions if a.startswith("query:")]
        per_dialogue[f"{conversation.id} ({purpose})"] = round(similarity(collapse(actions), gold[purpose]), 4)
    mean = sum(per_dialogue.values()) / max(1, len(per_dialogue))
    by_id = {s.conversation_id: s for s in sequences}
    mined = {purpose: representative(Cluster(id=purpose, group=purpose, members=ids), by_id)
             for purpose, ids in grouped(sequences).items()}
    workflows = {"mined": mined, "gold": {p: Workflow(cluster_id=p, group=p, actions=[f"query:{a}" for a in gold[p]],
                                                      tools=list(dict.fromkeys(gold[p])), support=mined[p].support)
                                          for p in mined}}
    return {"dialogues": len(per_dialogue), "flow_similarity": round(mean, 4), "per_dialogue": per_dialogue,
            "workflows": workflows}
