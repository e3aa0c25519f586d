"""Artifact keys: the hash of exactly the inputs that determine an artifact (never secrets).

:func:`result_settings` is the one definition of "which settings change a result": the store keys
(rollouts, verdicts) and the report's labels (which jobs may share a table cell) both read it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from skillbench.core.canonical import canonical_json, canonical_object

# Before the mock config became one class per response mode, every mode's dump had these two fields.
# Filling them in keeps the rollout keys (and so the stored rollouts) of earlier runs valid.
_FLAT_MOCK_FIELDS: dict[str, Any] = {"llm": None, "static_responses": {}}

# Fields of a model config that change what the model answers. Endpoints, keys, concurrency,
# timeouts and retries do not, so changing them reuses stored artifacts.
_BEHAVIOURAL_FIELDS = ("model", "params", "prompt_template")
# Judge settings that change a verdict besides the model (parse retries only decide judge errors).
_JUDGE_FIELDS = ("rubric_version", "samples", "aggregation")
# Mock settings that bound the benchmark's own code: a call past the limit is a benchmark error (never stored).
_MOCK_LIMIT_FIELDS = ("code_tool_limit_s",)
# Run settings that change a rollout (concurrency, infra retries and logging cadence do not).
_RUN_FIELDS = ("seed", "max_turns")


def content_hash(obj: Any) -> str:
    """SHA-256 of JSON-able content's canonical JSON (sorted keys; skillbench.core.canonical)."""
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    return _sha256(canonical_json(obj))


def encoded_hash(members: Mapping[str, str]) -> str:
    """:func:`content_hash` of an object whose members' canonical JSON is given (encoded once, hashed many times):
    the same key as hashing the object of their values."""
    return _sha256(canonical_object(members))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dump(value: BaseModel | Mapping[str, Any]) -> Mapping[str, Any]:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def model_identity(cfg: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """What makes a model answer as it does (a ModelConfig, or its JSON dump)."""
    data = _dump(cfg)
    return {name: data.get(name) for name in _BEHAVIOURAL_FIELDS}


# An agent program's fields that change what the agent does (its models are compared by model_identity).
_PROGRAM_FIELDS = ("program", "program_version", "program_source")
PROGRAM_IDENTITY_FIELDS: tuple[str, ...] = (*_PROGRAM_FIELDS, "models")
"""What :func:`agent_identity` adds for an agent program only (a plain model agent's identity leaves them out)."""


def agent_identity(agent: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """What makes an agent act as it does: its model, and for an agent program its target, parameters,
    version, source hash and the models it calls. A plain model config's identity is its model's alone,
    exactly as before agent programs existed, so stored rollouts stay valid."""
    data = _dump(agent)
    identity = model_identity(data)
    if data.get("program"):
        identity.update({name: data.get(name) for name in _PROGRAM_FIELDS})
        identity["models"] = {name: model_identity(model) for name, model in sorted((data.get("models") or {}).items())}
    return identity


def judge_settings(judge: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """A judge's verdict-changing settings besides its model identity."""
    data = _dump(judge)
    return {name: data.get(name) for name in _JUDGE_FIELDS}


def _without_name(data: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "name"}


def result_settings(config: BaseModel | Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per config group, the settings that change a job's results (a RunConfig, or config.json as read back).

    agent, user_sim, mock and run determine rollouts; judge determines verdicts; pass_rule and benchmark
    determine verdicts and which scenarios run; checks (rule-check parameters) determine the rule checks. Names, endpoints, keys, concurrency and retries are absent.
    """
    data = _dump(config)
    user_sim = data.get("user_sim") or {}
    judge = data.get("judge") or {}
    return {
        "agent": agent_identity(data.get("agent") or {}),
        "user_sim": {**model_identity(user_sim), "stop_marker": user_sim.get("stop_marker")},
        "judge": {**model_identity(judge), **judge_settings(judge)},
        "mock": {**_FLAT_MOCK_FIELDS, **{key: value for key, value in _without_name(data.get("mock") or {}).items()
                                         if key not in _MOCK_LIMIT_FIELDS}},
        "pass_rule": _without_name(data.get("pass_rule") or {}),
        "benchmark": _without_name(data.get("benchmark") or {}),
        "run": {name: (data.get("run") or {}).get(name) for name in _RUN_FIELDS},
        "checks": data.get("checks") or {},
    }
