"""The agent protocol on the real turn loop, MCP mock and simulated models: an agent program may call models
several times per reply (all counted as the agent's usage), and its failures end the conversation as the
agent's own (model_error) while a failing endpoint stays infrastructure."""

from __future__ import annotations

import asyncio

import pytest

from skillbench.agents import AgentReply, AgentState, LLMAgent
from skillbench.benchmark import load_benchmark
from skillbench.config.schema import AgentConfig, ModelConfig, StatefulMock, UserSimConfig
from skillbench.core.errors import ConfigError, InfrastructureError
from skillbench.core.records import Rollout
from skillbench.rollout.orchestrator import RolloutParams, run_rollout
from skillbench.simulated.scripted import STOP_MARKER

BENCH = load_benchmark("starter")
SCENARIO = BENCH.scenarios[0]


def _run(program, *, extra: dict[str, ModelConfig] | None = None) -> Rollout:
    from skillbench.models.client import ClientPool

    pool = ClientPool(seed=0)
    params = RolloutParams(
        benchmark=BENCH, clients=pool,
        agent=pool.client(AgentConfig(name="agent", model="skillbench_sim/scripted-agent", simulated=True)),
        user=pool.client(UserSimConfig(name="user", model="skillbench_sim/scripted-user", simulated=True)),
        stop_marker=STOP_MARKER, mock=StatefulMock(name="stateful"), max_turns=6, seed=0,
        agent_program=program, agent_models={name: pool.client(cfg) for name, cfg in (extra or {}).items()},
    )
    return asyncio.run(run_rollout(SCENARIO, params, key="k"))


class TwoCallsPerReply:
    """Asks a second model for a note first, then lets the default agent answer; remembers how often."""

    async def reply(self, state: AgentState) -> AgentReply:
        note = await state.models.complete(
            [{"role": "user", "content": state.policy[:200]}], model="notes"
        )
        state.memory["notes"] = [*state.memory.get("notes", []), note.content]
        return await LLMAgent().reply(state)


def test_a_program_may_call_several_models_per_reply_and_every_call_is_the_agents_usage() -> None:
    plain = _run(LLMAgent())
    extra = {"notes": ModelConfig(name="notes", model="skillbench_sim/scripted-agent", simulated=True)}
    double = _run(TwoCallsPerReply(), extra=extra)
    assert double.termination == plain.termination == "resolved"
    assert double.usage["agent"].calls == 2 * plain.usage["agent"].calls
    assert [m.model_dump() for m in double.messages] == [m.model_dump() for m in plain.messages]


class Raises:
    async def reply(self, state: AgentState) -> AgentReply:
        raise ValueError("planner crashed")


class Silent:
    async def reply(self, state: AgentState) -> AgentReply:
        return AgentReply(content="  ")


class WrongType:
    async def reply(self, state: AgentState):
        return "hello"


@pytest.mark.parametrize(("program", "detail"), [
    (Raises(), "agent: the agent program raised ValueError: planner crashed"),
    (Silent(), "agent: the reply had neither text nor tool calls"),
    (WrongType(), "agent: the agent program returned str, not an AgentReply"),
])
def test_an_agent_programs_own_failure_ends_the_conversation_as_a_model_error(program, detail) -> None:
    rollout = _run(program)
    assert rollout.termination == "model_error" and rollout.termination_detail == detail


class DependsOnADownService:
    async def reply(self, state: AgentState) -> AgentReply:
        raise InfrastructureError("retrieval index unreachable")


def test_a_program_reporting_infrastructure_raises_it_unscored() -> None:
    with pytest.raises(InfrastructureError, match="retrieval index unreachable"):
        _run(DependsOnADownService())


def test_asking_for_an_unconfigured_model_is_a_configuration_error_not_the_agents_failure() -> None:
    class AsksForPlanner:
        async def reply(self, state: AgentState) -> AgentReply:
            await state.models.complete([], model="planner")
            raise AssertionError("unreachable")

    with pytest.raises(ConfigError, match=r"asks for model 'planner', which agent.models does not name \(configured: agent\)"):
        _run(AsksForPlanner())
