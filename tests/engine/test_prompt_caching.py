"""Provider prompt caching: agent requests keep a byte-identical static prefix, cached tokens are read and priced.

Real litellm against a local stub that imitates OpenAI's automatic prompt caching (tests/support/openai_stub.py
``PromptCache``): a prompt's longest previously seen prefix, in 128-token blocks from 1,024 tokens, is reported
as ``usage.prompt_tokens_details.cached_tokens``, which litellm prices at the model's cached rate.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from skillbench.engine import run_job
from skillbench.models.litellm_setup import get_litellm
from skillbench.report import make_report
from tests.conftest import compose_config
from tests.support.nonempty import nonempty
from tests.support.openai_stub import PromptCache, conversation_script, request_role, stub_server

SCENARIOS = "[hc-resched-happy-01,hc-resched-missing-01,hc-resched-guardrail-01,rt-return-happy-01]"


@pytest.fixture(scope="module")
def cached_job(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], Any]:
    root = tmp_path_factory.mktemp("prompt-cache")
    with pytest.MonkeyPatch.context() as env, stub_server(conversation_script, prompt_cache=True,
                                                          models=("gpt-5",)) as server:
        env.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        env.setenv("SKILLBENCH_GEMMA4_API_BASE", server.base_url)
        cfg = compose_config(
            "agent=gpt5", f"agent.api_base={server.base_url}", "judge=gemma4", "user_sim=sim_user",
            f"store.root={root / 'store'}", f"benchmark.scenarios={SCENARIOS}", "run.scenario_concurrency=1",
        )
        summary = run_job(cfg, root / "job")
        requests = list(server.requests)
    return root / "job", requests, summary


def _agent_requests(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [body for body in requests if request_role(body) == "agent"]


def test_agent_requests_share_a_byte_identical_prefix_per_skill(cached_job: Any) -> None:
    _, requests, _ = cached_job
    by_skill: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for body in _agent_requests(requests):
        by_skill[body["messages"][0]["content"]].append(body)
    assert len(by_skill) == 2  # two skills among the scenarios
    for bodies in nonempty(by_skill.values(), "values"):
        assert len(bodies) >= 6
        # The static prefix: the tool list, then the skill's system prompt, the same bytes in every request.
        assert len({json.dumps(body["tools"]) + json.dumps(body["messages"][0]) for body in bodies}) == 1
    # Within a conversation the history is only appended to: every request extends an earlier one byte for byte.
    agent = _agent_requests(requests)
    seen: list[str] = []
    extended = 0
    for body in agent:
        text = PromptCache.prompt_text(body)
        if len(body["messages"]) > 2:
            longest = max((len(p) for p in seen if text.startswith(p.removesuffix("]"))), default=0)
            assert longest > 0, "a later turn re-rendered its history"
            extended += 1
        seen.append(text)
    assert extended >= len(agent) // 2


def test_cached_prompt_tokens_are_counted_and_priced_at_the_cached_rate(cached_job: Any) -> None:
    _, requests, summary = cached_job
    agent = summary.usage["agent"]
    cache = PromptCache()  # replaying the requests in order reproduces what the stub reported
    expected_cached = sum(cache.usage(body)["cached_tokens"] for body in requests if request_role(body) == "agent")
    assert agent.cached_prompt_tokens == expected_cached
    assert agent.cached_prompt_tokens > 0.5 * agent.prompt_tokens  # the static prefix is most of every prompt
    assert summary.cached_prompt_tokens == sum(u.cached_prompt_tokens for u in summary.usage.values())
    price = get_litellm().model_cost["gpt-5"]
    listed = ((agent.prompt_tokens - agent.cached_prompt_tokens) * price["input_cost_per_token"]
              + agent.cached_prompt_tokens * price["cache_read_input_token_cost"]
              + agent.completion_tokens * price["output_cost_per_token"])
    assert agent.cost_usd == pytest.approx(listed, rel=1e-6)
    uncached = agent.prompt_tokens * price["input_cost_per_token"] + agent.completion_tokens * price["output_cost_per_token"]
    assert agent.cost_usd < 0.6 * uncached


def test_the_report_shows_the_cached_share_per_model(cached_job: Any, tmp_path: Path) -> None:
    job, _, summary = cached_job
    _, files = make_report(job, tmp_path / "report", formats=["md", "csv"], draws=20, transcripts=False)
    assert "## Prompt caching" in files["markdown"].read_text()
    with (tmp_path / "report" / "prompt_cache.csv").open() as handle:
        rows = {row["role"]: row for row in csv.DictReader(handle)}
    agent = summary.usage["agent"]
    assert (rows["agent"]["config"], rows["agent"]["model"]) == ("gpt5", "gpt-5")
    assert int(rows["agent"]["cached_prompt_tokens"]) == agent.cached_prompt_tokens
    assert float(rows["agent"]["cached_share"]) == pytest.approx(agent.cached_prompt_tokens / agent.prompt_tokens)
    with (tmp_path / "report" / "cost.csv").open() as handle:
        [cell] = list(csv.DictReader(handle))
    assert int(cell["cached_prompt_tokens"]) == summary.cached_prompt_tokens
