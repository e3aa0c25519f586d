"""run_rollout on scripted fake models and the real in-process MCP mock: endings, tool records, turn limits."""

from __future__ import annotations

import asyncio

from skillbench.benchmark import load_benchmark
from skillbench.config.schema import AgentConfig, StatefulMock, UserSimConfig
from skillbench.core.records import Rollout
from skillbench.models.client import ClientPool
from skillbench.prompts.agent import END_CONVERSATION
from skillbench.rollout.orchestrator import MAX_TOOL_ROUNDS_PER_TURN, RolloutParams, run_rollout
from skillbench.simulated.scripted import STOP_MARKER, call, say, scripted_model
from skillbench.tools import openai_tool_name

BENCH = load_benchmark("starter")
SCENARIO = BENCH.scenarios[0]
SKILL = BENCH.skill_of(SCENARIO)
FIRST_TOOL = SKILL.tools[0]


def _run(agent: str, user: str = "skillbench_sim/scripted-user", max_turns: int = 6) -> Rollout:
    pool = ClientPool(seed=0)
    params = RolloutParams(
        benchmark=BENCH, clients=pool,
        agent=pool.client(AgentConfig(name="agent", model=agent, simulated=True)),
        user=pool.client(UserSimConfig(name="user", model=user, simulated=True)),
        stop_marker=STOP_MARKER, mock=StatefulMock(name="stateful"), max_turns=max_turns, seed=0,
    )
    return asyncio.run(run_rollout(SCENARIO, params, key="k"))


def test_a_conversation_ends_with_the_agents_control_call_recorded_last() -> None:
    rollout = _run("skillbench_sim/scripted-agent")
    assert rollout.termination == "resolved" and rollout.turns == 2
    assert [m.role for m in rollout.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert rollout.tool_calls[-1].control and rollout.tool_calls[-1].name == END_CONVERSATION
    assert rollout.usage["agent"].calls == 2 and rollout.usage["user"].calls == 2
    assert rollout.agent == "agent" and rollout.offered_tools == list(SKILL.tools)


def test_tool_calls_are_recorded_with_their_results_and_whether_they_were_offered() -> None:
    agent = scripted_model("rollout-tools", [
        call(openai_tool_name(FIRST_TOOL), customer_id="nobody"),
        call("admin__wipe_everything"),
        call(END_CONVERSATION, outcome="resolved", summary="done"),
    ])
    rollout = _run(agent)
    first, outside, ending = rollout.tool_calls
    assert first.name == FIRST_TOOL and first.offered and first.turn == 1
    assert not outside.offered and outside.is_error and outside.error_kind == "unknown_tool"
    assert ending.control and rollout.termination == "resolved"
    results = [m for m in rollout.messages if m.role == "tool"]
    assert [m.tool_call_id for m in results] == [first.call_id, outside.call_id]


def test_an_agent_that_never_ends_stops_at_max_turns() -> None:
    agent = scripted_model("rollout-chatty", default=say("Could you tell me more?"))
    user = scripted_model("rollout-patient-user", default=say("Sure, here is more."))
    rollout = _run(agent, user, max_turns=3)
    assert rollout.termination == "max_turns" and rollout.turns == 3
    assert rollout.termination_detail == "3 agent turns"


def test_endless_tool_rounds_without_a_reply_end_the_conversation() -> None:
    agent = scripted_model("rollout-looping", default=call(openai_tool_name(FIRST_TOOL), customer_id="x"))
    rollout = _run(agent)
    assert rollout.termination == "max_turns"
    assert f"more than {MAX_TOOL_ROUNDS_PER_TURN} tool rounds" in rollout.termination_detail
    assert len([r for r in rollout.tool_calls if not r.control]) == MAX_TOOL_ROUNDS_PER_TURN


def test_the_caller_hanging_up_ends_the_conversation() -> None:
    user = scripted_model("rollout-hang-up", default=say(STOP_MARKER))
    rollout = _run("skillbench_sim/scripted-agent", user)
    assert rollout.termination == "user_ended" and rollout.turns == 0
    assert [m.role for m in rollout.messages] == ["system"]
