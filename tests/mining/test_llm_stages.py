"""The model stages (representative, skill writer, judge) through litellm against the local stub.

The stub answers by prompt and call purpose, with malformed replies planted where the test says;
every request is recorded, so the test counts calls and greps them for the planted personal data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from skillbench.benchmark.lint import lint_benchmark
from skillbench.benchmark.loader import load_benchmark
from skillbench.cli import main as cli_main
from skillbench.core.errors import ConfigError
from skillbench.mining.config import load_config
from skillbench.mining.pipeline import MiningRun
from tests.mining.conftest import FLOWS, assert_no_planted, overrides
from tests.support.nonempty import nonempty
from tests.support.openai_stub import stub_server, text_reply

TOOL = {"block_card": "card.block", "check_balance": "balance.check", "move_house": "address.update"}
API = {"card_block": "block_card", "balance_check": "check_balance", "address_update": "move_house"}
SERVED = ("stub-representative", "stub-skill_writer", "stub-filter", "stub-writer", "stub-rater")  # what GET /models lists


def _model(part: str, url: str) -> list[str]:
    return [f"{part}.model.model=hosted_vllm/stub-{part}", f"{part}.model.api_base={url}", f"{part}.model.api_key_env=null"]


def _purpose(text: str) -> str:
    found = re.search(r"Call purpose: (\w+)", text) or re.search(r"Handle (\w+)", text)
    if found:
        return found.group(1)
    return next(purpose for api, purpose in API.items() if f"[tool call] {api}(" in text)


def script(body: dict[str, Any]) -> dict[str, Any]:
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    attempt = (len(body["messages"]) - 2) // 2 + 1  # each retry adds the bad reply and what was wrong with it
    purpose = _purpose(user)
    tool = TOOL[purpose]
    if "representative workflow" in system:
        actions = list(FLOWS[purpose][0])
        if purpose == "move_house" and attempt == 1:
            actions.append("teleport_customer")  # occurs in no member sequence: retried
        return text_reply(json.dumps({"actions": actions}))
    if "You read one customer-support transcript" in system:
        if purpose == "move_house" and "call 0." in user:
            return text_reply("The agent updated the address, I think.")  # never JSON: this transcript is dropped
        chosen = "bank.teleport" if purpose == "check_balance" and attempt == 1 else tool  # not in the catalogue
        return text_reply(json.dumps({"tools": [chosen], "instructions": ["Ask what is needed.", f"Use {chosen}."]}))
    if "Merge the per-transcript" in system:
        fact = "Card Number" if purpose == "block_card" and attempt == 1 else "last_digits"  # not snake_case: retried
        steps = [{"kind": "collect", "facts": [fact], "text": "Ask for the last digits."},
                 {"kind": "act", "tool": tool, "text": f"Call {tool}."}, {"kind": "inform", "text": "Tell the caller the result."}]
        return text_reply("```json\n" + json.dumps({"name": f"Handle {purpose}", "capability": f"Handles {purpose}.",
                                                    "steps": steps, "guardrails": [], "success": ["Done with the tool."]}) + "\n```")
    if "You review a skill" in system:
        if purpose == "check_balance":
            return text_reply(json.dumps({"keep": False, "quality": 1, "reason": "reads a balance to anyone who asks"}))
        if purpose == "move_house":
            return text_reply(json.dumps({"keep": True, "quality": 2, "reason": "vague steps"}))
        steps = [{"kind": "collect", "facts": ["last_digits"], "text": "Ask for the card's last digits."},
                 {"kind": "act", "tool": tool, "text": "Block the card only after verification."},
                 {"kind": "inform", "text": "Confirm the card is blocked without reading out its number."}]
        return text_reply(json.dumps({"keep": True, "quality": 4, "reason": "sound after fixes", "steps": steps,
                                      "fixes": ["removed reading out the card number"],
                                      "guardrails": ["Never read a card number back to the caller."]}))
    raise AssertionError(f"unexpected prompt: {system[:80]}")


def _args(transcripts: Path, out: Path, url: str) -> list[str]:
    return overrides(transcripts, out, "representative=llm", "skill_writer=llm", "filter=llm_judge", "filter.min_support=2",
                     *_model("representative", url), *_model("skill_writer", url), *_model("filter", url))


def test_model_stages_write_fix_and_drop_skills_with_reasons(transcripts: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "llm"
    with stub_server(script, models=SERVED) as server:
        build = MiningRun(load_config(_args(transcripts, out, server.base_url)))
        build.run()
        # represent 3 + 1 retry; instructions 12 + 4 retries + 2 more for the prose one; merge 3 + 1; judge 3
        assert len(server.requests) == 4 + 18 + 4 + 3
        for request in server.requests:
            assert_no_planted(json.dumps(request))
        stages = {s.stage: s for s in build.summary().stages}
        assert stages["represent"].model_calls == 4 and stages["represent"].items_out == 3
        assert stages["skills"].model_calls == 25 and stages["skills"].notes["tokens"]["prompt"] > 0
        assert stages["skills"].dropped == {"judge dropped it": 1, "low quality": 1}
        written = {json.loads(line)["cluster_id"].split("-")[0]: json.loads(line)
                   for line in (out / "_mining" / "05_skills.jsonl").read_text().splitlines()}
        assert written["check_balance"]["dropped"] == "judge dropped it: reads a balance to anyone who asks"
        assert written["move_house"]["dropped"].startswith("low quality: judge rated 2 < filter.min_quality")
        assert "judge: removed reading out the card number" in written["block_card"]["fixes"]
        assert lint_benchmark(out).problems == []
        skill = next(iter(load_benchmark(out).skills.values()))
        assert "Never read a card number back to the caller." in skill.guardrails
        assert any(step.tools == ["card.block"] for step in skill.steps)
        for stage_file in (out / "_mining").glob("*.jsonl"):
            assert_no_planted(stage_file.read_text())

        MiningRun(load_config(_args(transcripts, out, server.base_url))).run()
        assert len(server.requests) == 29  # kept and dropped items alike came from the store
        skills = {s.stage: s for s in build.summary().stages}["skills"]
        assert skills.reused == 3 and skills.reused_parts == {"instructions": 0}

        # Another judge threshold: every skill is written again, from the stored per-transcript instructions.
        MiningRun(load_config([*_args(transcripts, out, server.base_url), "filter.min_quality=2"])).run()
        assert len(server.requests) == 29 + 4 + 3  # merges (one retried) and judges only
        skills = {s.stage: s for s in build.summary().stages}["skills"]
        assert skills.reused == 0 and skills.reused_parts == {"instructions": 12}  # counted apart from the skills
    assert cli_main(["mine", "report", str(out)]) == 0
    assert "0 + 12 instructions" in capsys.readouterr().out


def test_an_endpoint_failure_is_not_stored_and_is_asked_again(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "fail"
    args = overrides(transcripts, out, "representative=llm", *_model("representative", "URL"))
    with stub_server(script, fail_first=1, fail_status=400, models=SERVED) as server:
        args = [a.replace("URL", server.base_url) for a in args]
        build = MiningRun(load_config([*args, "stage=ingest"]))
        build.run()
        for stage in ("extract", "cluster", "represent"):
            MiningRun(load_config([*args, f"stage={stage}"])).run()
        represent = {s.stage: s for s in build.summary().stages}["represent"]
        assert represent.dropped == {"model error": 1} and represent.items_out == 2
        MiningRun(load_config([*args, "stage=represent"])).run()
        represent = {s.stage: s for s in build.summary().stages}["represent"]
        assert represent.dropped == {} and represent.reused == 2 and represent.items_out == 3


def test_a_model_stage_without_a_model_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"filter\.model is required when filter\.kind is llm_judge"):
        load_config([f"out={tmp_path}", "filter=llm_judge", "filter.model=null"])


def rating_script(body: dict[str, Any]) -> dict[str, Any]:
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    attempt = (len(body["messages"]) - 2) // 2 + 1
    path = re.search(r"Scenario \((\w+)\)", user).group(1)  # type: ignore[union-attr]
    if "Write one realistic" in system:
        turns = [{"speaker": "customer", "text": "Hello."}, {"speaker": "agent", "text": "Hi, who am I speaking to?"}]
        if not (path == "happy_path" and attempt == 1):  # two turns are too few: retried
            turns += [{"speaker": "customer", "text": "It is me."}, {"speaker": "agent", "text": "Done. Goodbye."}]
        return text_reply(json.dumps({"turns": turns}))
    if "Rate the conversation" in system:
        if path == "out_of_scope":
            return text_reply(json.dumps({"scores": {"realism": 9}, "reason": "?"}))  # never valid: dropped
        score = 5 if path == "happy_path" else 3
        dims = {d: score for d in ("realism", "workflow_adherence", "persona_fidelity", "scenario_fit")}
        return text_reply(json.dumps({"scores": dims, "reason": f"{path} rated {score}"}))
    raise AssertionError(f"unexpected prompt: {system[:80]}")


def test_rated_selection_keeps_the_best_rated_scenarios(transcripts: Path, tmp_path: Path) -> None:
    out = tmp_path / "rated"
    with stub_server(rating_script, models=SERVED) as server:
        args = overrides(transcripts, out, "selection=rated", "selection.per_skill=2", "selection.pool=3",
                         *(f"selection.{role}.{key}" for role in ("writer", "rater") for key in (
                             f"model=hosted_vllm/stub-{role}", f"api_base={server.base_url}", "api_key_env=null")))
        build = MiningRun(load_config(args))
        build.run()
        rated = [json.loads(line) for line in (out / "_mining" / "06_conversations.jsonl").read_text().splitlines()]
        assert len(rated) == 3 * 2 * 3  # three skills, a pool of three per kept scenario
        for item in rated:
            assert bool(item["dropped"]) == ("out-of-scope" in item["scenario_id"])
        for skill in nonempty({r["skill_id"] for r in rated}, "rskill id for r in rated"):
            mine = [r for r in rated if r["skill_id"] == skill and not r["dropped"]]
            kept = [r for r in mine if r["kept"]]
            assert len(kept) == min(2, len(mine))
            assert min(r["score"] for r in kept) >= max([r["score"] for r in mine if not r["kept"]], default=0)
        assert {s.id for s in load_benchmark(out).scenarios} == {r["scenario_id"] for r in rated if r["kept"]}
        scenarios = {s.stage: s for s in build.summary().stages}["scenarios"]
        happy = sum("happy" in r["scenario_id"] for r in rated)
        writes = len(rated) + happy  # each happy-path conversation was asked twice
        rates = len(rated) - sum(bool(r["dropped"]) for r in rated) + 3 * sum(bool(r["dropped"]) for r in rated)
        assert len(server.requests) == scenarios.model_calls == writes + rates
        for request in server.requests:
            assert_no_planted(json.dumps(request))
        MiningRun(load_config(args)).run()
        assert len(server.requests) == writes + rates  # every rating came from the store


def test_model_stages_are_preflighted_before_anything_is_built(transcripts: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The README's model-stage command without keys, one stage on a dead endpoint: every problem at once, exit 2."""
    for env in ("OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(env, raising=False)
    with stub_server(script) as dead:  # a port that was served a moment ago and is closed now
        url = dead.base_url
    out = tmp_path / "bench"
    args = ["mine", *overrides(transcripts, out, "representative=llm", "skill_writer=llm", "filter=llm_judge",
                                "selection=rated", f"representative.model.api_base={url}")]
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    # gpt-5-mini at an api_base of one's own is still litellm's keyed OpenAI route (plan.preflight.needs_key).
    openai_users = "filter gpt5_mini, representative gpt5_mini, selection.writer gpt5_mini, skill_writer gpt5_mini"
    assert f"OPENAI_API_KEY is not set; needed by {openai_users}" in err
    assert "GEMINI_API_KEY is not set; needed by selection.rater gemini2_5_flash" in err
    assert f"endpoint {url} does not answer" in err and "representative gpt5_mini" in err
    assert "3 problems; nothing was built" in err and "min_support" not in err
    assert not out.exists()  # not even the ingest stage ran
    # A stage that calls no model is not held up by the others' keys.
    assert cli_main([*args, "stage=ingest"]) == 0
