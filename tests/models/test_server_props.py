"""What a llama.cpp server says about itself (GET /props) is recorded with each reply and read by the preflight:
its build, the model file it loaded and the chat template it renders with (docs/real-servers.md)."""

from __future__ import annotations

from typing import Any

import pytest

from skillbench.config.schema import AgentConfig, ModelConfig
from skillbench.core.records import ServedBy
from skillbench.models import ModelClient
from skillbench.models.server_props import ServerProps, parse_props, props_url, read_props, template_digest
from skillbench.plan.preflight import model_problems
from tests.conftest import compose_config
from tests.support.openai_stub import stub_server, text_reply
from tests.support.replay import LLAMACPP_PROPS

HELLO = [{"role": "user", "content": "hello"}]
RENDERS_TOOLS = {**LLAMACPP_PROPS, "chat_template_caps": {**LLAMACPP_PROPS["chat_template_caps"], "supports_tools": True}}


def _hello(body: dict[str, Any]) -> dict[str, Any]:
    return text_reply("hi")


def test_props_are_read_from_the_servers_root_and_only_from_llamacpp() -> None:
    assert props_url("http://127.0.0.1:8124/v1") == "http://127.0.0.1:8124/props"
    assert props_url("http://host:8124/v1/") == "http://host:8124/props"
    assert props_url("http://host/llama") == "http://host/llama/props"
    assert parse_props(LLAMACPP_PROPS) == ServerProps(
        build="b0-unknown", model_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        chat_template=template_digest(LLAMACPP_PROPS["chat_template"]), renders_tools=False)
    # Never a local folder in a row: the file's name only, whatever the server's OS.
    assert parse_props({"model_path": "C:\\Users\\dana\\models\\m.gguf"}) == ServerProps(None, "m.gguf", None, None)
    for other in ({"detail": "Not Found"}, [], "ok", None, {"object": "list", "data": []}):
        assert parse_props(other) is None


async def test_each_reply_records_the_build_model_file_and_template_the_server_reports() -> None:
    with stub_server(_hello, props=LLAMACPP_PROPS, served_model="smollm2-135m") as stub:
        reply = await ModelClient(ModelConfig(name="m", model="hosted_vllm/smollm2-135m", api_base=stub.base_url)).complete(HELLO)
    # No system_fingerprint in the reply: the build comes from /props.
    assert reply.served_by == ServedBy(model="smollm2-135m", fingerprint="b0-unknown",
                                       model_file="SmolLM2-135M-Instruct.Q4_1.gguf",
                                       chat_template=template_digest(LLAMACPP_PROPS["chat_template"]))
    assert reply.served_by.label() == (f"smollm2-135m (b0-unknown, SmolLM2-135M-Instruct.Q4_1.gguf, "
                                       f"template {template_digest(LLAMACPP_PROPS['chat_template'])})")


async def test_a_server_without_props_is_recorded_as_its_replies_say() -> None:
    with stub_server(_hello, fingerprint="fp_1", served_model="gpt-x") as stub:
        reply = await ModelClient(ModelConfig(name="m", model="hosted_vllm/gpt-x", api_base=stub.base_url)).complete(HELLO)
        assert read_props(stub.base_url) is None
    assert reply.served_by == ServedBy(model="gpt-x", fingerprint="fp_1")
    assert reply.served_by.label() == "gpt-x (fp_1)"


@pytest.mark.parametrize(("props", "refused"), [(LLAMACPP_PROPS, True), (RENDERS_TOOLS, False), (None, False)],
                         ids=["template-drops-tools", "template-renders-tools", "no-props"])
def test_the_preflight_refuses_an_agent_endpoint_whose_template_renders_no_tools(
    props: dict[str, Any] | None, refused: bool
) -> None:
    with stub_server(_hello, props=props, models=("smollm2-135m",)) as stub:
        agent = AgentConfig(name="cpu_agent", model="hosted_vllm/smollm2-135m", api_base=stub.base_url)
        problems = model_problems([("agent", agent)], probe_timeout_s=5)
        # Only the agent's own model is sent tools: a judge, or an agent program, on the same server is not refused.
        judge = ModelConfig(name="cpu_judge", model="hosted_vllm/smollm2-135m", api_base=stub.base_url)
        program = agent.model_copy(update={"program": {"_target_": "examples.agents.SomeProgram"}})
        others = model_problems([("judge", judge), ("agent", program)], probe_timeout_s=5)
    assert others == []
    if not refused:
        assert problems == []
        return
    [problem] = problems
    assert problem.startswith(f"endpoint {stub.base_url} (model file SmolLM2-135M-Instruct.Q4_1.gguf) renders no tools")
    assert "agent cpu_agent could never call one" in problem
    assert "Fix: serve a chat template that presents tools" in problem and "chatml_tools.jinja" in problem


async def test_request_parameters_take_any_json_value_and_reach_the_server_as_given() -> None:
    # llama.cpp's stop list and logit bias by string (the real-server test's settings), set on the command line.
    cfg = compose_config("agent=custom", "agent.model=hosted_vllm/smollm2-135m", "agent.api_base=http://127.0.0.1:1/v1",
                         "+agent.params.logit_bias=[['<',6]]", "+agent.params.stop=['</tool_call>']",
                         "+agent.params.dry_multiplier=0.8")
    assert cfg.agent.params == {"logit_bias": [["<", 6]], "stop": ["</tool_call>"], "dry_multiplier": 0.8}
    with stub_server(_hello) as stub:
        await ModelClient(cfg.agent.model_copy(update={"api_base": stub.base_url})).complete(HELLO)
    [sent] = stub.requests
    assert (sent["logit_bias"], sent["stop"], sent["dry_multiplier"]) == ([["<", 6]], ["</tool_call>"], 0.8)
