"""The LLM extractor through litellm against the local stub: malformed replies, drops, caching, no PII."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from skillbench.build.cli import load_config
from skillbench.build.pipeline import Build
from tests.build.conftest import assert_no_planted, overrides
from tests.support.openai_stub import stub_server, text_reply

GOOD = json.dumps({"actions": ["ask_account_number", "query_lookup", "inform_result"]})


def _llm(transcripts: Path, out: Path, base_url: str) -> list[str]:
    return overrides(transcripts, out, "extractor=llm", "extractor.model.model=hosted_vllm/stub-extractor",
                     f"extractor.model.api_base={base_url}", "extractor.model.api_key_env=null", "stage=ingest")


def _run(args: list[str]) -> Build:
    Build(load_config(args)).run()  # ingest
    build = Build(load_config([a for a in args if a != "stage=ingest"] + ["stage=extract"]))
    build.run()
    return build


def test_malformed_replies_are_retried_then_dropped_and_nothing_is_asked_twice(transcripts: Path, tmp_path: Path) -> None:
    seen: Counter[str] = Counter()

    def script(body: dict[str, Any]) -> dict[str, Any]:
        transcript = body["messages"][-1]["content"]
        seen[transcript] += 1
        if "address_update" in transcript:
            return text_reply("Sure! The agent asked for the street and then updated it.")  # never JSON
        if "balance_check" in transcript and seen[transcript] == 1:
            return text_reply('{"actions": ["Ask Account"]}')  # JSON, but not snake_case: retried
        return text_reply(f"```json\n{GOOD}\n```")

    out = tmp_path / "llm"
    with stub_server(script) as server:
        build = _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 4 * 3 + 4 * 2 + 4 * 1
        for request in server.requests:
            assert_no_planted(json.dumps(request))
        summary = {s.stage: s for s in build.summary().stages}
        assert summary["extract"].dropped == {"malformed model reply after 3 attempts": 4}
        assert summary["extract"].items_out == 8 and summary["extract"].model_calls == 24
        dropped = [json.loads(line) for line in (out / "_build" / "02_actions.jsonl").read_text().splitlines()]
        assert all(d["dropped"].startswith("malformed") for d in dropped if d["purpose"] == "move_house")

        _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 24  # every item (kept or dropped) came from the store


def test_an_interrupted_extraction_redoes_only_unfinished_items(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    with stub_server(lambda body: text_reply(GOOD), fail_first=5, fail_status=400) as server:
        build = _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 12
        assert {s.stage: s for s in build.summary().stages}["extract"].dropped == {"model error": 5}
        build = _run(_llm(transcripts, out, server.base_url))
        assert len(server.requests) == 12 + 5  # only the five that failed are asked again
        extract = {s.stage: s for s in build.summary().stages}["extract"]
        assert extract.reused == 7 and extract.items_out == 12 and extract.dropped == {}
