"""Small transcripts written for these tests (three call purposes, annotated actions and tool calls)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.mining.records import Conversation, ConversationMeta, ToolUse, Turn

# Planted personal data: none of it may reach a model request or a stage file.
PLANTED = {"email": "rosalind.quarry@example.org", "phone": "+1 415 555 0199", "card": "4111 1111 1111 1111",
           "address": "742 Evergreen Terrace Road", "name": "Rosalind Quarry"}

FLOWS = {
    "block_card": (["ask_account_number", "ask_last_digits", "query:card_block", "inform_card_blocked"],
                   "My card is gone, please stop it."),
    "check_balance": (["ask_account_number", "query:balance_check", "inform_balance"],
                      "How much money is in my account?"),
    "move_house": (["ask_new_street", "ask_move_date", "query:address_update", "inform_address_changed"],
                   "I am moving next month and need to update where you send letters."),
}


def conversation(purpose: str, index: int) -> Conversation:
    actions, opening = FLOWS[purpose]
    turns = [Turn(speaker="customer", text=f"{opening} This is call {index}. I am {PLANTED['name']}, mail me at {PLANTED['email']} "
                                           f"or ring {PLANTED['phone']}.")]
    for step, action in enumerate(actions):
        if action.startswith("query:"):
            turns.append(Turn(speaker="agent", tool_calls=[ToolUse(name=action[6:], arguments={"card": PLANTED["card"]},
                                                                   result={"ok": True})]))
        else:
            turns.append(Turn(speaker="agent", text=f"Step {step}: {action.replace('_', ' ')}, please.", action=action))
            turns.append(Turn(speaker="customer", text=f"Sure, it is {PLANTED['card']} and I live at {PLANTED['address']}."))
    if index % 2:  # some variation inside a purpose
        turns.append(Turn(speaker="agent", text="Anything else today?", action="anything_else"))
    return Conversation(id=f"{purpose}-{index}", turns=turns,
                        metadata=ConversationMeta(purpose=purpose, organisation="testbank", pii_names=[PLANTED["name"]]))


def write_jsonl(path: Path, per_purpose: int = 4) -> Path:
    lines = [conversation(p, i).model_dump_json() for p in FLOWS for i in range(per_purpose)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def transcripts(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "calls.jsonl")


def overrides(transcripts: Path, out: Path, *extra: str) -> list[str]:
    return ["ingest=jsonl", f"ingest.path={transcripts}", f"out={out}", "filter.min_support=2", *extra]


def assert_no_planted(text: str) -> None:
    for kind, value in PLANTED.items():
        assert value.lower() not in text.lower(), f"planted {kind} leaked"
    assert "Rosalind" not in text and "Quarry" not in text
    assert json.dumps(PLANTED["email"]) not in text


def lint_and_run(out: Path, work: Path, scenarios: int = 3) -> list[object]:
    """`skillbench benchmark lint OUT` accepts the built benchmark and the engine runs a few of its scenarios."""
    from skillbench.cli import main as cli_main
    from skillbench.engine import RESULTS_FILE, ResultRow, run_job
    from tests.conftest import compose_config

    assert cli_main(["benchmark", "lint", str(out)]) == 0
    cfg = compose_config(f"benchmark.source={out}", f"benchmark.limit={scenarios}", f"store.root={work / 'store'}",
                         "run.progress_interval_s=3600")
    run_job(cfg, work / "job")
    rows = [ResultRow.model_validate_json(line) for line in (work / "job" / RESULTS_FILE).read_text().splitlines() if line]
    assert len(rows) == scenarios and all(r.infra_error is None and r.passed is not None for r in rows)
    assert {r.benchmark for r in rows} == {"mined"}  # the built benchmark's name, not the default option's (starter)
    return rows  # type: ignore[return-value]
