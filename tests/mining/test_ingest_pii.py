"""Ingest and personal-data scrubbing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.mining.ingest import IngestError, read_source
from skillbench.mining.pii import scrub
from skillbench.mining.records import Conversation, ConversationMeta, ToolUse, Turn
from tests.mining.conftest import PLANTED, assert_no_planted, conversation, write_jsonl


def test_scrub_replaces_every_planted_kind_and_reports_it() -> None:
    result = scrub(conversation("block_card", 0))
    text = result.conversation.model_dump_json()
    assert_no_planted(text)
    counts = {r.kind: r.count for r in result.replaced}
    assert set(counts) == {"email", "phone", "card_or_account", "address", "name"}
    assert counts["card_or_account"] >= 3  # two answers and the tool-call argument
    assert "[EMAIL]" in text and "[PHONE]" in text and "[NUMBER]" in text and "[ADDRESS]" in text and "[NAME]" in text
    assert result.conversation.metadata.pii_names == []


def test_scrub_keeps_ordinary_text() -> None:
    plain = conversation("check_balance", 0).model_copy(update={"turns": conversation("check_balance", 0).turns[1:2]})
    assert scrub(plain).conversation.turns[0].text == plain.turns[0].text


def test_jsonl_reads_each_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", per_purpose=2)
    conversations = read_source("jsonl", path, {})
    assert [c.metadata.purpose for c in conversations].count("move_house") == 2
    assert conversations[0].turns[0].speaker == "customer"


def test_bad_jsonl_line_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "x", "turns": [{"speaker": "robot", "text": "hi"}]}\n')
    with pytest.raises(IngestError, match=r"bad.jsonl:1: field 'turns.0.speaker'.*Fix"):
        read_source("jsonl", path, {})


def test_missing_path_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="does not exist"):
        read_source("jsonl", tmp_path / "nope.jsonl", {})


def test_planted_values_are_the_ones_the_fixture_uses() -> None:
    assert PLANTED["card"] in conversation("block_card", 0).model_dump_json()


def _scrubbed(*texts: str, **meta: object) -> list[str]:
    turns = [Turn(speaker="agent" if i % 2 else "customer", text=t) for i, t in enumerate(texts)]
    result = scrub(Conversation(id="c", turns=turns, metadata=ConversationMeta(**meta)))  # type: ignore[arg-type]
    return [t.text for t in result.conversation.turns]


def test_account_numbers_and_pins_in_context_are_replaced() -> None:
    assert _scrubbed("My account number is 85731890 and my PIN is 7402.") == ["My account number is [NUMBER] and my PIN is [PIN]."]
    # The context may be the question the bare number answers, one or two turns before.
    assert _scrubbed("Hi.", "What is your account number?", "85731890")[-1] == "[NUMBER]"
    assert _scrubbed("Hi.", "And your PIN, please?", "It's 0314")[-1] == "It's [PIN]"
    assert _scrubbed("You need my account?", "Yes", "It is 8573 1890 I think")[-1] == "It is [NUMBER] I think"
    assert _scrubbed("I forgot my PIN. It was either 7402 or 1596.") == ["I forgot my PIN. It was either [PIN] or [PIN]."]
    assert _scrubbed("card ending 4111-1111-1111-1111") == ["card ending [NUMBER]"]


def test_dates_times_prices_and_ordinary_numbers_stay() -> None:
    kept = ["My PIN? I was born on 05/08/1927.", "Account opened on 2024-03-17 at 12:30.", "Book it for 7 pm, my account is fine.",
            "Your account balance is $1135.", "The card costs 1,250.00 a year.", "The account fee is 15%.",
            "Room 114, flight 188, party of 85.", "Walk east for 10 minutes on University Boulevard.",
            "My PIN and the rent: 1250 credits a month.", "In 2019 I opened the account.",
            "My PIN? I was born in 1985."]
    assert [_scrubbed(text)[0] for text in kept] == kept
    # A long turn after a statement (not a question) about a PIN is no answer to it.
    later = ["my PIN is wrong.", "Then the bus 6102 leaves at the corner of Forbes and Murray."]
    assert _scrubbed(*later) == later


def test_personal_fields_of_tool_calls_are_replaced_whatever_their_value() -> None:
    call = ToolUse(name="bank_balance", arguments={"FullName": '"Quentin Zebra"', "AccountNumber": 24681357, "PIN": 2468,
                                                   "DateOfBirth": "01/02/1990", "SecurityAnswer1": '"Wobble"', "Name": "Hilton Hotel",
                                                   "BankName": "Chase", "HasBalcony": True},
                   result={"item": {"CustomerName": "Quentin", "Price": 120}})
    convo = Conversation(id="c", turns=[Turn(speaker="agent", tool_calls=[call])])
    result = scrub(convo)
    scrubbed = result.conversation.turns[0].tool_calls[0]
    assert scrubbed.arguments == {"FullName": "[NAME]", "AccountNumber": "[NUMBER]", "PIN": "[PIN]",
                                  "DateOfBirth": "[DATE_OF_BIRTH]", "SecurityAnswer1": "[SECRET]", "Name": "Hilton Hotel",
                                  "BankName": "Chase", "HasBalcony": True}
    assert scrubbed.result == {"item": {"CustomerName": "[NAME]", "Price": 120}}
    assert {r.kind: r.count for r in result.replaced} == {"name": 2, "card_or_account": 1, "pin": 1, "date_of_birth": 1, "secret": 1}


def test_marked_values_are_replaced_anywhere() -> None:
    texts = _scrubbed("Pet's name? buddy. Code 93103, born 01/02/1990; Mary and John", "Thanks John.",
                      pii_values={"secret": ["Buddy", "93103"], "date_of_birth": ["01/02/1990"]}, pii_names=["Mary and John"])
    assert texts == ["Pet's name? [SECRET]. Code [SECRET], born [DATE_OF_BIRTH]; [NAME]", "Thanks [NAME]."]
    assert _scrubbed("Meet me 03-14 at noon", pii_values={"pin": ["0314"]}) == ["Meet me 03-14 at noon"]  # a short value only whole


def _star_dialogue(tmp_path: Path) -> Path:
    """A dialogue in STAR's raw format (written here; the values are invented), with its identity in the guide's events."""
    events = [
        {"Agent": "UserGuide", "Action": "instruct", "Text": "You are Quentin Zebra. Your account number is 24681357, but "
                                                            "you forgot your PIN. (Security answer: Wobble.)"},
        {"Agent": "UserGuide", "Action": "instruct", "Text": "Now you remember your PIN again. It was either 8642 or 9753."},
        {"Agent": "User", "Action": "utter", "Text": "Hello, Quentin Zebra here, account 24681357."},
        {"Agent": "Wizard", "Action": "pick_suggestion", "ActionLabel": "bank_ask_pin", "Text": "What is your PIN?"},
        {"Agent": "User", "Action": "utter", "Text": "8642 or maybe 9753"},
        {"Agent": "Wizard", "Action": "query", "APIName": "bank_balance",
         "Constraints": [{"FullName": '"Quentin Zebra"'}, {"AccountNumber": 24681357}, {"PIN": 8642}]},
        {"Agent": "KnowledgeBase", "Action": "return_item", "Item": {"BankBalance": 1135}, "TotalItems": 1},
        {"Agent": "Wizard", "Action": "pick_suggestion", "ActionLabel": "bank_inform_balance", "Text": "Quentin, you have $1135."},
    ]
    data = {"DialogueID": 1, "CompletionLevel": "Complete", "Events": events,
            "Scenario": {"Domains": ["bank"], "Happy": True, "MultiTask": False, "UserTask": "Check your balance.",
                         "WizardCapabilities": [{"Task": "bank_balance"}]}}
    (tmp_path / "dialogues").mkdir()
    (tmp_path / "dialogues" / "1.json").write_text(json.dumps(data))
    return tmp_path


def test_the_star_converter_marks_the_identity_its_guide_and_queries_state(tmp_path: Path) -> None:
    [convo] = read_source("star", _star_dialogue(tmp_path), {})
    assert convo.metadata.pii_names == ["Quentin Zebra"]
    assert convo.metadata.pii_values == {"card_or_account": ["24681357"], "pin": ["8642", "9753"]}
    text = scrub(convo).conversation.model_dump_json()
    for value in ("Quentin", "Zebra", "24681357", "8642", "9753"):
        assert value not in text
    assert "$1135" in text and "1135" in text  # the balance is no personal data
