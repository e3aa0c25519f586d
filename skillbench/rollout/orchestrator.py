"""Run one conversation: the agent ⇄ the user simulator, the agent ⇄ the MCP mock tools."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config.schema import MockConfig
from skillbench.core.errors import InfrastructureError, ModelOutputError
from skillbench.core.records import Message, Rollout, Termination, ToolCall, ToolCallRecord, Usage
from skillbench.models.client import ClientPool, Completion, ModelClient
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


_CONTROL_SCHEMAS: dict[str, dict[str, Any]] = {
    tool["function"]["name"]: tool["function"]["parameters"] for tool in CONTROL_TOOL_DEFINITIONS
}


def control_argument_error(call: ToolCall) -> str | None:
    """Why a control call's arguments break its schema (not JSON, unknown key, missing or bad value); None if valid."""
    if call.raw_arguments is not None:
        return "the arguments are not a JSON object"
    schema = _CONTROL_SCHEMAS[call.name]
    properties: dict[str, Any] = schema["properties"]
    unknown = sorted(set(call.arguments) - set(properties))
    if unknown:
        return f"unknown argument(s) {unknown}; allowed: {sorted(properties)}"
    missing = [name for name in schema.get("required", []) if name not in call.arguments]
    if missing:
        return f"missing required argument(s) {missing}"
    for name, value in call.arguments.items():
        spec = properties[name]
        if spec.get("type") == "string" and not isinstance(value, str):
            return f"'{name}' must be a string"
        if "enum" in spec and value not in spec["enum"]:
            return f"'{name}' must be one of {spec['enum']}, got {value!r}"
    return None


def _control_record(call: ToolCall, turn: int) -> tuple[ToolCallRecord, Termination | None, str]:
    """The record of a control call and the ending it makes; an invalid call ends nothing (termination None)."""
    problem = control_argument_error(call)
    if problem is not None:
        record = ToolCallRecord(
            turn=turn, call_id=call.id, name=call.name, arguments=call.arguments, offered=True, is_error=True,
            error_kind="validation", result=f"Error: {call.name} was not applied: {problem}. The conversation continues.",
            control=True,
        )
        return record, None, ""
    if call.name == TRANSFER_TO_HUMAN:
        termination: Termination = "transferred"
        detail = str(call.arguments.get("reason", ""))
    else:
        termination = "out_of_scope" if call.arguments["outcome"] == "out_of_scope" else "resolved"
        detail = str(call.arguments.get("summary", ""))
    record = ToolCallRecord(
        turn=turn, call_id=call.id, name=call.name, arguments=call.arguments, offered=True,
        is_error=False, result="conversation ended", control=True,
    )
    return record, termination, detail


def _unparsed_call_record(call: ToolCall, turn: int, name: str, offered: bool) -> ToolCallRecord:
    # Never sent to the mock: it would read {} and answer about missing fields, misleading agent and judge.
    return ToolCallRecord(
        turn=turn, call_id=call.id, name=name, arguments={}, offered=offered, is_error=True,
        error_kind="validation", result="Error: the tool call's arguments are not a JSON object; nothing was done.",
    )


def empty_turn(reply: Completion) -> str | None:
    """Why an agent reply is unusable (no choices; no text after <think> removal and no tool calls), else None."""
    if reply.problem is not None:
        return reply.problem
    if not reply.tool_calls and not (reply.content or "").strip():
        return "the reply had neither text nor tool calls"
    return None


async def run_rollout(scenario: Scenario, params: RolloutParams, *, key: str) -> Rollout:
    """One conversation, start to end. Infrastructure failures raise InfrastructureError, with the
    usage spent so far in ``by_role``; the agent's unusable output ends the conversation as model_error."""
    usage = {"agent": Usage(), "user": Usage()}
    try:
        return await _converse(scenario, params, key, usage)
    except InfrastructureError as exc:
        exc.by_role = {role: value.add(exc.by_role.get(role, Usage())) for role, value in usage.items()}
        raise


