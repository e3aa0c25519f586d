"""Real data: a STAR sample built with the model skill writer against the local stub; no known personal value
of the sample (names, account numbers, PINs) may reach a request or a stage file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from skillbench.mining.config import load_config
from skillbench.mining.pipeline import MiningRun
from tests.conftest import SHARED_DATA
from tests.support.openai_stub import stub_server, text_reply

STAR = SHARED_DATA / "star"
TASKS = ("bank_balance", "bank_fraud_report", "doctor_followup", "hotel_service_request", "meeting_schedule", "ride_book")
PER_TASK = 4
# Query slots with the caller's identity, and what the guide told the worker: derived here on their own, not by
# the converter under test, so a value the converter misses is still looked for.
SLOTS = {"FullName", "CustomerName", "PatientName", "RenterName", "UserName", "AccountNumber", "PIN"}
GUIDE = (re.compile(r"You are ([A-Z][a-z]+ [A-Z][a-z]+)"), re.compile(r"Your name(?: is|:) ([A-Z][a-z]+(?: [A-Z][a-z]+)?)"),
         re.compile(r"account(?: number)?(?: is|:) (\d+)"), re.compile(r"PIN(?: is)? (\d{4})"), re.compile(r"either (\d{4}) or (\d{4})"))


def _sample(folder: Path) -> dict[str, set[str]]:
    """Link the first complete single-task dialogues of each task into ``folder``; their known values by kind."""
    (folder / "dialogues").mkdir(parents=True)
    taken = dict.fromkeys(TASKS, 0)
    known: dict[str, set[str]] = {"names": set(), "numbers": set()}
    for source in sorted((STAR / "dialogues").glob("*.json"), key=lambda p: int(p.stem)):
        data = json.loads(source.read_text(encoding="utf-8"))
        scenario = data["Scenario"]
        tasks = [c["Task"] for c in scenario.get("WizardCapabilities", [])]
        if data.get("CompletionLevel") != "Complete" or scenario.get("MultiTask") or len(tasks) != 1 or \
                taken.get(tasks[0], PER_TASK) >= PER_TASK:
            continue
        taken[tasks[0]] += 1
        (folder / "dialogues" / source.name).symlink_to(source)  # linked at test time, never copied
        for event in data["Events"]:
            for constraint in event.get("Constraints", []) if event.get("Action") == "query" else []:
                for slot, value in constraint.items():
                    if slot in SLOTS and value is not None:
                        for literal in re.findall(r'"([^"]+)"', str(value)) or [str(value)]:
                            if (literal.isdigit() and len(literal) >= 3) or re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?", literal):
                                known["numbers" if literal.isdigit() else "names"].add(literal)
            if event.get("Agent") == "UserGuide":
                for pattern in GUIDE:
                    for match in pattern.finditer(event.get("Text", "")):
                        for value in filter(None, match.groups()):
                            known["numbers" if value.isdigit() else "names"].add(value)
        if all(n >= PER_TASK for n in taken.values()):
            break
    return known


def _catalogue_tools(user: str) -> list[str]:
    return re.findall(r"^- ([\w.]+):", user.split("Tool catalogue:\n", 1)[1], flags=re.MULTILINE)


def script(body: dict[str, Any]) -> dict[str, Any]:
    """Instructions and merge replies that are always valid: the first catalogue tool of the cluster's purpose."""
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    tools = _catalogue_tools(user)
    purpose = re.search(r"Call purpose: (\w+)", user)
    wanted = purpose.group(1).split("_")[0] if purpose else ""
    tool = next((t for t in tools if t.startswith(wanted)), tools[0])
    if "You read one customer-support transcript" in system:
        return text_reply(json.dumps({"tools": [tool], "instructions": ["Ask what the caller needs.", f"Use {tool}."]}))
    if "Merge the per-transcript" in system:
        steps = [{"kind": "collect", "facts": ["request_detail"], "text": "Ask for the details."},
                 {"kind": "act", "tool": tool, "text": f"Call {tool}."}, {"kind": "inform", "text": "Tell the caller the result."}]
        return text_reply(json.dumps({"name": "Handle it", "capability": "Handles the call.", "steps": steps,
                                      "guardrails": [], "success": ["Done."]}))
    raise AssertionError(f"unexpected prompt: {system[:80]}")


@pytest.mark.skipif(not (STAR / "dialogues").is_dir(), reason=f"STAR data absent ({STAR}; SKILLBENCH_TEST_DATA names the folder); real-data PII test skipped")
def test_no_known_personal_value_of_a_star_sample_reaches_the_model(tmp_path: Path) -> None:
    known = _sample(tmp_path / "star")
    assert len(known["names"]) >= 5 and len(known["numbers"]) >= 5  # the sample holds identities to leak
    out = tmp_path / "bench"
    with stub_server(script, models=("stub-writer",)) as server:
        MiningRun(load_config(["ingest=star", f"ingest.path={tmp_path / 'star'}", f"out={out}", "filter.min_support=1",
                           "skill_writer=llm", "skill_writer.model.model=hosted_vllm/stub-writer",
                           f"skill_writer.model.api_base={server.base_url}", "skill_writer.model.api_key_env=null"])).run()
        requests = [json.dumps(r, ensure_ascii=False) for r in server.requests]
    sent = {json.loads(line)["conversation"]["id"] for line in (out / "_mining" / "01_conversations.jsonl").read_text().splitlines()}
    assert len(requests) >= len(sent) >= len(TASKS) * PER_TASK - 2  # every transcript went to the model
    stage_files = [p.read_text(encoding="utf-8") for p in (out / "_mining").glob("*.jsonl")]
    hits = []
    for value in sorted(known["names"] | known["numbers"]):
        pattern = re.compile(rf"(?<![\w]){re.escape(value)}(?![\w])", 0 if value.isdigit() else re.IGNORECASE)
        hits += [f"{value!r} in request {i}" for i, r in enumerate(requests) if pattern.search(r)]
        hits += [f"{value!r} in a stage file" for text in stage_files if pattern.search(text)]
    assert hits == [], "\n".join(hits)
    report = json.loads((out / "_mining" / "pii_report.json").read_text())
    assert report["replaced"]["name"] > 0 and report["replaced"]["card_or_account"] > 0 and report["replaced"]["pin"] > 0
    assert report["marked"]["values"]["pin"] > 0 and report["marked"]["conversations"] > 0
