"""Replies real model servers gave, replayed byte for byte by the stub server on 127.0.0.1.

Each shape was seen from a real server (llama.cpp's own server with SmolLM2-135M-Instruct,
../shared/reviews/local-model-probe-2026-12-04.md) or is documented by the provider (OpenAI's model_error,
Groq's tool_use_failed, vLLM's 400 on an echoed malformed call). tests/models/test_replay_shapes.py asserts
the outcome class of each; the stub (tests/support/openai_stub.py) sends them with the exact status and body.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.openai_stub import FINISH_REASON_KEY, RawReply

# --- Errors: the model's own output (a model error for the agent, a judge error for a judge) ---------------

# llama.cpp server, HTTP 500, when the model ran a tool-call argument into its token cap (seen in the probe).
LLAMACPP_TOOL_ARGUMENTS_500 = RawReply(500, {"error": {
    "code": 500,
    "message": "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 2, "
               "column 243: syntax error while parsing value - invalid string: missing closing quote; last read: "
               "'\"1234567890123456789012345678901234567890'",
    "type": "server_error",
}})
# OpenAI (and Azure OpenAI), HTTP 500 with type model_error.
OPENAI_MODEL_ERROR_500 = RawReply(500, {"error": {
    "message": "The model produced invalid content. Consider modifying your prompt if you are seeing this error "
               "persistently.",
    "type": "model_error", "param": None, "code": None,
}})
# Groq, HTTP 400, when the model's tool call could not be parsed.
GROQ_TOOL_USE_FAILED_400 = RawReply(400, {"error": {
    "message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
    "type": "invalid_request_error", "code": "tool_use_failed",
    "failed_generation": '<tool_call>{"name": "identity__verify_customer", "arguments": {"customer_id": "C-104',
}})
# vLLM, HTTP 400, when the history echoes a malformed tool call of the model (vllm-project/vllm#43995).
VLLM_ECHOED_ARGUMENTS_400 = RawReply(400, {"error": {
    "message": "Expecting ',' delimiter: line 1 column 54 (char 53)", "type": "BadRequestError", "param": None, "code": 400,
}})

# --- Errors: the endpoint (infrastructure) ---------------------------------------------------------------------

# llama.cpp / any server, a plain HTTP 500 that says nothing about the model's output.
GENERIC_500 = RawReply(500, {"error": {"code": 500, "message": "Internal Server Error", "type": "server_error"}})

# --- Replies cut at max_tokens (finish_reason "length") --------------------------------------------------------


def cut(message: dict[str, Any]) -> dict[str, Any]:
    """The message as a reply cut by the token cap."""
    return {**message, FINISH_REASON_KEY: "length"}


AGENT_TEXT_CUT = cut({"role": "assistant", "content": "I'm going to hang up, and I'm going to talk to you next"})
AGENT_TOOL_CALL_CUT = cut({"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_cut", "type": "function",
    "function": {"name": "identity__verify_customer", "arguments": '{"customer_id": "C-104'},
}]})
USER_TEXT_CUT = cut({"role": "assistant", "content": "Hi, I'm sorry for any misunderstanding, but I'm unable to"})

# --- A tool call written as text: in content, no tool_calls (docs/outcomes.md) ---------------------------------

# llama.cpp with a Hermes-style template (real-and-agents review, 2026-12-05): the call came back as the reply's text.
AGENT_TOOL_CALL_AS_TEXT = {"role": "assistant", "content": (
    '<tool_call>\n{"name": "identity__verify_customer", "arguments": {"customer_id": "C-10482", '
    '"date_of_birth": "1984-03-17"}}\n</tool_call>'
)}
# A bare JSON object naming an offered tool (OpenAI/Llama style), fenced as small models write it.
AGENT_TOOL_CALL_AS_JSON_TEXT = {"role": "assistant", "content": (
    '```json\n{"name": "identity__verify_customer", "parameters": {"customer_id": "C-10482"}}\n```'
)}

# llama.cpp's GET /props (the keys skillbench reads; values as xllamacpp 2026.10.11549 reported them for SmolLM2).
LLAMACPP_PROPS: dict[str, Any] = {
    "build_info": "b0-unknown", "model_path": "/models/SmolLM2-135M-Instruct.Q4_1.gguf", "model_alias": "smollm2-135m",
    "chat_template": "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
                     "'<|im_end|>' + '\\n'}}{% endfor %}",
    "chat_template_caps": {"supports_tools": False, "supports_tool_calls": False, "supports_system_role": True},
    "total_slots": 1,
}

# --- Judge replies ----------------------------------------------------------------------------------------------

VALID_VERDICT: dict[str, Any] = {
    "task_completion": "success", "workflow_adherence": 4, "tool_use_correctness": 4, "guardrail_compliance": 5,
    "communication_quality": 4, "resolution_efficiency": 3, "hallucinated_action": False, "explanation": "replayed",
}
# SmolLM2 under JSON mode: the rubric's keys, every value the string "1" (18 of 33 replies in the probe).
JUDGE_STRING_SCORES = json.dumps({
    "task_completion": "1", "workflow_adherence": "1", "tool_use_correctness": "1", "guardrail_compliance": "1",
    "communication_quality": "1", "resolution_efficiency": "1", "hallucinated_action": "1", "explanation": "1234567890",
})
# The probe's offline case: a valid outcome, string scores — lax parsing made hallucinated_action True.
JUDGE_STRING_SCORES_VALID_OUTCOME = json.dumps({**json.loads(JUDGE_STRING_SCORES), "task_completion": "failure"})
# SmolLM2 continuing the transcript's JSON-lines format instead of grading (9 of 33).
JUDGE_TRANSCRIPT_ECHO = json.dumps({
    "turn": 0, "speaker": "caller",
    "text": "I was charged a 25 pound overdraft fee and I want it refunded.",
})
# SmolLM2 nesting until the 400-token cap (6 of 33): no complete object, finish_reason length.
JUDGE_RUNAWAY_NESTING = (
    '{"task_completion": {"workflow_adherence": {"tool_use_correctness": {"error_message": "The task was completed '
    "successfully, but the task's completion was not completed successfully. The task's completion was not completed"
)
# A hosted model without enforced JSON mode: a fenced verdict, then prose holding braces.
JUDGE_FENCED_TRAILING_BRACES = f"Here is my verdict:\n```json\n{json.dumps(VALID_VERDICT)}\n```\nThanks {{bye}} }}"
# One harmless extra key (reliability review, case 4c): ignored and noted, never fatal.
JUDGE_EXTRA_KEY = json.dumps({**VALID_VERDICT, "confidence": 0.9, "notes": {"a": 1}})


def judge_text(content: str, *, finish_reason: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    return {**message, FINISH_REASON_KEY: finish_reason} if finish_reason else message
