"""The scripted fake model: replies by position in the conversation, the default after that, through litellm."""

from __future__ import annotations

import json

from skillbench.config.schema import ModelConfig
from skillbench.core.rubric import JudgeScores
from skillbench.models import ModelClient
from skillbench.simulated.scripted import call, say, scripted_model, verdict


async def test_replies_follow_the_script_then_the_default() -> None:
    model = scripted_model("test-script", [say("first"), call("crm__find", text="looking", customer_id="C-1")], default=say("again"))
    client = ModelClient(ModelConfig(name="scripted", model=model, simulated=True))
    messages: list[dict] = [{"role": "user", "content": "hi"}]
    first = await client.complete(messages)
    assert first.content == "first" and not first.tool_calls
    messages.append({"role": "assistant", "content": first.content})
    second = await client.complete(messages)
    assert second.content == "looking" and [(c.name, c.arguments) for c in second.tool_calls] == [("crm__find", {"customer_id": "C-1"})]
    messages.append({"role": "assistant", "content": None, "tool_calls": [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in second.tool_calls
    ]})
    assert (await client.complete(messages)).content == "again"
    assert (await client.complete(messages[:1])).content == "first"  # stateless: the same request, the same reply


async def test_a_name_can_be_rescripted_and_the_judge_verdict_is_valid() -> None:
    model = scripted_model("test-rescript", default=say("old"))
    assert scripted_model("test-rescript", default=verdict(task_completion="partial")) == model
    reply = await ModelClient(ModelConfig(name="judge", model=model, simulated=True)).complete([{"role": "user", "content": "grade"}])
    assert JudgeScores.model_validate_json(reply.content or "").task_completion == "partial"
