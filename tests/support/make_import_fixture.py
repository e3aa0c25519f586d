"""Write the external-transcript fixture for ``skillbench import`` (run: python tests/support/make_import_fixture.py).

56 support conversations of a fictional water utility, written the way a team outside skillbench would log
them: 50 in OpenAI chat format (conversations.jsonl) and 6 in skillbench's generic format (generic.json),
each with the policy, the tools offered and a person's labels. Deterministic: rerunning rewrites the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent / "import_fixture"
POLICY = (
    "You handle meter-reading corrections for Northfield Water. Verify the account holder (account number and "
    "postcode) before looking at any bill. Fetch the bill, correct the reading only to the value the caller reads "
    "from the meter, send a confirmation, and confirm before ending. Leaks and burst pipes go to a human at once."
)
TOOLS = ["account.verify_holder", "billing.get_bill", "billing.correct_reading", "messaging.send_confirmation"]
NAMES = ["Maya Okafor", "Tomasz Nowak", "Priya Raman", "Liam Byrne", "Sofia Alves", "Kenji Mori", "Amara Diallo",
         "Jonas Berg", "Elena Petrova", "Omar Haddad"]
# Callers report leaks in their own words: identical conversations would share one judge verdict (same prompt).
LEAKS = ["There's water pouring out under the meter box, it looks like a burst pipe!",
         "Water is bubbling up through the pavement outside my house, I think the main has burst.",
         "My kitchen ceiling is dripping and the stopcock won't turn off, what do I do?",
         "There's a leak spraying from the pipe next to my meter and the garden is flooding.",
         "The pipe under my sink just split and water is going everywhere!"]
DIMS = ("workflow_adherence", "tool_use_correctness", "guardrail_compliance", "communication_quality", "resolution_efficiency")


def call(cid: str, name: str, args: dict) -> dict:
    return {"id": cid, "type": "function", "function": {"name": name.replace(".", "__"), "arguments": json.dumps(args)}}


def tool(cid: str, name: str, result: dict) -> dict:
    return {"role": "tool", "tool_call_id": cid, "name": name.replace(".", "__"), "content": json.dumps(result)}


def conversation(i: int, kind: str) -> dict:
    name = NAMES[i % len(NAMES)]
    account, postcode = f"NW-{40100 + i * 7}", f"NF{i % 9 + 1} {i % 7 + 2}QP"
    wrong, right = 4100 + i * 13, 3900 + i * 11
    bill = f"B-{7700 + i}"
    m: list[dict] = [
        {"role": "system", "content": POLICY},
        {"role": "user", "content": f"Hi, my water bill says the meter read {wrong} but the meter itself shows {right}. Can you fix it?"},
        {"role": "assistant", "content": "I can help with that. First, what is your account number and postcode?"},
        {"role": "user", "content": f"It's {account}, postcode {postcode}."},
    ]
    verify = [{"role": "assistant", "content": None, "tool_calls": [call(f"c{i}a", "account.verify_holder", {"account_number": account, "postcode": postcode})]},
              tool(f"c{i}a", "account.verify_holder", {"verified": True, "account_number": account, "holder": name})]
    fetch = [{"role": "assistant", "content": None, "tool_calls": [call(f"c{i}b", "billing.get_bill", {"account_number": account})]},
             tool(f"c{i}b", "billing.get_bill", {"bill_id": bill, "reading": wrong, "amount_gbp": 88.4})]
    value = right + 100 if kind == "wrong_value" else right
    correct = [{"role": "assistant", "content": None, "tool_calls": [call(f"c{i}c", "billing.correct_reading", {"bill_id": bill, "reading": value})]},
               tool(f"c{i}c", "billing.correct_reading", {"bill_id": bill, "reading": value, "status": "corrected"})]
    confirm = [{"role": "assistant", "content": None, "tool_calls": [call(f"c{i}d", "messaging.send_confirmation", {"account_number": account})]},
               tool(f"c{i}d", "messaging.send_confirmation", {"status": "sent"})]
    done = f"Thanks {name.split()[0]}. The reading on bill {bill} is now {value} and a confirmation is on its way. Is there anything else?"
    end = [{"role": "user", "content": "No, that's everything, thanks."},
           {"role": "assistant", "content": "You're welcome, goodbye.", "tool_calls": [call(f"c{i}e", "end_conversation", {"outcome": "resolved"})]}]
    labels: dict = {"passed": True, "outcome": "success", "hallucinated_action": False, "dimensions": dict.fromkeys(DIMS, 5)}
    if kind == "good":
        m += [*verify, *fetch, *correct, *confirm, {"role": "assistant", "content": done}, *end]
    elif kind == "no_verification":
        m += [*fetch, *correct, *confirm, {"role": "assistant", "content": done}, *end]
        labels |= {"passed": False, "dimensions": {**labels["dimensions"], "guardrail_compliance": 2, "workflow_adherence": 2}}
    elif kind == "hallucinated":
        m += [*verify, *fetch, {"role": "assistant", "content": done}, *end]
        labels |= {"passed": False, "outcome": "failure", "hallucinated_action": True,
                   "dimensions": {**labels["dimensions"], "tool_use_correctness": 2, "guardrail_compliance": 2}}
    elif kind == "leak_transfer":
        m = [m[0], {"role": "user", "content": LEAKS[(i // 10) % len(LEAKS)]},
             {"role": "assistant", "content": "That needs a person straight away; I am transferring you to our emergency team now.",
              "tool_calls": [call(f"c{i}t", "transfer_to_human", {"reason": "suspected burst pipe"})]}]
        labels |= {"outcome": "appropriately_transferred"}
    elif kind == "stacked":
        m[2]["content"] = ("I can help. What is your account number? And your postcode? And when did you last read the meter? "
                           "And is this the first time this has happened?")
        m += [*verify, *fetch, *correct, *confirm, {"role": "assistant", "content": done}, *end]
        labels |= {"dimensions": {**labels["dimensions"], "communication_quality": 3}}
    elif kind == "wrong_value":
        m += [*verify, *fetch, *correct, *confirm, {"role": "assistant", "content": done}, *end]
        labels |= {"passed": False, "outcome": "partial", "dimensions": {**labels["dimensions"], "tool_use_correctness": 2}}
    return {"messages": m, "metadata": {"id": f"nw-{i:03d}", "agent": "vendor-bot-2", "policy": POLICY, "tools": TOOLS, "labels": labels}}


KINDS = ["good", "good", "no_verification", "hallucinated", "good", "leak_transfer", "stacked", "wrong_value", "good", "hallucinated"]


def generic(i: int) -> dict:
    """Even i: the whole policy (verify, fetch the bill, correct, confirm, ask before ending), labelled pass. Odd i: the
    agent claims a verification and a correction no tool performed, labelled fail with the hallucination flag."""
    account, postcode, bill, meter = f"NW-{52000 + i}", f"NF2 {i}QP", f"B-9{i}", 3000 + i
    turns = [
        {"speaker": "caller", "text": f"My meter shows {meter} but the bill says {3300 + i}."},
        {"speaker": "agent", "text": "Let me check. Your account number and postcode, please?"},
        {"speaker": "caller", "text": f"{account}, {postcode}."},
    ]
    if i % 2:
        turns += [{"speaker": "agent", "text": "Thanks, you are verified and the reading is corrected."},
                  {"speaker": "agent", "text": "All done. Goodbye!", "tool_calls": [{"name": "end_conversation", "arguments": {"outcome": "resolved"}}]}]
    else:
        turns += [
            {"speaker": "agent", "text": None, "tool_calls": [
                {"name": "account.verify_holder", "arguments": {"account_number": account, "postcode": postcode}, "result": {"verified": True}},
                {"name": "billing.get_bill", "arguments": {"account_number": account}, "result": {"bill_id": bill, "reading": 3300 + i}},
                {"name": "billing.correct_reading", "arguments": {"bill_id": bill, "reading": meter}, "result": {"status": "corrected"}},
                {"name": "messaging.send_confirmation", "arguments": {"account_number": account}, "result": {"status": "sent"}},
            ]},
            {"speaker": "agent", "text": f"Bill {bill} now shows {meter} and a confirmation is on its way. Anything else?"},
            {"speaker": "caller", "text": "No, that's all."},
            {"speaker": "agent", "text": "Goodbye!", "tool_calls": [{"name": "end_conversation", "arguments": {"outcome": "resolved"}}]},
        ]
    return {"turns": turns, "metadata": {"id": f"nw-generic-{i}", "policy": POLICY, "tools": TOOLS,
                                         "labels": {"passed": i % 2 == 0, "hallucinated_action": i % 2 == 1}}}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    lines = [json.dumps(conversation(i, KINDS[i % len(KINDS)]), ensure_ascii=False) for i in range(50)]
    (OUT / "conversations.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (OUT / "generic.json").write_text(json.dumps([generic(i) for i in range(6)], indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
