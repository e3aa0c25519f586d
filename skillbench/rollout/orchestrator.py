"""Run one conversation: the agent ⇄ the user simulator, the agent ⇄ the MCP mock tools."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skillbench.agents import MAIN_MODEL, Agent, AgentModels, AgentReply, AgentState, LLMAgent, accepted_reply
from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.benchmark.state import clone
from skillbench.config.schema import MockConfig
from skillbench.core.errors import BenchmarkCodeError, ConfigError, InfrastructureError, ModelOutputError
from skillbench.core.guest import GuestBlocked, GuestFault, fault_of, guest_entry
from skillbench.core.records import (
    Message,
    Rollout,
    Termination,
    TimeLimitHit,
    ToolCall,
    ToolCallRecord,
    Usage,
)
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

if TYPE_CHECKING:
    from skillbench.tools import ToolSession

log = logging.getLogger(__name__)

# Tool-call rounds the agent may make without speaking to the caller; beyond it the turn ends as max_turns.
MAX_TOOL_ROUNDS_PER_TURN = 12
# After its time limit a reply is cancelled; a program that ignores the cancellation is left behind after this.
CANCEL_GRACE_S = 5.0


@dataclass(frozen=True)
class AgentLimits:
    """The agent program's own time (model calls excluded) per reply and per conversation (agent.*_limit_s)."""

    reply_s: float = 300.0
    conversation_s: float = 1800.0


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
    agent_program: Agent = field(default_factory=LLMAgent)
    agent_models: Mapping[str, ModelClient] = field(
        default_factory=dict, metadata={"description": "The agent program's other models, by name (agent.models)."}
    )
    agent_limits: AgentLimits = field(default_factory=AgentLimits)


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
            turn=turn, call_id=call.id, call_seq=call.seq, name=call.name, arguments=call.arguments, offered=True,
            is_error=True, error_kind="validation", result=f"Error: {call.name} was not applied: {problem}. The conversation continues.",
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
        turn=turn, call_id=call.id, call_seq=call.seq, name=call.name, arguments=call.arguments, offered=True,
        is_error=False, result="conversation ended", control=True,
    )
    return record, termination, detail


def _unparsed_call_record(call: ToolCall, turn: int, name: str, offered: bool) -> ToolCallRecord:
    # Never sent to the mock: it would read {} and answer about missing fields, misleading agent and judge.
    return ToolCallRecord(
        turn=turn, call_id=call.id, call_seq=call.seq, name=name, arguments={}, offered=offered, is_error=True,
        error_kind="validation", result="Error: the tool call's arguments are not a JSON object; nothing was done.",
    )


def entered_call(call: ToolCall, seq: int) -> ToolCall:
    """A call as it enters the transcript: its identity ``seq`` (whatever the agent program put there) and the
    provider's id, never rewritten. A call that came with an empty id gets ``call<seq, 5 digits>``: every result
    must name its call on the wire, and this id is unique in the conversation (providers such as Anthropic refuse
    a repeated one), the same on every run (byte-identical requests for prompt caches) and 9 alphanumerics, the
    form Mistral insists on (docs/tools.md, "Tool-call identity")."""
    return call.model_copy(update={"seq": seq, "id": call.id or f"call{seq:05d}"})


async def run_rollout(scenario: Scenario, params: RolloutParams, *, key: str) -> Rollout:
    """One conversation, start to end. Infrastructure failures raise InfrastructureError and the benchmark's own
    code failing raises BenchmarkCodeError, each with the usage spent so far in ``by_role`` (an infrastructure error
    also carries the conversation so far in ``partial``); the agent's unusable output, exception or overrun ends
    the conversation as model_error."""
    usage = {"agent": Usage(), "user": Usage()}
    conversation = _Conversation(scenario, params, usage)
    try:
        return await conversation.run(key)
    except (InfrastructureError, BenchmarkCodeError) as exc:
        exc.by_role = {role: value.add(exc.by_role.get(role, Usage())) for role, value in usage.items()}
        if isinstance(exc, InfrastructureError):
            exc.partial = conversation.so_far(key)
        raise


