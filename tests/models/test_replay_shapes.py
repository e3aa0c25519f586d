"""Each real server's error shape, replayed with its exact status and body, gets its outcome class in the client:
the model's own unusable output is a ModelOutputError (never retried), a generic 5xx stays infrastructure."""

from __future__ import annotations

from typing import Any

import pytest

from skillbench.config.schema import ModelConfig
from skillbench.core.errors import InfrastructureError, ModelOutputError
from skillbench.models import ModelClient
from skillbench.models.server_faults import model_fault
from tests.support.openai_stub import RawReply, stub_server, text_reply
from tests.support.replay import (
    AGENT_TEXT_CUT,
    GENERIC_500,
    GROQ_TOOL_USE_FAILED_400,
    LLAMACPP_TOOL_ARGUMENTS_500,
    OPENAI_MODEL_ERROR_500,
    VLLM_ECHOED_ARGUMENTS_400,
)

HELLO = [{"role": "user", "content": "hello"}]
ECHOED = [*HELLO, {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"id": "C-1", "x"'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "error"}]


def _client(base_url: str, **overrides: Any) -> ModelClient:
    cfg = ModelConfig(name="replayed", model="hosted_vllm/stub-model", api_base=base_url, **overrides)
    return ModelClient(cfg)


@pytest.mark.parametrize(("shape", "server", "said"), [
    (LLAMACPP_TOOL_ARGUMENTS_500, "llama.cpp HTTP 500", "Failed to parse tool call arguments as JSON"),
    (OPENAI_MODEL_ERROR_500, "OpenAI HTTP 500", "The model produced invalid content"),
    (GROQ_TOOL_USE_FAILED_400, "Groq HTTP 400", "Failed to call a function"),
], ids=["llama.cpp-500", "openai-500", "groq-400"])
async def test_a_server_reporting_the_models_own_output_is_a_model_error_sent_once(
    shape: RawReply, server: str, said: str
) -> None:
    with stub_server(lambda body: shape) as stub, pytest.raises(ModelOutputError) as caught:
        await _client(stub.base_url, max_retries=3).complete(HELLO)
    assert len(stub.requests) == 1  # no retry storm: the same request would fail the same way
    message = str(caught.value)
    assert server in message and said in message  # the server's own words are kept
    assert caught.value.usage is not None and caught.value.usage.failed_attempts == 1


async def test_vllm_refusing_an_echoed_malformed_call_is_a_model_error() -> None:
    with stub_server(lambda body: VLLM_ECHOED_ARGUMENTS_400) as stub, pytest.raises(ModelOutputError) as caught:
        await _client(stub.base_url).complete(ECHOED)
    assert len(stub.requests) == 1 and "Expecting ',' delimiter" in str(caught.value)


async def test_a_generic_500_stays_infrastructure_and_is_retried() -> None:
    with stub_server(lambda body: GENERIC_500) as stub, pytest.raises(InfrastructureError) as caught:
        await _client(stub.base_url, max_retries=1, timeout_s=5).complete(HELLO)
    assert len(stub.requests) == 2 and caught.value.retryable
    assert "Internal Server Error" in str(caught.value)


async def test_finish_reason_and_what_answered_are_read_from_the_reply() -> None:
    with stub_server(lambda body: AGENT_TEXT_CUT, fingerprint="b6936-6a2c1e0f", served_model="smollm2-135m") as stub:
        reply = await _client(stub.base_url, params={"max_tokens": 256}).complete(HELLO)
    assert reply.cut and reply.finish_reason == "length" and reply.cut_note() == "cut at max_tokens (256)"
    assert reply.served_by is not None and reply.served_by.fingerprint == "b6936-6a2c1e0f"
    assert "smollm2-135m" in reply.served_by.model
    with stub_server(lambda body: text_reply("hi")) as stub:
        with_stop = await _client(stub.base_url).complete(HELLO)
    assert with_stop.finish_reason == "stop" and not with_stop.cut


@pytest.mark.parametrize(("message", "server"), [
    ('{"error":{"code":500,"message":"Failed to parse input at pos 112: <tool_call>{\\"name\\": \\"lookup\\"","type":"server_error"}}',
     "llama.cpp"),
    ('{"object":"error","message":"Error in extracting tool call from response.","type":"InternalServerError","code":500}',
     "vLLM"),
])
def test_the_other_model_output_shapes_are_recognised(message: str, server: str) -> None:
    found = model_fault(Exception(message))
    assert found is not None and found[0].server == server


@pytest.mark.parametrize("message", [
    # vLLM started without a tool parser: the configuration's fault, not the model's.
    '{"object":"error","message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be '
    'set","type":"BadRequestError","param":null,"code":400}',
    '{"error":{"code":500,"message":"Internal Server Error","type":"server_error"}}',
    "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
    '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',
])
def test_endpoint_and_configuration_errors_are_never_read_as_the_models_output(message: str) -> None:
    assert model_fault(Exception(message)) is None
