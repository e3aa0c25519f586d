"""Run one conversation: the agent ⇄ the user simulator, the agent ⇄ the MCP mock tools."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config.schema import MockConfig
from skillbench.core.errors import InfrastructureError
from skillbench.core.records import Message, Rollout, Termination, ToolCall, ToolCallRecord, Usage
from skillbench.models.client import ClientPool, ModelClient
from skillbench.prompts import (
    CONTROL_TOOL_DEFINITIONS,
    END_CONVERSATION,
    TRANSFER_TO_HUMAN,
    render_agent_prompt,
    render_opening_instruction,
    render_user_prompt,
)
from skillbench.tools import open_tool_session

# Tool-call rounds the agent may make without speaking to the caller; beyond it the turn ends as max_turns.
MAX_TOOL_ROUNDS_PER_TURN = 12


@dataclass
class RolloutParams:
    """Everything fixed for the rollouts of one job. ``clients`` also serves the mock's model (llm mode)."""

    benchmark: Benchmark
    clients: ClientPool
    agent: ModelClient
    user: ModelClient
    stop_marker: str
    mock: MockConfig
    max_turns: int
    seed: int


def _to_openai(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.raw_arguments if call.raw_arguments is not None else _json(call.arguments),
                },
            }
            for call in message.tool_calls
        ]
    if message.role == "tool":
        data["tool_call_id"] = message.tool_call_id
        data["name"] = message.name
    return data


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _control_record(call: ToolCall, turn: int) -> tuple[ToolCallRecord, Termination, str]:
    if call.name == TRANSFER_TO_HUMAN:
        termination: Termination = "transferred"
        detail = str(call.arguments.get("reason", ""))
    else:
        termination = "out_of_scope" if call.arguments.get("outcome") == "out_of_scope" else "resolved"
        detail = str(call.arguments.get("summary", ""))
    record = ToolCallRecord(
        turn=turn, call_id=call.id, name=call.name, arguments=call.arguments, offered=True,
        is_error=False, result="conversation ended", control=True,
    )
    return record, termination, detail


async def run_rollout(scenario: Scenario, params: RolloutParams, *, key: str) -> Rollout:
    """One conversation, start to end. Infrastructure failures raise InfrastructureError."""
    started = time.perf_counter()
    skill = params.benchmark.skill_of(scenario)
    stop_marker = params.stop_marker
    usage = {"agent": Usage(), "user": Usage()}
    messages: list[Message] = [Message(role="system", content=render_agent_prompt(skill))]
    agent_view: list[dict[str, Any]] = [_to_openai(messages[0])]
    user_view: list[dict[str, Any]] = [
        {"role": "system", "content": render_user_prompt(scenario, skill, stop_marker)},
        {"role": "user", "content": render_opening_instruction()},
    ]
    control_records: list[ToolCallRecord] = []
    termination: Termination | None = None
    detail = ""
    turn = 0

    async def user_says(turn_number: int) -> bool:
        """Ask the simulator for its next message; False when it ends the conversation."""
        reply = await params.user.complete(user_view)
        usage["user"] = usage["user"].add(reply.usage)
        text = (reply.content or "").strip()
        if stop_marker in text:
            return False
        user_view.append({"role": "assistant", "content": text})
        message = Message(role="user", content=text, turn=turn_number)
        messages.append(message)
        agent_view.append(_to_openai(message))
        return True

    async with open_tool_session(
        params.benchmark, scenario, params.mock, seed=params.seed, clients=params.clients
    ) as tools:
        agent_tools = [*tools.openai_tools, *CONTROL_TOOL_DEFINITIONS]
        if not await user_says(0):
            termination, detail = "user_ended", "the caller ended before speaking"
        while termination is None:
            turn += 1
            if turn > params.max_turns:
                termination, detail = "max_turns", f"{params.max_turns} agent turns"
                break
            for _round in range(MAX_TOOL_ROUNDS_PER_TURN):
                reply = await params.agent.complete(agent_view, tools=agent_tools)
                usage["agent"] = usage["agent"].add(reply.usage)
                message = Message(role="assistant", content=reply.content, tool_calls=reply.tool_calls, turn=turn)
                messages.append(message)
                agent_view.append(_to_openai(message))
                if not reply.tool_calls:
                    break
                for call in reply.tool_calls:
                    if call.name in (END_CONVERSATION, TRANSFER_TO_HUMAN):
                        record, termination, detail = _control_record(call, turn)
                        control_records.append(record)
                        break
                    record = await tools.call(call.name, call.arguments, call_id=call.id, turn=turn)
                    if record.error_kind == "infra":  # the mock itself failed (e.g. llm mode): not the agent's doing
                        raise InfrastructureError(f"mock tool {call.name}: {record.result}")
                    result = Message(role="tool", content=record.result, tool_call_id=call.id, name=call.name, turn=turn)
                    messages.append(result)
                    agent_view.append(_to_openai(result))
                if termination is not None:
                    break
            else:
                termination, detail = "max_turns", f"more than {MAX_TOOL_ROUNDS_PER_TURN} tool rounds without replying"
            if termination is not None:
                break
            user_view.append({"role": "user", "content": reply.content or ""})
            if not await user_says(turn):
                termination, detail = "user_ended", "the caller ended the conversation"
        calls = [*tools.calls, *control_records]  # both in call order; a control call is always the last
        usage["mock"] = tools.usage
        final_state = tools.state
        offered = list(tools.offered)
    return Rollout(
        key=key,
        scenario_id=scenario.id,
        skill_id=scenario.skill_id,
        agent=params.agent.cfg.name,
        messages=messages,
        tool_calls=calls,
        offered_tools=offered,
        termination=termination,
        termination_detail=detail,
        turns=turn if termination != "max_turns" else params.max_turns,
        final_state=final_state,
        usage=usage,
        duration_s=time.perf_counter() - started,
    )