async def _converse(scenario: Scenario, params: RolloutParams, key: str, usage: dict[str, Usage]) -> Rollout:
    started = time.perf_counter()
    skill = params.benchmark.skill_of(scenario)
    stop_marker = params.stop_marker
    messages: list[Message] = [Message(role="system", content=render_agent_prompt(skill))]
    agent_view: list[dict[str, Any]] = [_to_openai(messages[0])]
    user_view: list[dict[str, Any]] = [
        {"role": "system", "content": render_user_prompt(scenario, skill, stop_marker)},
        {"role": "user", "content": render_opening_instruction()},
    ]
    records: list[ToolCallRecord] = []  # every tool call, control calls included, in call order
    termination: Termination | None = None
    detail = ""
    turn = 0

    async def user_reply() -> str:
        """The simulator's next message; a blank one is asked again once, then it is an infrastructure error."""
        problem = ""
        for _attempt in range(2):
            try:
                reply = await params.user.complete(user_view)
            except ModelOutputError as exc:  # the simulator is our tooling, not the model under test
                usage["user"] = usage["user"].add(exc.usage or Usage())
                raise InfrastructureError(f"user simulator: {exc}") from exc
            except InfrastructureError as exc:
                usage["user"] = usage["user"].add(exc.usage or Usage())
                raise
            usage["user"] = usage["user"].add(reply.usage)
            text = (reply.content or "").strip()
            if text:
                return text
            problem = reply.problem or "a blank reply"
        raise InfrastructureError(f"user simulator ({params.user.cfg.model}): {problem} twice")

    async def agent_reply() -> Completion | str:
        """The agent's next reply, or why it is unusable (the model's own failure)."""
        try:
            reply = await params.agent.complete(agent_view, tools=agent_tools)
        except ModelOutputError as exc:
            usage["agent"] = usage["agent"].add(exc.usage or Usage())
            return str(exc)
        except InfrastructureError as exc:
            usage["agent"] = usage["agent"].add(exc.usage or Usage())
            raise
        usage["agent"] = usage["agent"].add(reply.usage)
        return empty_turn(reply) or reply

    async def user_says(turn_number: int) -> bool:
        """Ask the simulator for its next message; False when it ends the conversation."""
        text = await user_reply()
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
                reply = await agent_reply()
                if isinstance(reply, str):
                    termination, detail = "model_error", f"agent: {reply}"
                    break
                message = Message(
                    role="assistant", content=reply.content, tool_calls=reply.tool_calls, turn=turn,
                    reasoning=reply.reasoning,
                )
                messages.append(message)
                agent_view.append(_to_openai(message))
                if not reply.tool_calls:
                    break
                for call in reply.tool_calls:
                    if call.name in (END_CONVERSATION, TRANSFER_TO_HUMAN):
                        record, termination, detail = _control_record(call, turn)
                    elif call.raw_arguments is not None:
                        name = tools.mcp_name(call.name)
                        record = _unparsed_call_record(call, turn, name, offered=name in tools.offered)
                    else:
                        record = await tools.call(call.name, call.arguments, call_id=call.id, turn=turn)
                        if record.error_kind == "infra":  # the mock itself failed (e.g. llm mode): not the agent's doing
                            raise InfrastructureError(f"mock tool {call.name}: {record.result}")
                    records.append(record)
                    if termination is not None:
                        break
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
        usage["mock"] = tools.usage
        final_state = tools.state
        offered = list(tools.offered)
    return Rollout(
        key=key,
        scenario_id=scenario.id,
        skill_id=scenario.skill_id,
        agent=params.agent.cfg.name,
        messages=messages,
        tool_calls=records,
        offered_tools=offered,
        termination=termination,
        termination_detail=detail,
        turns=turn if termination != "max_turns" else params.max_turns,
        final_state=final_state,
        usage=usage,
        duration_s=time.perf_counter() - started,
    )
