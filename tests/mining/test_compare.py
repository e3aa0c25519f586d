"""Mined vs gold end to end: both benchmarks built by the same stages and run through the real engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.mining.cluster import cluster_sequences
from skillbench.mining.compare import compare, lines, order, strictly_ordered
from skillbench.mining.extract import annotated
from skillbench.mining.measure import mined_workflows
from skillbench.mining.records import Workflow
from tests.mining.conftest import FLOWS, conversation

AGENTS = ["sim_careful", "sim_reckless"]  # two keep the test short; the order logic is tested above


def test_order_and_separation() -> None:
    assert order({"a": 1.0, "b": 0.5, "c": 0.0}, ["a", "b", "c"]) == "a>b>c"
    assert order({"a": 0.5, "b": 0.5, "c": 0.7}, ["a", "b", "c"]) == "c>a=b"
    assert order({"a": None, "b": 0.5}, ["a", "b"]) == "?"
    assert strictly_ordered({"a": 1.0, "b": 0.5, "c": 0.0}, ["a", "b", "c"])
    assert not strictly_ordered({"a": 1.0, "b": 1.0, "c": 0.0}, ["a", "b", "c"])


def test_mined_and_gold_benchmarks_run_side_by_side(tmp_path: Path) -> None:
    sequences = [annotated(conversation(p, i)) for p in FLOWS for i in range(3)]
    clusters, _ = cluster_sequences(sequences, group_by_purpose=False, k=3, k_min=2, k_max=4, n_max=2, seed=0)
    mined = mined_workflows(sequences, clusters, list(FLOWS))
    assert set(mined) == set(FLOWS)
    # Gold: the true flows; move_house's gold asks one more fact, and check_balance's mined one lost its tool step.
    gold = {p: Workflow(cluster_id=p, group=p, actions=list(actions), tools=[a[6:] for a in actions if a.startswith("query:")],
                        support=3) for p, (actions, _) in FLOWS.items()}
    gold["move_house"] = gold["move_house"].model_copy(update={"actions": ["ask_postcode", *FLOWS["move_house"][0]]})
    mined["check_balance"] = mined["check_balance"].model_copy(update={"actions": ["ask_account_number", "inform_balance"]})

    result = compare(mined, gold, tmp_path, per_task=1, agents=AGENTS)

    by_task = {t.task: t for t in result.tasks}
    assert list(by_task) == sorted(FLOWS)
    assert by_task["check_balance"].dropped == {"mined": "no tool step in the representative workflow"}
    assert by_task["check_balance"].scenarios == {"gold": 1, "mined": 0}
    assert all(v is None for v in by_task["check_balance"].mined.values())
    for task in ("block_card", "move_house"):
        assert by_task[task].scenarios == {"gold": 1, "mined": 1}
        assert all(0.0 <= (v or 0.0) <= 1.0 for v in [*by_task[task].gold.values(), *by_task[task].mined.values()])
    assert set(result.separates) == {"gold", "mined"}

    # The same workflow on both sides gives the same skill, scenario and stored conversation: only workflows differ.
    def keys(side: str, task: str) -> set[str]:
        rows = [json.loads(line) for line in (tmp_path / "jobs" / f"{side}_sim_careful" / "results.jsonl").read_text().splitlines()]
        return {r["rollout_key"] for r in rows if r["skill_id"] == f"e2e_{task}"}

    assert keys("gold", "block_card") == keys("mined", "block_card")
    assert keys("gold", "move_house") != keys("mined", "move_house")

    printed = lines(result)
    assert printed[0] in {"separation_gold careful>reckless yes", "separation_gold careful>reckless no"}
    assert printed[1].startswith("separation_mined careful>reckless ")
    assert any(line.startswith("check_balance\t") and "dropped: mined: no tool step" in line for line in printed)
    assert json.loads((tmp_path / "comparison.json").read_text())["agents"] == AGENTS


def test_an_unknown_agent_stops_the_measure_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from skillbench.cli import main as cli_main

    assert cli_main(["mine", "measure", "abcd", "--path", str(tmp_path / "absent"), "--e2e-agents", "sim_careful,sim_nobody"]) == 2
    captured = capsys.readouterr()
    assert "agent/sim_nobody" in captured.err and captured.out == ""


def test_separation_holds_where_it_must(tmp_path: Path) -> None:
    """The fixture's three flows, mined from its transcripts and as gold: the simulated agents, best first, must come
    out strictly ordered on both sides (deterministic: seeded simulated models; 7 scenarios per flow, one per path)."""
    sequences = [annotated(conversation(p, i)) for p in FLOWS for i in range(3)]
    clusters, _ = cluster_sequences(sequences, group_by_purpose=False, k=3, k_min=2, k_max=4, n_max=2, seed=0)
    mined = mined_workflows(sequences, clusters, list(FLOWS))
    gold = {p: Workflow(cluster_id=p, group=p, actions=list(actions), tools=[a[6:] for a in actions if a.startswith("query:")],
                        support=3) for p, (actions, _) in FLOWS.items()}
    agents = ["sim_careful", "sim_sloppy", "sim_reckless"]

    result = compare(mined, gold, tmp_path, per_task=7, agents=agents)

    assert result.separates == {"gold": True, "mined": True}, result.overall
    for side in ("gold", "mined"):
        careful, sloppy, reckless = (result.overall[side][a] for a in agents)
        assert careful is not None and sloppy is not None and reckless is not None
        assert careful > sloppy > reckless
    assert lines(result)[:2] == ["separation_gold careful>sloppy>reckless yes", "separation_mined careful>sloppy>reckless yes"]
