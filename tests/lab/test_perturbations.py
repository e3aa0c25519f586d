"""Every perturbation keeps transcript, call log and final state consistent and introduces exactly the labelled defect."""

from __future__ import annotations

import json
import re

import pytest

from skillbench.benchmark.state import replay
from skillbench.evaluation import run_rule_checks
from skillbench.lab.consistency import consistency_problems
from skillbench.lab.labelled import is_clean, variants
from skillbench.lab.perturb import (
    INJECTION,
    OBEDIENCE,
    PERTURBATIONS,
    STACKED_QUESTIONS,
    Case,
    Perturbed,
    step_stems,
    step_tools,
)


def run(name: str, case: Case) -> Perturbed:
    perturbed = PERTURBATIONS.get(name).fn(case)
    assert perturbed is not None, f"{name} does not apply to {case.scenario.id}"
    assert consistency_problems(perturbed.rollout, case) == []
    return perturbed


def failing(case: Case, perturbed: Perturbed) -> set[str]:
    return {c.name for c in run_rule_checks(perturbed.rollout, case.scenario, case.skill) if not c.passed}


def calls(rollout) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def]
    return [(r.name, r.arguments) for r in rollout.tool_calls]


def texts(rollout, role: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.content or "" for m in rollout.messages if m.role == role]


def test_sources_are_clean_and_every_perturbation_applies(cases: list[Case]) -> None:
    for case in cases:
        assert is_clean(case)
        assert {v.perturbation for v in variants(case)} == {"control", *PERTURBATIONS.names()}
    assert len(PERTURBATIONS.names()) >= 11


def test_hallucinated_action_claims_a_call_that_never_succeeded(cases: list[Case]) -> None:
    for case in cases:
        out = run("hallucinated_action", case)
        tool = re.match(r"removed (\S+),", out.edit).group(1)  # type: ignore[union-attr]
        assert not [r for r in out.rollout.tool_calls if r.name == tool and not r.is_error]
        assert any(f"completed the {tool.split('.', 1)[1].replace('_', ' ')}" in t for t in texts(out.rollout, "assistant"))
        before = calls(case.rollout)
        assert len(calls(out.rollout)) == len(before) - 1
        assert texts(out.rollout, "user") == texts(case.rollout, "user")
        # only checks about the missing call itself may see it (here: the removed tool is never a required one)
        assert failing(case, out) <= {"required_tools_invoked", "target_state_reached"}


def test_verification_removed_keeps_account_access(cases: list[Case]) -> None:
    for case in cases:
        out = run("verification_removed", case)
        verify = step_tools(case.skill, "verify")
        assert not [r for r in out.rollout.tool_calls if r.name in verify]
        assert [r for r in out.rollout.tool_calls if r.name in step_tools(case.skill, "lookup", "act") and not r.is_error]
        # the verification tool is also a required one: those two checks, and only they, see the gap
        assert "verified_before_account_access" in failing(case, out)
        assert failing(case, out) <= {"verified_before_account_access", "required_tools_invoked"}
        assert out.rollout.final_state == case.rollout.final_state


def test_forbidden_tool_succeeds_once(cases: list[Case]) -> None:
    for case in cases:
        out = run("forbidden_tool_succeeded", case)
        hits = [r for r in out.rollout.tool_calls if r.name in case.scenario.forbidden_tools and not r.is_error]
        assert len(hits) == 1
        assert "no_forbidden_tool_succeeded" in failing(case, out)
        assert [c for c in calls(out.rollout) if c[0] != hits[0].name] == calls(case.rollout)
        effect = case.tools[hits[0].name].effect
        if effect.operation in {"lookup", "get"}:  # a read: the state stays, the result is the record the mock holds
            assert out.rollout.final_state == case.rollout.final_state
            assert json.loads(hits[0].result) in case.rollout.final_state[effect.collection or ""]
        else:  # a write: its effect is in the final state
            assert out.rollout.final_state != case.rollout.final_state


@pytest.mark.parametrize(("name", "termination", "control"), [
    ("premature_end", "resolved", "end_conversation"), ("unnecessary_transfer", "transferred", "transfer_to_human")
])
def test_ending_before_the_first_action_misses_the_target(cases: list[Case], name: str, termination: str, control: str) -> None:
    for case in cases:
        out = run(name, case)
        assert out.rollout.termination == termination
        assert out.rollout.tool_calls[-1].name == control
        assert not [r for r in out.rollout.tool_calls if r.name in step_tools(case.skill, "act")]
        assert "target_state_reached" in failing(case, out)
        assert "termination_reached" not in failing(case, out)


def test_wrong_argument_changes_one_value_and_misses_the_target(cases: list[Case]) -> None:
    for case in cases:
        out = run("wrong_argument", case)
        before, after = calls(case.rollout), calls(out.rollout)
        changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
        assert len(changed) == 1
        (_, old_args), (_, new_args) = changed[0]
        assert len([k for k in old_args if old_args[k] != new_args[k]]) == 1
        assert failing(case, out) == {"target_state_reached"}


def test_stacked_questions_touch_one_agent_turn(cases: list[Case]) -> None:
    for case in cases:
        out = run("stacked_questions", case)
        changed = [(a, b) for a, b in zip(case.rollout.messages, out.rollout.messages, strict=True) if a != b]
        assert len(changed) == 1 and changed[0][1].content.endswith(STACKED_QUESTIONS)  # type: ignore[union-attr]
        assert changed[0][1].content.count("?") >= 3  # type: ignore[union-attr]
        assert calls(out.rollout) == calls(case.rollout) and failing(case, out) == set()


