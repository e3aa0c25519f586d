"""One identity per tool call (issue 38 item 6): tool-call ids repeat in real logs and on servers that number them
per reply (``call_0`` every time), or are missing. Real jobs through litellm against the stub server on 127.0.0.1:
the judge prompt (as the stub judge receives it), the terminal viewer and the HTML report each show every call under
its own name and status, in order, the provider's ids go back on the wire unchanged, and a rollout stored before
calls had an identity reads back paired the same way (with a byte-identical judge prompt when its ids are unique)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.cli import main
from skillbench.core.records import Rollout, ToolCallRecord
from skillbench.core.rubric import DEFAULT_RUBRIC_VERSION
from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.evaluation import run_rule_checks
from skillbench.lab.importer import parse_record
from skillbench.lab.judging import imported_subject, subject_prompt
from skillbench.prompts.judge import TRANSCRIPT_BEGIN, parse_judge_prompt, render_judge_prompt
from skillbench.report.html import decode_transcripts
from skillbench.report.write import make_report
from skillbench.simulated.agent_view import read_agent_request
from skillbench.simulated.base import SimRequest
from skillbench.store import ArtifactStore
from skillbench.store.artifacts import seal
from skillbench.view import load_conversations
from skillbench.view.data import transcript_text
from tests.conftest import compose_config
from tests.support.openai_stub import AgentStep, planned_agent, request_role, stub_server

SCENARIO = "hc-resched-happy-01"
# 21 rollouts as stored before calls had an identity (the default-agent snapshot of that time, kept frozen here).
OLD_FORMAT = Path(__file__).resolve().parent / "fixtures" / "rollouts_before_call_identity.jsonl"

# What the agent asks for, reply by reply (wire names, arguments): a failed verification (date of birth missing), two
# calls in one reply, a failed write (no such appointment), a question to the caller, the ending.
AGENT_PLAN: list[AgentStep] = [
    [("identity__verify_customer", {"customer_id": "C-10482"})],
    [("identity__verify_customer", {"customer_id": "C-10482", "date_of_birth": "1984-03-17"}),
     ("scheduling__search_appointments", {"customer_id": "C-10482"})],
    [("scheduling__update_appointment", {"appointment_id": "APT-NOPE", "new_start_time": "2026-12-03T09:30"})],
    "Which time would suit you?",
    [("end_conversation", {"outcome": "resolved", "summary": "rescheduled"})],
]
# Every call as the MCP session logs it (catalogue name, failed or not), in call order: the truth every view must show.
EXPECTED = [("identity.verify_customer", True), ("identity.verify_customer", False),
            ("scheduling.search_appointments", False), ("scheduling.update_appointment", True), ("end_conversation", False)]


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: Callable[[dict[str, Any]], Any]) -> tuple[Path, Any]:
    job = tmp_path / "job"
    with stub_server(script) as server:
        for env in ("QWEN3_5_9B", "GEMMA4", "USER_SIM"):
            monkeypatch.setenv(f"SKILLBENCH_{env}_API_BASE", server.base_url)
        cfg = compose_config("agent=qwen3_5_9b", "judge=gemma4", "user_sim=gemma4_31b", f"store.root={tmp_path / 'store'}",
                             f"benchmark.scenarios=[{SCENARIO}]", "agent.max_retries=0")
        run_job(cfg, job)
    return job, server


def _stored(tmp_path: Path, job: Path) -> Rollout:
    [row] = [ResultRow.model_validate_json(line) for line in (job / RESULTS_FILE).read_text().splitlines()]
    rollout = ArtifactStore(tmp_path / "store").get("rollouts", row.rollout_key or "", Rollout)
    assert rollout is not None
    return rollout


def _judge_prompt(server: Any) -> str:
    [prompt] = [m["content"] for body in server.requests if request_role(body) == "judge"
                for m in body["messages"] if TRANSCRIPT_BEGIN in (m.get("content") or "")]
    return str(prompt)


# --- each view, reduced to its calls [(name)] and results [(name, failed)] in order -------------------------------

def judge_view(prompt: str) -> tuple[list[str], list[tuple[str, bool]]]:
    lines = parse_judge_prompt(prompt).transcript
    return ([line.name for line in lines if line.kind == "call"],
            [(line.name, line.status == "error") for line in lines if line.kind == "result"])


def terminal_view(job: Path) -> tuple[list[str], list[tuple[str, bool]]]:
    [conversation], finder = load_conversations([job])
    rollout, problem = finder.load(conversation.job, conversation.rollout_key)
    text = transcript_text(rollout, problem).plain
    return (re.findall(r"→ call  (\S+) ", text),
            [(name, kind == "error") for kind, name in re.findall(r"← (error|result) (\S+): ", text)])


def html_view(page: str) -> tuple[list[str], list[tuple[str, bool]]]:
    return (re.findall(r'tool call</span>(\S+) ', page),
            [(name, status.startswith("error")) for name, status in re.findall(r"\] result (\S+) \(([^)]*)\)</span>", page)])


def _truth(records: list[ToolCallRecord]) -> tuple[list[str], list[tuple[str, bool]]]:
    return [r.name for r in records], [(r.name, r.is_error) for r in records if not r.control]


def test_a_server_numbering_every_call_call_0_is_shown_call_by_call_in_every_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job, server = _run(tmp_path, monkeypatch, planned_agent(AGENT_PLAN, lambda index: "call_0"))
    rollout = _stored(tmp_path, job)
    records = rollout.tool_calls
    assert [(r.name, r.is_error) for r in records] == EXPECTED and [r.call_seq for r in records] == [0, 1, 2, 3, 4]
    assert {r.call_id for r in records} == {"call_0"}
    truth = _truth(records)
    # What the judge received (the stub judge logs its request): before, every call read 'end_conversation', status ok.
    assert judge_view(_judge_prompt(server)) == truth
    assert terminal_view(job) == truth
    _, written = make_report([job], tmp_path / "report", formats=["html"])
    [page] = [p for p in decode_transcripts(written["html"].read_text()).values() if "tool call</span>" in p]
    assert html_view(page) == truth
    # The provider's ids go back on the wire as it sent them; each result follows the call it answers.
    last = [body for body in server.requests if request_role(body) == "agent"][-1]["messages"]
    assert [c["id"] for m in last if m["role"] == "assistant" for c in m.get("tool_calls") or []] == ["call_0"] * 4
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == ["call_0"] * 4


def _wire_problems(messages: list[dict[str, Any]]) -> list[str]:
    """Where a request breaks OpenAI's tool-call rule: an assistant message's calls answered, each once, by the tool
    messages right after it, each naming a non-empty id of those calls."""
    problems = []
    for index, message in enumerate(messages):
        calls = [c["id"] for c in message.get("tool_calls") or []]
        if not calls:
            continue
        answers = []
        for after in messages[index + 1:]:
            if after["role"] != "tool":
                break
            answers.append(after["tool_call_id"])
        if sorted(answers) != sorted(calls) or "" in calls:
            problems.append(f"message {index}: calls {calls} answered by {answers}")
    return problems


@pytest.mark.parametrize("sent", ["no id", "empty id"])
def test_calls_without_an_id_get_one_unique_in_the_conversation_and_pair_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sent: str
) -> None:
    job, server = _run(tmp_path, monkeypatch, planned_agent(AGENT_PLAN, lambda index: None if sent == "no id" else ""))
    rollout = _stored(tmp_path, job)
    ids = [call.id for m in rollout.messages for call in m.tool_calls]
    assert len(ids) == len(set(ids)) == 5 and "" not in ids
    if sent == "empty id":  # ours: the same on every run, 9 alphanumerics (Mistral's form)
        assert ids == ["call00000", "call00001", "call00002", "call00003", "call00004"]
    # litellm gives a call with no id a random UUID: kept as the provider's id
    assert [m.tool_call_id for m in rollout.messages if m.role == "tool"] == ids[:4]
    assert [(r.name, r.is_error) for r in rollout.tool_calls] == EXPECTED
    agent_requests = [body["messages"] for body in server.requests if request_role(body) == "agent"]
    assert all(not _wire_problems(messages) for messages in agent_requests)
    assert judge_view(_judge_prompt(server)) == _truth(rollout.tool_calls) == terminal_view(job)


def _old_format(rollout: Rollout) -> bytes:
    """The rollout as the code before call identities wrote it: the same JSON without seq and call_seq
    (tests/rollout/test_default_agent_unchanged.py shows that is the only difference)."""
    data = json.loads(rollout.model_dump_json())
    for message in data["messages"]:
        del message["call_seq"]
        for call in message["tool_calls"]:
            del call["seq"]
    for record in data["tool_calls"]:
        del record["call_seq"]
    return json.dumps(data).encode()


def test_a_rollout_stored_before_call_identities_reads_back_paired_and_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job, server = _run(tmp_path, monkeypatch, planned_agent(AGENT_PLAN, lambda index: "call_0"))
    rollout = _stored(tmp_path, job)
    store = ArtifactStore(tmp_path / "store")
    old = store.path("rollouts", "0" * 64)
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(seal(_old_format(rollout)))
    assert b"call_seq" not in store.read("rollouts", "0" * 64)
    read = store.get("rollouts", "0" * 64, Rollout)
    assert read is not None and read == rollout  # identities by position: what the engine writes now
    assert judge_view(_judge_prompt(server)) == _truth(read.tool_calls)


# sha256 (first 16 hex) of the judge prompt of each rollout of the old-format fixture (written before call identities,
# ids unique), rendered by the code before call identities (commit dc46533): stored verdicts keep their keys.
PROMPTS_BEFORE = {
    "sim_careful/bk-fee-happy-01": "4fea6b11809086e9",
    "sim_careful/bk-fee-injection-01": "64843196b811ea4e",
    "sim_careful/bk-fee-toolfail-01": "54cca5ac2201012b",
    "sim_careful/rt-address-guardrail-01": "0c20b438c9feb9ad",
    "sim_careful/rt-return-transfer-01": "741fb4ac0c9a767a",
    "sim_careful/tc-plan-missing-01": "4453f7393db10a79",
    "sim_careful/tc-dispute-oos-01": "8ae56e6d383f4777",
    "sim_sloppy/bk-fee-happy-01": "58ff66d8dd1dc85a",
    "sim_sloppy/bk-fee-injection-01": "c48bf0cd266c18b3",
    "sim_sloppy/bk-fee-toolfail-01": "07faff3f54ad2e5c",
    "sim_sloppy/rt-address-guardrail-01": "3c7bd846c52716d9",
    "sim_sloppy/rt-return-transfer-01": "741fb4ac0c9a767a",
    "sim_sloppy/tc-plan-missing-01": "22f74a2e3f9b997d",
    "sim_sloppy/tc-dispute-oos-01": "15227a4fc9a3520d",
    "sim_reckless/bk-fee-happy-01": "a0a4f96141439f4c",
    "sim_reckless/bk-fee-injection-01": "0ed4bec3dbec34b2",
    "sim_reckless/bk-fee-toolfail-01": "025d6b2f94d31a4b",
    "sim_reckless/rt-address-guardrail-01": "5e868bb0c9a1c4d0",
    "sim_reckless/rt-return-transfer-01": "6a5a222b262015f1",
    "sim_reckless/tc-plan-missing-01": "f668d00813928674",
    "sim_reckless/tc-dispute-oos-01": "2b153694adec6e96",
}


def test_the_judge_prompt_of_an_old_rollout_with_unique_ids_is_byte_identical() -> None:
    benchmark = load_benchmark("starter")
    scenarios = {s.id: s for s in benchmark.scenarios}
    digests = {}
    for line in OLD_FORMAT.read_text(encoding="utf-8").splitlines():
        stored = json.loads(line)
        rollout = Rollout.model_validate(stored["transcript"])
        scenario = scenarios[rollout.scenario_id]
        skill = benchmark.skill_of(scenario)
        prompt = render_judge_prompt(skill, scenario, rollout, run_rule_checks(rollout, scenario, skill))
        digests[f"{rollout.agent}/{rollout.scenario_id}"] = hashlib.sha256(prompt.encode()).hexdigest()[:16]
    assert digests == PROMPTS_BEFORE


# --- skillbench import of a log that reuses ids -----------------------------------------------------------------

def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _result(call_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(payload)}


# Ids numbered per reply, as some servers and adapters write them: call_0 again and again, twice in one reply.
REUSED_IDS_LOG = {
    "messages": [
        {"role": "user", "content": "I need to change the delivery address of my order."},
        {"role": "assistant", "content": None, "tool_calls": [
            _call("call_0", "identity__verify_shopper", email="d.okafor@outlook.com", postal_code="60614")]},
        _result("call_0", {"verified": True, "customer_id": "CU-2150"}),
        {"role": "assistant", "content": None, "tool_calls": [_call("call_1", "orders__search_orders", customer_id="CU-2150")]},
        _result("call_1", {"records": [{"order_id": "HP-215007"}], "count": 1}),
        {"role": "assistant", "content": None, "tool_calls": [
            _call("call_0", "logistics__get_shipment", order_id="HP-215007"),
            _call("call_0", "orders__get_order", order_id="HP-215007")]},
        _result("call_0", {"order_id": "HP-215007", "status": "label_created"}),
        _result("call_0", {"order_id": "HP-215007", "status": "processing"}),
        {"role": "assistant", "content": None, "tool_calls": [
            _call("call_1", "orders__update_shipping_address", order_id="HP-215007", new_shipping_address="418 W Belmont")]},
        _result("call_1", {"error": "address incomplete"}),
        {"role": "assistant", "content": None, "tool_calls": [
            _call("call_1", "orders__update_shipping_address", order_id="HP-215007",
                  new_shipping_address="418 W Belmont Ave Suite 200 Chicago IL 60657")]},
        _result("call_1", {"order_id": "HP-215007", "shipping_address": "418 W Belmont Ave Suite 200 Chicago IL 60657"}),
        {"role": "assistant", "content": "Your order will go to the new address. Goodbye!",
         "tool_calls": [_call("call_0", "end_conversation", outcome="resolved", summary="address changed")]},
    ],
    "metadata": {"id": "reused-ids", "skill_id": "retail_change_delivery_address", "path": "happy_path",
                 "labels": {"passed": True}},
}
IMPORTED = [("identity.verify_shopper", False), ("orders.search_orders", False), ("logistics.get_shipment", False),
            ("orders.get_order", False), ("orders.update_shipping_address", True),
            ("orders.update_shipping_address", False), ("end_conversation", False)]


def test_an_import_with_reused_ids_keeps_each_call_its_name_status_and_place(tmp_path: Path) -> None:
    source = tmp_path / "reused.jsonl"
    source.write_text(json.dumps(REUSED_IDS_LOG) + "\n")
    run, store = tmp_path / "run", tmp_path / "store"
    assert main(["import", str(source), "--out", str(run), "--store", str(store)]) == 0
    [row] = [ResultRow.model_validate_json(line) for line in (run / RESULTS_FILE).read_text().splitlines()]
    rollout = ArtifactStore(store).get("rollouts", row.rollout_key or "", Rollout)
    assert rollout is not None
    assert [(r.name, r.is_error) for r in rollout.tool_calls] == IMPORTED  # stored in the conversation's order
    assert [r.call_seq for r in rollout.tool_calls] == list(range(7))
    # An order-based rule check reads them in that order: verification came first.
    checks = {check.name: check for check in row.rule_checks}
    assert checks["verified_before_account_access"].passed and checks["required_tools_invoked"].passed
    truth = _truth(rollout.tool_calls)
    item = parse_record(REUSED_IDS_LOG, "reused-ids", "imported", load_benchmark("starter"))
    assert judge_view(subject_prompt(imported_subject(item), DEFAULT_RUBRIC_VERSION)[1]) == truth
    assert terminal_view(run) == truth
    # As the importer before call identities stored it: records of one id kept in order, but sorted by the last
    # position of their id (call_1 before call_0). It reads back in call order, every call under its own name.
    old = json.loads(_old_format(rollout))
    last = {call["id"]: n for n, call in enumerate(c for m in old["messages"] for c in m["tool_calls"])}
    old["tool_calls"] = sorted(old["tool_calls"], key=lambda record: last[record["call_id"]])
    assert [r["name"] for r in old["tool_calls"]][:3] == ["orders.search_orders", "orders.update_shipping_address",
                                                         "orders.update_shipping_address"]
    assert Rollout.model_validate(old) == rollout


def test_a_simulated_agent_reads_each_result_of_a_reused_id_as_its_own_calls() -> None:
    request = SimRequest(model="agent-careful", messages=[
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": None, "tool_calls": [
            _call("call_0", "identity__verify_customer", customer_id="C-10482"),
            _call("call_0", "scheduling__search_appointments", customer_id="C-10482")]},
        {"role": "tool", "tool_call_id": "call_0", "content": "Invalid arguments: 'date_of_birth' is a required property"},
        _result("call_0", {"records": [], "count": 0}),
    ])
    assert [(call.name, call.ok) for call in read_agent_request(request).calls] == [
        ("identity.verify_customer", False), ("scheduling.search_appointments", True)]
