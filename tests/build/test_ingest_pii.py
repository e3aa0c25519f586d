"""Ingest and personal-data scrubbing."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.build.ingest import IngestError, read_source
from skillbench.build.pii import scrub
from tests.build.conftest import PLANTED, assert_no_planted, conversation, write_jsonl


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
