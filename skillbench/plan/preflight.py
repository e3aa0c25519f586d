"""Preflight: every key set, every self-hosted endpoint answering with the right model, for all jobs at once."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

import skillbench.conf
from skillbench.config.schema import AgentConfig, LlmMock, ModelConfig, RunConfig
from skillbench.engine.names import panel_problems
from skillbench.models.litellm_setup import get_litellm
from skillbench.models.plugins import route_problem
from skillbench.models.server_props import read_props
from skillbench.plan.sweep import PlannedJob

# litellm prefixes that route to an OpenAI-compatible server; the server knows the model without them.
_ROUTING_PREFIXES = ("hosted_vllm/", "openai/", "vllm/", "text-completion-openai/", "custom_openai/")


def model_roles(cfg: RunConfig) -> list[tuple[str, ModelConfig]]:
    """Every model a job calls, with the role that calls it."""
    roles: list[tuple[str, ModelConfig]] = [("agent", cfg.agent), ("judge", cfg.judge), ("user_sim", cfg.user_sim)]
    roles += [(f"agent.models.{name}", model) for name, model in cfg.agent.models.items()]  # an agent program's
    if isinstance(cfg.mock, LlmMock):
        roles.append(("mock.llm", cfg.mock.llm))
    return roles


def called_models(job: PlannedJob) -> list[tuple[str, ModelConfig]]:
    """The models a planned job calls, with their roles (``job.roles``; all of them when it names none)."""
    if job.cfg is None:
        return []
    return [(role, model) for role, model in model_roles(job.cfg) if job.roles is None or role in job.roles]


# Routes to servers that may need no key. Every other litellm route refuses to send a request without one,
# also to an api_base of one's own (the OpenAI client among them: gpt-5 or openai/<name> at a local server).
_KEYLESS_ROUTES = ("hosted_vllm/", "vllm/", "ollama/", "ollama_chat/", "lm_studio/", "llamafile/")


def needs_key(model: ModelConfig) -> bool:
    """Whether litellm needs a key to call this model: a hosted provider, or a keyed route to an api_base."""
    return not model.simulated and (model.api_base is None or not model.model.startswith(_KEYLESS_ROUTES))


def missing_keys(models: list[tuple[str, ModelConfig]]) -> list[tuple[str, ModelConfig]]:
    """The models that need a key whose key variable is unset (self-hosted vLLM-like servers may need none)."""
    return [
        (role, model)
        for role, model in models
        if needs_key(model) and model.api_key_env and not os.environ.get(model.api_key_env)
    ]


def litellm_missing_keys(model: ModelConfig) -> list[str]:
    """For a hosted model with no ``api_key_env``: the variables litellm itself reads for that provider."""
    try:
        found = get_litellm().validate_environment(model=model.model)
    except Exception:  # an unknown provider: litellm will say so at the first call
        return []
    return list(found.get("missing_keys") or [])


@cache
def shipped_model_strings() -> frozenset[str]:
    """The litellm model strings that the model files in ``skillbench/conf`` name. tests/plan/test_routing.py asks
    litellm to route each one, so the preflight asks only about other strings (importing litellm costs seconds)."""
    conf = Path(skillbench.conf.__file__).parent
    found: set[str] = set()
    for group in ("agent", "judge", "user_sim", "mock"):
        for path in sorted((conf / group).glob("*.yaml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            node = data.get("llm") if group == "mock" else data
            model = node.get("model") if isinstance(node, dict) else None
            if isinstance(model, str) and model != "???":
                found.add(model)
    return frozenset(found)


def jobs_models(jobs: list[PlannedJob]) -> list[tuple[str, ModelConfig]]:
    """Every (role, model) the planned jobs call."""
    return [pair for job in jobs for pair in called_models(job)]


def routing_problems(roles: list[tuple[str, ModelConfig]]) -> list[str]:
    """Real models whose string litellm cannot route to a provider (``agent.model=notaprovider/foo``): every call
    would fail. Asked of litellm itself, without a network call; a string a shipped model file names is known good."""
    users: dict[tuple[str, str | None], set[str]] = defaultdict(set)
    for role, model in roles:
        if not model.simulated and model.model not in shipped_model_strings():
            users[model.model, model.api_base].add(f"{role} {model.name}")
    problems: list[str] = []
    for (model, api_base), who in sorted(users.items(), key=lambda item: (item[0][0], item[0][1] or "")):
        problem = route_problem(model, api_base)
        if problem:
            problems.append(
                f"litellm cannot route model '{model}' ({problem}); needed by {_users(who)}. Fix: start the model "
                f"string with its litellm provider (anthropic/..., gemini/..., openai/..., or hosted_vllm/<served name> "
                f"with an api_base for a server of your own; list: https://docs.litellm.ai/docs/providers)."
            )
    return problems


def served_name(model: str) -> str:
    """The name an OpenAI-compatible server lists for a litellm model string."""
    for prefix in _ROUTING_PREFIXES:
        if model.startswith(prefix):
            return model[len(prefix) :]
    return model


@dataclass(frozen=True)
class Endpoint:
    api_base: str
    api_key_env: str | None


def probe(endpoint: Endpoint, timeout_s: float) -> list[str] | str:
    """``GET {api_base}/models``: the served model names, or what is wrong."""
    url = endpoint.api_base.rstrip("/") + "/models"
    request = urllib.request.Request(url, headers={"accept": "application/json"})
    key = os.environ.get(endpoint.api_key_env) if endpoint.api_key_env else None
    if key:
        request.add_header("authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        hint = f" (is {endpoint.api_key_env} right?)" if exc.code in {401, 403} and endpoint.api_key_env else ""
        return f"answers GET /models with HTTP {exc.code}{hint}"
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        return f"does not answer ({getattr(exc, 'reason', exc)})"
    except ValueError:
        return "answers GET /models with something that is not JSON"
    return [str(item.get("id")) for item in body.get("data", []) if isinstance(item, dict)]


def probe_endpoints(endpoints: list[Endpoint], timeout_s: float) -> dict[Endpoint, list[str] | str]:
    """Probe all endpoints at once, so a sweep with many dead servers costs one timeout, not one each."""
    if not endpoints:
        return {}
    with ThreadPoolExecutor(max_workers=min(16, len(endpoints))) as pool:
        return dict(zip(endpoints, pool.map(lambda e: probe(e, timeout_s), endpoints), strict=True))


def _users(names: set[str]) -> str:
    listed = sorted(names)
    return ", ".join(listed[:6]) + (f" and {len(listed) - 6} more" if len(listed) > 6 else "")


def job_problems(jobs: list[PlannedJob]) -> list[str]:
    """What stops a job before any model is asked (its config, its benchmark), each problem once, in job order; then
    what stops the panels the jobs ask for (pass_rule.panel: members and size across the whole sweep)."""
    panels = panel_problems([job.cfg for job in jobs if job.cfg is not None], sweep=len(jobs) > 1)
    return list(dict.fromkeys(job.problem for job in jobs if job.problem)) + panels


def preflight_problems(jobs: list[PlannedJob], *, probe_timeout_s: float = 3.0, network: bool = True) -> list[str]:
    """Every problem of every job, one line each, deduplicated across jobs (the same key, the same server)."""
    return job_problems(jobs) + model_problems(jobs_models(jobs), probe_timeout_s=probe_timeout_s, network=network)


def model_problems(roles: list[tuple[str, ModelConfig]], *, probe_timeout_s: float = 3.0, network: bool = True,
                   api_base_hint: str = "agent.api_base=..., or their SKILLBENCH_*_API_BASE variable") -> list[str]:
    """The problems of models called in ``roles``: unset keys, then dead endpoints or ones not serving the model.

    Shared by the engine's preflight and `skillbench mine`'s model stages; ``api_base_hint`` says how
    the caller's configs point a model elsewhere.
    """
    problems: list[str] = []
    keys: dict[str, set[str]] = defaultdict(set)
    # endpoint -> model string -> the roles that use it
    endpoints: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    key_envs: dict[str, str | None] = {}  # one probe per server, with the first key configured for it
    for role, model in missing_keys(roles):
        keys[str(model.api_key_env)].add(f"{role} {model.name}")
    for role, model in roles:
        if needs_key(model) and not model.api_key_env:
            for env in litellm_missing_keys(model):
                keys[env].add(f"{role} {model.name}")
        if not model.simulated and model.api_base is not None:
            endpoints[model.api_base][model.model].add(f"{role} {model.name}")
            key_envs[model.api_base] = key_envs.get(model.api_base) or model.api_key_env
    for env, users in sorted(keys.items()):
        problems.append(
            f"{env} is not set; needed by {_users(users)}. Fix: export {env}=<your key>, or drop those models from the run."
        )
    problems += routing_problems(roles)
    if not network:
        return problems
    probes = [Endpoint(base, key_envs[base]) for base in endpoints]
    for endpoint, answer in probe_endpoints(probes, probe_timeout_s).items():
        models = endpoints[endpoint.api_base]
        if isinstance(answer, str):
            users = set().union(*models.values())
            problems.append(
                f"endpoint {endpoint.api_base} {answer}; needed by {_users(users)}. Fix: start the server there, or "
                f"point those models' api_base ({api_base_hint}) at one."
            )
            continue
        for model, users in sorted(models.items()):
            if served_name(model) not in answer and model not in answer:
                problems.append(
                    f"endpoint {endpoint.api_base} serves {', '.join(answer) or 'no model'}, not "
                    f"'{served_name(model)}' (needed by {_users(users)}). Fix: serve that model there, or point "
                    f"its api_base at the server that does."
                )
        tool_users = {f"{role} {model.name}" for role, model in roles
                      if model.api_base == endpoint.api_base and tools_sent(role, model)}
        if tool_users:
            problems += tools_problem(endpoint, probe_timeout_s, tool_users)
    return problems


def tools_sent(role: str, model: ModelConfig) -> bool:
    """Whether this role's requests carry the scenario's tools: the agent's own model, when no agent program
    decides what it sends (a program may put the tools in its prompt instead)."""
    return role == "agent" and isinstance(model, AgentConfig) and model.program is None and not model.simulated


def tools_problem(endpoint: Endpoint, timeout_s: float, users: set[str]) -> list[str]:
    """A llama.cpp server whose chat template renders no tools (``/props``: ``supports_tools`` false) drops the
    ``tools`` of every request: the agent could never call one, and every conversation would fail as the agent's
    although the fault is the server's setup. Servers without ``/props`` are not asked (docs/real-servers.md)."""
    key = os.environ.get(endpoint.api_key_env) if endpoint.api_key_env else None
    props = read_props(endpoint.api_base, timeout_s, key)
    if props is None or props.renders_tools is not False:
        return []
    served = f" (model file {props.model_file})" if props.model_file else ""
    return [
        f"endpoint {endpoint.api_base}{served} renders no tools: its chat template drops the tools of every request "
        f"(llama.cpp GET /props: chat_template_caps.supports_tools is false), so {_users(users)} could never call one. "
        f"Fix: serve a chat template that presents tools (llama.cpp: --jinja --chat-template-file <file>, e.g. "
        f"tests/support/chatml_tools.jinja in skillbench's repository), or a model whose own template does."
    ]


def refusal(problems: list[str]) -> list[str]:
    """What a refused run prints, a line each: every problem, then (with several) how many and the opt-out."""
    if len(problems) < 2:
        return list(problems)
    return [*problems, f"{len(problems)} problems; nothing was run. (run.preflight=false skips these checks.)"]
