"""Measurement mechanics: the flow-graph main path, similarity, and the STAR converter on a few real dialogues."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.mining.extract import annotated
from skillbench.mining.ingest import read_source
from skillbench.mining.measure import main_path, measure_star
from skillbench.mining.represent import collapse, similarity
from tests.conftest import SHARED_DATA

STAR = SHARED_DATA / "star"
needs_star = pytest.mark.skipif(not (STAR / "dialogues").is_dir(), reason=f"STAR data absent ({STAR}; SKILLBENCH_TEST_DATA names the folder); measured tests skipped")


def test_main_path_follows_success_past_queries_and_questions() -> None:
    graph = {"hello": "ask_name", "ask_name": "shop_ask_item", "shop_ask_item": "query_check", "available": "shop_ask_confirm",
             "unavailable": "shop_sorry", "yes": "query_buy", "query_success": "shop_done", "shop_done": "anything_else"}
    assert main_path(graph) == ["ask_name", "shop_ask_item", "query", "shop_ask_confirm", "query", "shop_done"]


def test_similarity_and_collapse() -> None:
    assert similarity(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert similarity(["a", "b"], ["a", "c", "b", "d"]) == 0.5
    assert collapse(["a", "a", "b", "a"]) == ["a", "b", "a"]


@needs_star
def test_star_converter_and_measure_on_a_few_dialogues(tmp_path: Path) -> None:
    sample = tmp_path / "star"
    (sample / "dialogues").mkdir(parents=True)
    for source in sorted((STAR / "dialogues").glob("*.json"), key=lambda p: int(p.stem))[:60]:
        (sample / "dialogues" / source.name).symlink_to(source)  # linked at test time, never copied
    (sample / "tasks").symlink_to(STAR / "tasks")
    conversations = read_source("star", sample, {})
    assert conversations and all(c.metadata.purpose for c in conversations)
    sequences = [annotated(c) for c in conversations]
    assert any(a.startswith("query:") for s in sequences for a in s.actions)
    result = measure_star(sample, per_purpose=None, k=None, k_min=2, k_max=6, text_types=8, mined_by="purpose")
    for path in ("annotated", "text", "text_tools"):
        assert -1.0 <= result[path]["ARI"] <= 1.0 and 0.0 <= result[path]["NMI"] <= 1.0
    assert 0.0 <= result["annotated"]["flow_similarity"] <= 1.0
    assert 0.0 <= result["text_tools"]["tool_accuracy"] <= 1.0
    mined, gold = result["workflows"]["mined"], result["workflows"]["gold"]
    assert mined and set(mined) <= set(gold)
    for task, workflow in gold.items():  # the flow graph's main path, its queries calls of the task's API
        assert f"query:{task}" in workflow.actions and "query" not in workflow.actions
    for task, workflow in mined.items():  # with purpose clustering a task's workflow comes from its own dialogues
        assert workflow.support <= sum(c.metadata.purpose == task for c in conversations)
    graph = json.loads((STAR / "tasks" / "bank_balance" / "bank_balance.json").read_text())["graph"]
    assert main_path(graph)[0] == "ask_name" and "query" in main_path(graph)


ABCD = SHARED_DATA / "abcd"


@pytest.mark.skipif(not (ABCD / "kb.json").is_file(), reason=f"ABCD data absent ({ABCD}; SKILLBENCH_TEST_DATA names the folder); measured tests skipped")
def test_abcd_actions_compare_with_the_subflow_gold() -> None:
    from skillbench.mining.measure import measure_abcd

    found = measure_abcd(ABCD)
    assert found["dialogues"] >= 1 and 0.0 <= found["flow_similarity"] <= 1.0
    gold = json.loads((ABCD / "kb.json").read_text())
    for subflow, workflow in found["workflows"]["gold"].items():
        assert workflow.actions == [f"query:{a}" for a in gold[subflow]]
        assert subflow in found["workflows"]["mined"]


def test_the_medoid_compares_with_the_first_members_of_the_pool() -> None:
    from skillbench.mining.represent import medoid

    sequences = [["a", "b"]] * 3 + [["c", "d"]] * 5  # the first three agree with each other, the rest outnumber them
    assert medoid(sequences, limit=3) == 0  # compared with the first three only
    assert medoid(sequences, limit=60) == 3  # compared with all