class _Conversation:
    """One conversation while it runs. The turn loop, as named steps: the caller opens (:meth:`user_speaks`),
    then each turn the agent acts (:meth:`agent_turn`: replies and tool calls until it answers the caller)
    and the caller answers (:meth:`user_answers`), until one of them ends it (:meth:`end`)."""

    def __init__(self, scenario: Scenario, params: RolloutParams, usage: dict[str, Usage]) -> None:
        self.scenario = scenario
        self.params = params
        self.usage = usage
        self.skill = params.benchmark.skill_of(scenario)
        self.messages: list[Message] = [Message(role="system", content=render_agent_prompt(self.skill))]
        self.user_view: list[dict[str, Any]] = [
            {"role": "system", "content": render_user_prompt(scenario, self.skill, params.stop_marker)},
            {"role": "user", "content": render_opening_instruction()},
        ]
        self.records: list[ToolCallRecord] = []  # every tool call, control calls included, in call order
        self.calls_entered = 0  # tool calls in the transcript so far: the next call's identity (ToolCall.seq)
        self.termination: Termination | None = None
        self.detail = ""
        self.turn = 0
        self.fault: GuestFault | None = None  # what the agent program raised, when that ended the conversation
        self.time_limit: TimeLimitHit | None = None
        self.own_time_s = 0.0  # the agent program's own time so far (model calls excluded)
        self.offered: list[str] = []
        models = {MAIN_MODEL: params.agent, **params.agent_models}
        self.agent_models = AgentModels(models, lambda spent: self._spend("agent", spent))

    def _spend(self, role: str, spent: Usage | None) -> None:
        self.usage[role] = self.usage[role].add(spent or Usage())

    def end(self, termination: Termination, detail: str) -> None:
        self.termination, self.detail = termination, detail

    async def run(self, key: str) -> Rollout:
        started = time.perf_counter()
        params = self.params
        async with open_tool_session(
            params.benchmark, self.scenario, params.mock, seed=params.seed, clients=params.clients
        ) as tools:
            self.offered = list(tools.offered)
            # The agent's view: copies (docs/agents.md "The record belongs to the engine").
            state = AgentState(
                skill=self.skill.model_copy(deep=True), policy=self.messages[0].content or "",
                tools=clone([*tools.openai_tools, *CONTROL_TOOL_DEFINITIONS]), models=self.agent_models,
            )
            if not await self.user_speaks(0):
                self.end("user_ended", "the caller ended before speaking")
            while self.termination is None:
                self.turn += 1
                if self.turn > params.max_turns:
                    self.end("max_turns", f"{params.max_turns} agent turns")
                    break
                reply = await self.agent_turn(state, tools)
                if reply is not None and not await self.user_answers(reply):
                    self.end("user_ended", "the caller ended the conversation")
            self.usage["mock"] = tools.usage
            final_state = tools.state
        assert self.termination is not None
        return self.so_far(key).model_copy(update={
            "termination": self.termination, "termination_detail": self.detail, "final_state": final_state,
            "turns": self.turn if self.termination != "max_turns" else params.max_turns,
            "duration_s": time.perf_counter() - started,
        })

    def so_far(self, key: str) -> Rollout:
        """The conversation as it stands (the engine's own records), e.g. when an endpoint failed mid-way."""
        return Rollout(
            key=key, scenario_id=self.scenario.id, skill_id=self.scenario.skill_id, agent=self.params.agent.cfg.name,
            messages=list(self.messages), tool_calls=list(self.records), offered_tools=self.offered,
            termination=self.termination or "infra_error", termination_detail=self.detail, turns=self.turn,
            usage=self.usage, traceback=self.fault.traceback if self.fault is not None else None,
            time_limit=self.time_limit,
        )

    async def user_speaks(self, turn: int) -> bool:
        """The simulator's next message into the transcript; False when it ends the conversation instead."""
        text, cut = await self._user_reply()
        if self.params.stop_marker in text:
            return False
        self.user_view.append({"role": "assistant", "content": text})
        self.messages.append(Message(role="user", content=text, turn=turn, cut=cut))
        return True

    async def user_answers(self, reply: AgentReply) -> bool:
        """The caller hears the agent's reply and answers it; False when it ends the conversation."""
        self.user_view.append({"role": "user", "content": reply.content or ""})
        return await self.user_speaks(self.turn)

    async def _user_reply(self) -> tuple[str, str | None]:
        """The simulator's next text and its cut note; a blank one is asked again once, then it is an
        infrastructure error. A reply cut at max_tokens is kept (it is the harness's text) and marked."""
        user = self.params.user
        problem = ""
        for _attempt in range(2):
            try:
                reply = await user.complete(self.user_view)
            except ModelOutputError as exc:  # the simulator is our tooling, not the model under test
                self._spend("user", exc.usage)
                raise InfrastructureError(f"user simulator: {exc}") from exc
            except InfrastructureError as exc:
                self._spend("user", exc.usage)
                raise
            self._spend("user", reply.usage)
            text = (reply.content or "").strip()
            if text:
                return text, reply.cut_note() if reply.cut else None
            problem = reply.problem or "a blank reply"
        raise InfrastructureError(f"user simulator ({user.cfg.model}): {problem} twice")

    async def agent_turn(self, state: AgentState, tools: ToolSession) -> AgentReply | None:
        """The agent's replies and their tool calls until it answers the caller without a tool call (that
        reply is returned); None when the conversation ended during the turn."""
        state.turn = self.turn
        for _round in range(MAX_TOOL_ROUNDS_PER_TURN):
            reply = await self.agent_reply(state)
            if reply is None:
                return None
            calls = [entered_call(call, self.calls_entered + index) for index, call in enumerate(reply.tool_calls)]
            self.calls_entered += len(calls)
            self.messages.append(Message(
                role="assistant", content=reply.content, tool_calls=calls, turn=self.turn,
                reasoning=reply.reasoning, cut=reply.cut,
            ))
            if reply.cut:  # kept in the transcript, marked; its tool calls are not run (docs/outcomes.md)
                self.end("model_error", f"agent: reply {reply.cut}")
                return None
            if not calls:
                return reply
            await self.run_tool_calls(calls, tools)
            if self.termination is not None:
                return None
        self.end("max_turns", f"more than {MAX_TOOL_ROUNDS_PER_TURN} tool rounds without replying")
        return None

    async def agent_reply(self, state: AgentState) -> AgentReply | None:
        """The agent's next message; None (the conversation ended as model_error) when it has no usable one: it
        raised (anything but InfrastructureError and our own configuration errors), ran past its time limit,
        or returned something that is not a usable reply."""
        state.messages._add(self.messages)
        state.tool_calls._add(self.records)
        try:
            reply = await self._timed_reply(state)
        except (InfrastructureError, ModelOutputError, ConfigError) as exc:
            if isinstance(exc, ModelOutputError):
                self.end("model_error", f"agent: {exc}")
                return None
            if isinstance(exc, InfrastructureError) and exc.origin is None:
                exc.origin = "agent_program"  # raised by the program itself (something it depends on is down)
            raise
        except _GuestFailed as failed:
            self.fault = failed.fault
            log.warning("agent program failed on %s: %s", self.scenario.id, failed.fault.line())
            self.end("model_error", f"agent: the agent program raised {failed.fault.kind}: {failed.fault.message[:300]}")
            return None
        except _Blocked as blocked:
            self.time_limit = TimeLimitHit(limit="reply", seconds=self.params.agent_limits.reply_s)
            self.end("model_error", f"agent: the agent program {blocked} (agent.reply_limit_s): no other conversation "
                                    "can run while it does")
            return None
        except _OverLimit as over:
            self.time_limit = over.hit
            which = "agent.reply_limit_s" if over.hit.limit == "reply" else "agent.conversation_limit_s"
            self.end("model_error", f"agent: the agent program spent more than {over.hit.seconds:g}s of its own time "
                                    f"({'in one reply' if over.hit.limit == 'reply' else 'in this conversation'}; {which})")
            return None
        try:
            reply = accepted_reply(reply)
        except TypeError as exc:
            self.end("model_error", f"agent: the agent program {exc}")
            return None
        if not reply.tool_calls and not (reply.content or "").strip():
            self.end("model_error", "agent: the reply had neither text nor tool calls")
            return None
        return reply

    async def _timed_reply(self, state: AgentState) -> Any:
        """``program.reply(state)`` under the agent's clocks: its own time (wall time minus the time its model calls
        were in flight) per reply and per conversation. Raises :class:`_GuestFailed` for whatever the program raised
        (``BaseException`` included) and :class:`_OverLimit` when it ran past a limit."""
        limits, models = self.params.agent_limits, self.agent_models
        started, model_before = time.monotonic(), models.model_time_s()

        def own_time() -> float:
            return (time.monotonic() - started) - (models.model_time_s() - model_before)

        task = asyncio.ensure_future(_guarded(self.params.agent_program.reply(state)))
        try:
            while not task.done():
                left_reply = limits.reply_s - own_time()
                left_conversation = limits.conversation_s - self.own_time_s - own_time()
                if min(left_reply, left_conversation) <= 0:
                    await _stop(task)
                    hit = ("reply", limits.reply_s) if left_reply <= 0 else ("conversation", limits.conversation_s)
                    raise _OverLimit(TimeLimitHit(limit=hit[0], seconds=hit[1]))  # type: ignore[arg-type]
                await asyncio.wait({task}, timeout=max(0.01, min(left_reply, left_conversation)))
        except asyncio.CancelledError:  # the engine is stopping this conversation (budget, Ctrl-C, SIGTERM)
            await _stop(task)
            raise
        finally:
            self.own_time_s += max(0.0, own_time())
        return task.result()

    async def run_tool_calls(self, calls: list[ToolCall], tools: ToolSession) -> None:
        """Each call in order on the scenario's MCP session (control calls end the conversation), its result
        into the transcript; calls after an ending are not made."""
        for call in calls:
            if call.name in (END_CONVERSATION, TRANSFER_TO_HUMAN):
                record, termination, detail = _control_record(call, self.turn)
                if termination is not None:
                    self.end(termination, detail)
            elif call.raw_arguments is not None:
                name = tools.mcp_name(call.name)
                record = _unparsed_call_record(call, self.turn, name, offered=name in tools.offered)
            else:
                record = await tools.call(call.name, call.arguments, call_id=call.id, call_seq=call.seq, turn=self.turn)
                if record.error_kind == "infra":  # the mock itself failed (e.g. llm mode): not the agent's doing
                    raise InfrastructureError(f"mock tool {call.name}: {record.result}")
                if record.error_kind == "benchmark":  # the domain's code tool failed: the benchmark's own fault
                    raise BenchmarkCodeError(f"benchmark {self.params.benchmark.manifest.name}, scenario {self.scenario.id}: "
                                             f"{record.result}", traceback=tools.fault_traceback)
            self.records.append(record)
            if self.termination is not None:
                return
            self.messages.append(
                Message(role="tool", content=record.result, tool_call_id=call.id, call_seq=call.seq, name=call.name,
                        turn=self.turn)
            )


