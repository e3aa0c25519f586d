"""The LLM extractor through litellm against the local stub: malformed replies, drops, caching, no PII."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from skillbench.mining.config import load_config
from skillbench.mining.pipeline import MiningRun
from tests.mining.conftest import assert_no_planted, lint_and_run, overrides
from tests.support.nonempty import nonempty
from tests.support.openai_stub import stub_server, text_reply

GOOD = json.dumps({"actions": ["ask_account_number", "query_lookup", "inform_result"]})


def _llm(transcripts: Path, out: Path, base_url: str) -> list[str]:
    return overrides(transcripts, out, "extractor=llm", "extractor.model.model=hosted_vllm/stub-extractor",
                     f"extractor.model.api_base={base_url}", "extractor.model.api_key_env=null", "stage=ingest")


def _run(args: list[str]) -> MiningRun:
    MiningRun(load_config(args)).run()  # ingest
    build = MiningRun(load_config([a for a in args if a != "stage=ingest"] + ["stage=extract"]))
    build.run()
    return build


def test_malformed_replies_are_retried_then_dropped_and_nothing_is_asked_twice(transcripts: Path, tmp_path: Path) -> None:
    seen: Counter[str] = Counter()

    def script(body: dict[str, Any]) -> dict[str, Any]:
        transcript = body["messages"][1]["content"]  # a retry adds the bad reply and what was wrong with it
        seen[transcript] += 1
        if "[tool call] address_update(" in transcript:
            return text_reply("Sure! The agent asked for the street and then updated it.")  # never JSON
        if "[tool call] balance_check(" in transcript and seen[transcript] == 1:
            return text_reply('{"actions": ["Ask Account"]}')  # JSON, but not snake_case: retried
        return text_reply(f"```json\n{GOOD}\n```")

    out = tmp_path / "llm"
    with stub_server(script, models=("stub-extractor",)) as server:
        build = _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 4 * 3 + 4 * 2 + 4 * 1
        for request in server.requests:
            assert_no_planted(json.dumps(request))
        summary = {s.stage: s for s in build.summary().stages}
        assert summary["extract"].dropped == {"malformed model reply after 3 attempts": 4}
        assert summary["extract"].items_out == 8 and summary["extract"].model_calls == 24
        dropped = [json.loads(line) for line in (out / "_mining" / "02_actions.jsonl").read_text().splitlines()]
        moving = nonempty((d for d in dropped if d["purpose"] == "move_house"), "move_house records")
        assert all(d["dropped"].startswith("malformed") for d in moving)

        _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 24  # every item (kept or dropped) came from the store


def test_an_interrupted_extraction_redoes_only_unfinished_items(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    with stub_server(lambda body: text_reply(GOOD), fail_first=5, fail_status=400, models=("stub-extractor",)) as server:
        build = _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 12
        assert {s.stage: s for s in build.summary().stages}["extract"].dropped == {"model error": 5}
        build = _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 12 + 5  # only the five that failed are asked again
        extract = {s.stage: s for s in build.summary().stages}["extract"]
        assert extract.reused == 7 and extract.items_out == 12 and extract.dropped == {}


def _tool_script(body: dict[str, Any]) -> dict[str, Any]:
    """query:<the recorded tool>; block_card first names a tool outside the catalogue, check_balance names none."""
    transcript = body["messages"][1]["content"]
    tool = re.search(r"\[tool call\] (\w+)\(", transcript).group(1)  # type: ignore[union-attr]
    attempt = (len(body["messages"]) - 2) // 2 + 1
    if tool == "card_block" and attempt == 1:
        return text_reply(json.dumps({"actions": ["ask_account_number", "query:bank_teleport"]}))  # retried
    if tool == "balance_check":
        return text_reply(json.dumps({"actions": ["ask_account_number", "inform_balance"]}))  # the tool is predicted
    return text_reply(json.dumps({"actions": ["ask_account_number", f"query:{tool}", f"inform_{tool}_done"]}))


def test_the_llm_path_builds_a_benchmark_that_lints_and_runs(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "llm"
    with stub_server(_tool_script, models=("stub-extractor",), latency_s=0.05) as server:
        args = [a for a in _llm(transcripts, out, server.base_url) if a != "stage=ingest"]
        MiningRun(load_config([*args, "extractor.model.concurrency=2"])).run()
        # One client for the stage: never more requests at once than extractor.model.concurrency.
        assert server.peak_in_flight == 2
        assert len(server.requests) == 12 + 4  # four retries of the tool outside the catalogue
        assert "Tool catalogue:\n- address_update\n- balance_check\n- card_block" in server.requests[0]["messages"][1]["content"]
    sequences = {json.loads(line)["conversation_id"]: json.loads(line) for line in (out / "_mining" / "02_actions.jsonl").read_text().splitlines()}
    assert sequences["check_balance-0"]["actions"] == ["ask_account_number", "query:balance_check", "inform_balance"]
    assert sequences["block_card-0"]["actions"] == ["ask_account_number", "query:card_block", "inform_card_block_done"]
    extract = {s.stage: s for s in MiningRun(load_config(args)).summary().stages}["extract"]
    assert extract.model_calls == 16 and extract.notes["model_seconds"] > 0 and extract.notes["tokens"]["prompt"] > 0
    lint_and_run(out, tmp_path / "run")
