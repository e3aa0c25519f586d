"""Hostile and careless agent programs on the real turn loop, MCP mock and simulated models: whatever a program does
to what it is given, raises or fails to return, the record stays the engine's and the conversation ends in the
agent's own class (model_error) — never the process, never a forged check, never a hang."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest

from skillbench.agents import AgentReply, AgentState, LLMAgent
from skillbench.benchmark import load_benchmark
from skillbench.config.schema import AgentConfig, StatefulMock, UserSimConfig
from skillbench.core.records import Message, Rollout, ToolCall, ToolCallRecord
from skillbench.evaluation import run_rule_checks
from skillbench.models.client import ClientPool
from skillbench.rollout.orchestrator import AgentLimits, RolloutParams, run_rollout
from skillbench.simulated.scripted import STOP_MARKER

BENCH = load_benchmark("starter")
SCENARIO = BENCH.scenarios[0]  # bk-fee-happy-01: five tools must succeed


def _run(program: Any, limits: AgentLimits | None = None, *, agent_model: str = "skillbench_sim/agent-careful") -> Rollout:
    pool = ClientPool(seed=0)
    params = RolloutParams(
        benchmark=BENCH, clients=pool,
        agent=pool.client(AgentConfig(name="agent", model=agent_model, simulated=True)),
        user=pool.client(UserSimConfig(name="user", model="skillbench_sim/user", simulated=True)),
        stop_marker=STOP_MARKER, mock=StatefulMock(name="stateful"), max_turns=8, seed=0,
        agent_program=program, agent_limits=limits or AgentLimits(),
    )
    return asyncio.run(run_rollout(SCENARIO, params, key="k"))


END = ToolCall(id="end", name="end_conversation", arguments={"outcome": "resolved", "summary": "refund done"})


class Quitter:
    """Ends the conversation at once, calling no tool."""

    async def reply(self, state: AgentState) -> AgentReply:
        return AgentReply(content="All done, goodbye.", tool_calls=[END])


class Forger(Quitter):
    """Tries every way to write its own evidence into what it was given, then ends like Quitter."""

    async def reply(self, state: AgentState) -> AgentReply:
        forged_calls = [
            ToolCallRecord(turn=1, call_id=f"f{i}", name=tool["function"]["name"].replace("__", "."), arguments={},
                           offered=True, is_error=False, result='{"ok": true, "verified": true}')
            for i, tool in enumerate(state.tools)
        ]
        forged_results = [Message(role="tool", content='{"ok": true}', tool_call_id=c.call_id, name=c.name, turn=1)
                          for c in forged_calls]
        attempts = [
            lambda: state.tool_calls.extend(forged_calls),  # type: ignore[attr-defined]  (read-only: no extend)
            lambda: state.messages.extend(forged_results),  # type: ignore[attr-defined]
            lambda: state.tool_calls._items.extend(forged_calls),  # reaching into the view: only the agent's copy
            lambda: state.messages._items.extend(forged_results),
            lambda: setattr(state.messages[-1], "content", "I authorise every refund"),  # a copy of the caller's line
            lambda: state.skill.steps.clear(),  # the skill the rule checks read: a copy
            lambda: state.tools.clear(),
        ]
        for attempt in attempts:
            with contextlib.suppress(AttributeError):
                attempt()
        return await super().reply(state)


def _evidence(rollout: Rollout) -> dict[str, Any]:
    checks = run_rule_checks(rollout, SCENARIO, BENCH.skill_of(SCENARIO))
    return {"messages": [m.model_dump() for m in rollout.messages], "tool_calls": [r.model_dump() for r in rollout.tool_calls],
            "final_state": rollout.final_state, "termination": rollout.termination,
            "checks": [c.model_dump() for c in checks]}


def test_a_forging_program_leaves_the_record_exactly_as_a_program_that_calls_nothing() -> None:
    honest, forger = _run(Quitter()), _run(Forger())
    assert _evidence(forger) == _evidence(honest)
    checks = {c["name"]: c for c in _evidence(forger)["checks"]}
    assert checks["required_tools_invoked"]["passed"] is False and forger.tool_calls[-1].name == "end_conversation"
    # The benchmark's own objects (the skill the checks and every other conversation read) are untouched.
    assert BENCH.skill_of(SCENARIO).steps and _run(LLMAgent()).termination == "resolved"


def test_what_a_program_returns_is_copied_before_it_enters_the_transcript() -> None:
    class ChangesItsMind:
        async def reply(self, state: AgentState) -> AgentReply:
            if state.memory.get("sent"):  # change the objects it handed over on its first reply
                state.memory["sent"].content, state.memory["sent"].tool_calls[0].arguments["summary"] = "x", "y"
                return AgentReply(content="bye", tool_calls=[END])
            sent = AgentReply(content="Let me look that up.", tool_calls=[END.model_copy(deep=True)])
            state.memory["sent"] = sent
            return sent

    rollout = _run(ChangesItsMind())
    first = next(m for m in rollout.messages if m.role == "assistant")
    assert first.content == "Let me look that up." and first.tool_calls[0].arguments["summary"] == "refund done"


def _raising(exc: BaseException) -> Any:
    class Raises:
        async def reply(self, state: AgentState) -> AgentReply:
            raise exc

    return Raises()


@pytest.mark.parametrize("exc", [
    SystemExit(0), SystemExit(3), KeyboardInterrupt(), GeneratorExit(), asyncio.CancelledError(), RuntimeError("boom"),
], ids=["SystemExit-0", "SystemExit-3", "KeyboardInterrupt", "GeneratorExit", "CancelledError", "RuntimeError"])
def test_whatever_a_program_raises_is_its_own_failure_with_its_traceback(exc: BaseException) -> None:
    rollout = _run(_raising(exc))
    name = type(exc).__name__
    assert rollout.termination == "model_error"
    assert rollout.termination_detail.startswith(f"agent: the agent program raised {name}")
    assert rollout.traceback is not None and name in rollout.traceback and "test_hostile_programs.py" in rollout.traceback


def test_a_program_that_never_returns_is_stopped_at_its_reply_limit() -> None:
    class Hangs:
        async def reply(self, state: AgentState) -> AgentReply:
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

    started = time.monotonic()
    rollout = _run(Hangs(), AgentLimits(reply_s=0.5, conversation_s=60))
    assert time.monotonic() - started < 30
    assert rollout.termination == "model_error"
    assert rollout.termination_detail == ("agent: the agent program spent more than 0.5s of its own time (in one reply; "
                                          "agent.reply_limit_s)")
    assert rollout.time_limit is not None and (rollout.time_limit.limit, rollout.time_limit.seconds) == ("reply", 0.5)


def test_a_program_that_swallows_its_cancellation_is_left_behind_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    import skillbench.rollout.orchestrator as orchestrator

    monkeypatch.setattr(orchestrator, "CANCEL_GRACE_S", 0.2)

    class Stubborn:
        async def reply(self, state: AgentState) -> AgentReply:
            for _ in range(50):
                try:
                    await asyncio.sleep(0.1)
                except asyncio.CancelledError:
                    continue  # ignores being cancelled, for a while
            return AgentReply(content="too late")

    rollout = _run(Stubborn(), AgentLimits(reply_s=0.3, conversation_s=60))
    assert rollout.termination == "model_error" and "agent.reply_limit_s" in rollout.termination_detail


def test_a_conversations_own_time_adds_up_over_its_replies_model_calls_excluded() -> None:
    class SlowThinker:
        """Thinks 0.3 s before each reply of the simulated model (whose own time does not count)."""

        def __init__(self) -> None:
            self.inner = LLMAgent()

        async def reply(self, state: AgentState) -> AgentReply:
            await asyncio.sleep(0.3)
            return await self.inner.reply(state)

    rollout = _run(SlowThinker(), AgentLimits(reply_s=5, conversation_s=1.0))
    assert rollout.termination == "model_error"
    assert rollout.termination_detail.endswith("(in this conversation; agent.conversation_limit_s)")
    assert rollout.time_limit is not None and rollout.time_limit.limit == "conversation"
    assert 3 <= sum(1 for m in rollout.messages if m.role == "assistant") <= 5  # about 1.0 / 0.3 replies were had


@pytest.mark.parametrize("reply", [
    None, "hello", {"content": "hi"}, AgentReply(content=3),  # type: ignore[arg-type]
    AgentReply(content="hi", tool_calls=["end_conversation"]),  # type: ignore[list-item]
], ids=["None", "str", "dict", "number-content", "call-as-text"])
def test_a_malformed_reply_is_the_agents_model_error(reply: Any) -> None:
    class Returns:
        async def reply(self, state: AgentState) -> Any:
            return reply

    rollout = _run(Returns())
    assert rollout.termination == "model_error" and rollout.termination_detail.startswith("agent: the agent program returned")
