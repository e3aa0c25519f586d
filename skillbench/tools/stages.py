"""The mock's call pipeline as registered stages: latency → known tool → validate → inject → respond.

A stage is built once per conversation from the server (``build(server) -> step | None``; None leaves
it out, so a disabled stage costs nothing per call). Each call then runs the steps in ``order``: a step
returns None to pass the call on, a result dict to answer it, or raises :class:`ToolError` for an error
result. A new failure behaviour is one registered stage (see docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import anyio

from skillbench.benchmark.schema import ToolSpec
from skillbench.config.schema import MockConfig
from skillbench.core.errors import ToolError
from skillbench.core.registry import Registry
from skillbench.tools.failures import FailureInjector
from skillbench.tools.modes import MockContext, ResponseMode
from skillbench.tools.validation import ArgumentValidator


class StageHost(Protocol):
    """What a stage may read from the server of one conversation (:class:`MockToolServer`)."""

    mock: MockConfig
    tools: dict[str, ToolSpec]
    validator: ArgumentValidator | None
    failures: FailureInjector
    mode: ResponseMode
    context: MockContext


@dataclass(slots=True)
class MockCall:
    """One call as it passes through the steps; ``tool`` is set once the name is known."""

    name: str
    arguments: dict[str, Any]
    index: int  # the call's position in the conversation (seeds random failures)
    tool: ToolSpec | None = None


Step = Callable[[MockCall], Awaitable[dict[str, Any] | None]]


@dataclass(frozen=True, slots=True)
class MockStage:
    name: str
    order: int
    build: Callable[[StageHost], Step | None]


MOCK_STAGES: Registry[MockStage] = Registry("mock stage")


def mock_stage(name: str, *, order: int) -> Callable[[Callable[[StageHost], Step | None]], Callable[[StageHost], Step | None]]:
    """Register a stage builder; ``order`` places it (built-ins: 10 latency … 100 respond)."""

    def decorator(build: Callable[[StageHost], Step | None]) -> Callable[[StageHost], Step | None]:
        full = MOCK_STAGES.registered_name(name)
        MOCK_STAGES.register(full)(MockStage(name=full, order=order, build=build))
        return build

    return decorator


def build_steps(host: StageHost) -> list[Step]:
    """The active steps of one conversation, in order."""
    stages = sorted(MOCK_STAGES.values(), key=lambda stage: stage.order)
    return [step for stage in stages if (step := stage.build(host)) is not None]


@mock_stage("latency", order=10)
def latency(host: StageHost) -> Step | None:
    delay_s = host.mock.latency_ms / 1000.0
    if not delay_s:
        return None

    async def step(call: MockCall) -> None:
        await anyio.sleep(delay_s)

    return step


@mock_stage("known_tool", order=20)
def known_tool(host: StageHost) -> Step:
    tools = host.tools

    async def step(call: MockCall) -> None:
        call.tool = tools.get(call.name)
        if call.tool is None:
            raise ToolError("unknown_tool", f"Unknown tool {call.name!r}.")

    return step


@mock_stage("validate", order=30)
def validate(host: StageHost) -> Step | None:
    validator = host.validator
    if validator is None:
        return None

    async def step(call: MockCall) -> None:
        validator.check(call.name, call.arguments)

    return step


@mock_stage("inject", order=40)
def inject(host: StageHost) -> Step:
    failures, timeout_s = host.failures, host.mock.timeout_s

    async def step(call: MockCall) -> None:
        failure = failures.decide(call.name, call.index)
        if failure == "timeout":
            await anyio.sleep(timeout_s)
            raise ToolError("timeout", f"Request to {call.name} timed out after {timeout_s:g}s.")
        if failure == "injected":
            raise ToolError("injected", failures.message)

    return step


@mock_stage("respond", order=100)
def respond(host: StageHost) -> Step:
    mode, context = host.mode, host.context

    async def step(call: MockCall) -> dict[str, Any]:
        assert call.tool is not None  # known_tool ran first
        return await mode(context, call.tool, call.arguments)

    return step