class _GuestFailed(Exception):
    """The agent program raised (what, where, traceback in ``fault``)."""

    def __init__(self, fault: GuestFault) -> None:
        super().__init__(fault.line())
        self.fault = fault


class _Blocked(Exception):
    """The agent program kept the event loop from running (a synchronous sleep or loop) past its reply limit."""


class _OverLimit(Exception):
    """The agent program ran past one of its time limits."""

    def __init__(self, hit: TimeLimitHit) -> None:
        super().__init__(hit.limit)
        self.hit = hit


@guest_entry
async def _guarded(reply: Any) -> Any:
    """Await the agent program's reply; whatever it raises becomes :class:`_GuestFailed`, except the errors the turn
    loop handles itself and a cancellation skillbench asked for. ``BaseException`` is caught here, inside the task:
    a ``SystemExit`` or ``KeyboardInterrupt`` escaping a task would end the event loop itself."""
    try:
        return await reply
    except (InfrastructureError, ModelOutputError, ConfigError):
        raise
    except GuestBlocked as exc:  # it kept the event loop from running past its reply limit (core/guest.py)
        raise _Blocked(str(exc)) from None
    except asyncio.CancelledError as exc:
        task = asyncio.current_task()
        if task is not None and task.cancelling():  # we cancelled it (a time limit, or the engine stopping)
            raise
        raise _GuestFailed(fault_of(exc)) from None  # the program's own CancelledError
    except BaseException as exc:  # SystemExit, KeyboardInterrupt, GeneratorExit, any Exception: the program's
        raise _GuestFailed(fault_of(exc)) from None


async def _stop(task: asyncio.Future[Any]) -> None:
    """Cancel the agent's reply and wait for it to unwind, at most :data:`CANCEL_GRACE_S` (a program that swallows
    the cancellation is left behind)."""
    task.cancel()
    await asyncio.wait({task}, timeout=CANCEL_GRACE_S)
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: a failure while unwinding is not reported again