def test_policy_step_skipped_leaves_no_call_and_no_mention(cases: list[Case]) -> None:
    for case in cases:
        out = run("policy_step_skipped", case)
        step_id = re.search(r"step '([^']+)'", out.edit).group(1)  # type: ignore[union-attr]
        step = next(s for s in case.skill.steps if s.id == step_id)
        assert not [r for r in out.rollout.tool_calls if r.name in step.tools]
        stems = step_stems(step.id, step.tools)
        first = next(i for i, m in enumerate(case.rollout.messages) if any(c.name.replace("__", ".") in step.tools for c in m.tool_calls))
        later = [m.content or "" for m in out.rollout.messages[first:] if m.role == "assistant"]
        assert not any(w[:4] in stems for t in later for w in re.findall(r"[a-z]{4,}", t.lower()))
        assert failing(case, out) <= {"required_tools_invoked", "target_state_reached"}
        assert texts(out.rollout, "user") == texts(case.rollout, "user")


def test_injection_obeyed_changes_two_messages_and_no_call(cases: list[Case]) -> None:
    for case in cases:
        out = run("injection_obeyed", case)
        changed = [(a, b) for a, b in zip(case.rollout.messages, out.rollout.messages, strict=True) if a != b]
        assert [b.role for _, b in changed] == ["user", "assistant"]
        assert INJECTION in (changed[0][1].content or "") and (changed[1][1].content or "").startswith(OBEDIENCE)
        assert calls(out.rollout) == calls(case.rollout) and out.rollout.final_state == case.rollout.final_state
        assert failing(case, out) == set()  # words only: no rule check can see it


@pytest.mark.parametrize("name", ["paraphrase_reworded", "paraphrase_lengthened"])
def test_paraphrases_keep_every_action(cases: list[Case], name: str) -> None:
    for case in cases:
        out = run(name, case)
        assert calls(out.rollout) == calls(case.rollout)
        assert out.rollout.final_state == case.rollout.final_state
        assert texts(out.rollout, "user") == texts(case.rollout, "user")
        assert texts(out.rollout, "assistant") != texts(case.rollout, "assistant")
        assert failing(case, out) == set()


# Every perturbation that removes, inserts or changes a write call: the final state must follow the edited log.
WRITE_EDITS = ["hallucinated_action", "policy_step_skipped", "forbidden_tool_succeeded", "premature_end",
               "unnecessary_transfer", "wrong_argument"]


@pytest.mark.parametrize("name", WRITE_EDITS)
def test_the_final_state_follows_the_edited_call_log(cases: list[Case], name: str) -> None:
    """The state the stateful mock would leave after the edited calls (benchmark.state.replay) is the variant's final
    state: a removed write's effect is undone, an inserted or changed one applied. The source's state left behind is
    an inconsistency the check reports, so such a variant would be dropped from the lab."""
    moved = 0
    for case in cases:
        out = run(name, case)
        assert replay(case.scenario.initial_state, case.tools, out.rollout.tool_calls) == out.rollout.final_state
        if out.rollout.final_state == case.rollout.final_state:
            continue  # a forbidden read: nothing to undo or apply
        moved += 1
        stale = out.rollout.model_copy(update={"final_state": case.rollout.final_state})
        problems = consistency_problems(stale, case)
        assert problems and all("final state of" in p for p in problems), problems
    assert moved >= 2  # the fixture's sources exercise the state of every such perturbation


def test_a_logged_success_the_state_cannot_give_is_inconsistent(cases: list[Case]) -> None:
    """A successful write whose record does not exist (the forbidden call's filled-in id, say) cannot have happened."""
    case = cases[0]
    out = run("forbidden_tool_succeeded", case)
    record = next(r for r in out.rollout.tool_calls if r.call_id == "call_lab_forbidden")
    key = next(iter(case.tools[record.name].effect.match.values()))
    ghost = {**record.arguments, key: "NO-SUCH-RECORD"}
    records = [r.model_copy(update={"arguments": ghost}) if r is record else r for r in out.rollout.tool_calls]
    messages = [m.model_copy(update={"tool_calls": [c.model_copy(update={"arguments": ghost}) if c.id == record.call_id else c
                                                    for c in m.tool_calls]}) for m in out.rollout.messages]
    problems = consistency_problems(out.rollout.model_copy(update={"tool_calls": records, "messages": messages}), case)
    assert any("cannot have happened" in p and "NO-SUCH-RECORD" in p for p in problems), problems


def test_wrong_argument_keeps_what_other_calls_wrote_to_the_same_record() -> None:
    """A full-benchmark source whose two writes change one record (unlock_user, then reset_mfa on the same user): moving
    unlock_user to another user undoes its own field only; reset_mfa's change stays, as a replay of the log says."""
    from skillbench.benchmark import load_benchmark
    from skillbench.core.records import Rollout
    from skillbench.lab.labelled import make_case
    from tests.lab.conftest import SOURCES

    rollout = Rollout.model_validate_json((SOURCES.parent / "lab_source_two_writes.json").read_text())
    case = make_case(load_benchmark("full"), rollout)
    assert case is not None and is_clean(case)
    out = run("wrong_argument", case)
    moved = next(r for r in out.rollout.tool_calls if r.name == "workspace_admin.unlock_user")
    right = next(r for r in case.rollout.tool_calls if r.name == "workspace_admin.reset_mfa").arguments["user_id"]
    assert moved.arguments["user_id"] != right
    users = {u["user_id"]: u for u in out.rollout.final_state["workspace_users"]}
    initial = {u["user_id"]: u for u in case.scenario.initial_state["workspace_users"]}
    assert users[right]["status"] == initial[right]["status"] and users[right]["mfa_status"] == "reset_pending"
    assert users[moved.arguments["user_id"]]["status"] == "active"
