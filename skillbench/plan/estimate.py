"""Size and cost of a run before it starts: conversations, calls per role, tokens, dollars per model.

Calls that a sweep shares are counted once: every judge of an agent reuses that agent's conversations
(same rollout settings), and every pass rule of a judge reuses its verdicts. Conversations already in
the store are not subtracted, so the estimate is an upper bound for a rerun.
"""

from __future__ import annotations

import json
import operator
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from skillbench.config.schema import LlmMock, ModelConfig, RunConfig
from skillbench.core.money import usd
from skillbench.engine.results import role_simulated
from skillbench.models.limit_scope import limit_scope
from skillbench.models.limit_share import LIMITS_DIR, stated_limits
from skillbench.models.prices import TokenPrices, token_prices
from skillbench.plan.sweep import PlannedJob
from skillbench.store import content_hash, result_settings


class RoleProfile(BaseModel):
    """What one conversation costs one role, on average."""

    calls: float = Field(description="Calls per conversation.")
    prompt_tokens: float = Field(description="Prompt tokens per call.")
    completion_tokens: float = Field(description="Completion tokens per call.")
    cached_share: float = Field(0.0, description="Share of prompt tokens read from the provider's prompt cache.")
    latency_s: float = Field(description="Seconds per call.")
    source: str = Field(description="'assumed', or how many stored jobs it was measured from.")


# Used when no stored run of the benchmark has measured the role: a tool-using support conversation of
# ~6 agent turns with ~2 tool calls each, a short caller, one judge read of the whole transcript.
DEFAULT_PROFILES: dict[str, RoleProfile] = {
    "agent": RoleProfile(calls=12, prompt_tokens=4000, completion_tokens=150, latency_s=2.0, source="assumed"),
    "user": RoleProfile(calls=5, prompt_tokens=1500, completion_tokens=60, latency_s=1.0, source="assumed"),
    "judge": RoleProfile(calls=1, prompt_tokens=6000, completion_tokens=400, latency_s=8.0, source="assumed"),
    "mock": RoleProfile(calls=6, prompt_tokens=1200, completion_tokens=150, latency_s=1.5, source="assumed"),
}


class ModelLine(BaseModel):
    """One model's share of the run."""

    model: str
    roles: list[str]
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None = Field(description="None when litellm's price map does not know the model.")
    self_hosted: bool
    gpu_hours: float = Field(0.0, description="Busy server hours (calls x seconds per call / concurrency).")


class JobEstimate(BaseModel):
    overrides: list[str]
    label: str
    conversations: int
    new_conversations: int = Field(description="Conversations this job generates (not reused from an earlier job).")
    calls: dict[str, int]
    cost_usd: float


SLOW_LIMIT_H = 1 / 6  # a known rate limit that needs this long for its calls is said before the run starts


class LimitBound(BaseModel):
    """The least time one rate limit needs for its share of the run's calls (a known limit only)."""

    scope: str = Field(description="The models sharing the limit, and where (models/limit_scope.py).")
    calls: int
    tokens: int = Field(description="Prompt and completion tokens of those calls.")
    limit: str = Field(description="The binding limit, e.g. '6 requests/min (agent.requests_per_minute)'.")
    hours: float


class RunEstimate(BaseModel):
    jobs: list[JobEstimate]
    models: list[ModelLine]
    profiles: dict[str, RoleProfile]
    cost_usd: float
    unpriced: list[str]
    limits: list[LimitBound] = Field(default_factory=list, description="Known rate limits, slowest first.")

    @property
    def calls(self) -> int:
        return sum(line.calls for line in self.models)


def _role_cost(prices: TokenPrices, profile: RoleProfile, calls: float) -> float:
    """Dollars for ``calls`` calls of one role's profile (its share of prompt tokens read from the cache)."""
    prompt = calls * profile.prompt_tokens
    return prices.price(prompt, calls * profile.completion_tokens, cached_tokens=prompt * profile.cached_share)


def _summaries(outputs: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for pattern in ("runs/*/summary.json", "multirun/*/*/summary.json"):
        for path in outputs.glob(pattern):
            try:
                found.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue  # a half-written or foreign file: calibration just uses the others
    return found


def calibrate(outputs: Path, benchmark: str) -> dict[str, RoleProfile]:
    """Per role, the averages measured by stored jobs of the same benchmark where that role's model was real
    (a simulated model's calls and tokens say nothing about a real one's; a summary that does not say is skipped)."""
    # conversations, calls, prompt, completion, latency, jobs, billed calls, cached prompt
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0] * 8)
    for summary in _summaries(outputs):
        if summary.get("benchmark") != benchmark or not summary.get("scenarios"):
            continue
        for role, usage in (summary.get("usage") or {}).items():
            if role_simulated(summary, role) is not False or not usage.get("calls") or not usage.get("prompt_tokens"):
                continue
            t = totals[role]
            t[0] += summary["scenarios"]
            t[1] += usage["calls"] + usage.get("cache_hits", 0)
            t[2] += usage["prompt_tokens"]
            t[3] += usage["completion_tokens"]
            t[4] += usage.get("latency_s", 0.0)
            t[5] += 1
            t[6] += usage["calls"]
            t[7] += usage.get("cached_prompt_tokens", 0)
    profiles = dict(DEFAULT_PROFILES)
    for role, (conversations, calls, prompt, completion, latency, jobs, billed, cached) in totals.items():
        # Calls per conversation count cache hits (a fresh run makes them); tokens are per billed call.
        profiles[role] = RoleProfile(
            calls=calls / conversations, prompt_tokens=prompt / billed, completion_tokens=completion / billed,
            cached_share=cached / prompt,
            latency_s=latency / billed if latency else DEFAULT_PROFILES.get(role, DEFAULT_PROFILES["agent"]).latency_s,
            source=f"measured from {int(jobs)} stored job(s)",
        )
    return profiles


# Usage roles (as calls are counted) -> the config key of the model that plays them.
ROLE_CONFIG_KEYS = {"agent": "agent", "user": "user_sim", "judge": "judge", "mock": "mock.llm"}


def _role_models(cfg: RunConfig) -> dict[str, ModelConfig]:
    """The model of each usage role a job calls (the mock's only when an LLM writes tool results)."""
    roles = {role: operator.attrgetter(key)(cfg) for role, key in ROLE_CONFIG_KEYS.items() if role != "mock"}
    if isinstance(cfg.mock, LlmMock):
        roles["mock"] = cfg.mock.llm
    # An agent program's other models: assumed to be called as often as the agent's own (an upper bound for a
    # planner called once per conversation); their calls count as the agent's, as the run records them.
    roles.update({f"agent.models.{name}": model for name, model in cfg.agent.models.items()})
    return roles


def estimate_run(jobs: list[PlannedJob], outputs: Path = Path("outputs")) -> RunEstimate:
    """The run's calls, tokens and dollars per model; calibrated from ``outputs`` when it has stored jobs."""
    ready = [job for job in jobs if job.cfg is not None]
    profiles = calibrate(outputs, ready[0].cfg.benchmark.name) if ready else dict(DEFAULT_PROFILES)  # type: ignore[union-attr]
    lines: dict[tuple[str, str | None], dict[str, Any]] = {}
    seen_rollouts: set[str] = set()
    seen_verdicts: set[str] = set()
    estimates: list[JobEstimate] = []
    unpriced: set[str] = set()
    for job in ready:
        cfg = job.cfg
        assert cfg is not None
        settings = result_settings(cfg)
        selection = settings["benchmark"]
        rollouts = content_hash(
            {k: settings[k] for k in ("agent", "user_sim", "mock", "run")} | {"b": selection, "trials": cfg.run.trials}
        )
        conversations = job.scenarios * cfg.run.trials  # every trial is a conversation of its own, judged on its own
        verdicts = content_hash({"r": rollouts, "judge": settings["judge"]})
        new_rollouts, new_verdicts = rollouts not in seen_rollouts, verdicts not in seen_verdicts
        seen_rollouts.add(rollouts)
        seen_verdicts.add(verdicts)
        calls: dict[str, int] = {}
        job_cost = 0.0
        for role, model in _role_models(cfg).items():
            fresh = new_verdicts if role == "judge" else new_rollouts
            profile = profiles.get(role, profiles["agent"])
            if job.extra_prompt_tokens:  # large scenarios: what they add to every prompt, from their actual size
                profile = profile.model_copy(update={"prompt_tokens": profile.prompt_tokens + job.extra_prompt_tokens})
            per_conversation = profile.calls * (cfg.judge.samples if role == "judge" else 1)
            n = round(per_conversation * conversations) if fresh else 0
            calls[role] = n
            line = lines.setdefault(
                (model.model, model.api_base),
                {"model": model, "roles": set(), "calls": 0, "p": 0.0, "c": 0.0, "busy_s": 0.0, "cost": 0.0},
            )
            line["roles"].add(role)
            line["calls"] += n
            line["p"] += n * profile.prompt_tokens
            line["c"] += n * profile.completion_tokens
            line["busy_s"] += n * profile.latency_s / max(1, min(model.concurrency, cfg.run.scenario_concurrency))
            prices = token_prices(model)
            if prices is None:
                unpriced.add(model.model)
            else:
                job_cost += _role_cost(prices, profile, n)
                line["cost"] += _role_cost(prices, profile, n)
        estimates.append(JobEstimate(
            overrides=job.overrides, label=f"agent={cfg.agent.name} judge={cfg.judge.name}",
            conversations=conversations, new_conversations=conversations if new_rollouts else 0,
            calls=calls, cost_usd=job_cost,
        ))
    models: list[ModelLine] = []
    for line in lines.values():
        model: ModelConfig = line["model"]
        gpu_hours = line["busy_s"] / 3600 if model.api_base is not None else 0.0
        cost = None if token_prices(model) is None else line["cost"]
        if cost is not None and model.gpu_usd_per_hour:
            cost += gpu_hours * model.gpu_usd_per_hour
        models.append(ModelLine(
            model=model.model, roles=sorted(line["roles"]), calls=line["calls"], prompt_tokens=round(line["p"]),
            completion_tokens=round(line["c"]), cost_usd=cost, self_hosted=model.api_base is not None,
            gpu_hours=gpu_hours,
        ))
    models.sort(key=lambda m: -(m.cost_usd or 0.0))
    store = Path(ready[0].cfg.store.root) / LIMITS_DIR if ready else None  # type: ignore[union-attr]
    return RunEstimate(
        jobs=estimates, models=models, profiles=profiles,
        cost_usd=sum(m.cost_usd or 0.0 for m in models), unpriced=sorted(unpriced),
        limits=limit_bounds(list(lines.values()), store),
    )


def limit_bounds(lines: list[dict[str, Any]], limits_dir: Path | None) -> list[LimitBound]:
    """Per rate limit with a known rate (configured, or stated by the provider to an earlier run on the store): how
    long its calls take at that rate at least. ``lines``: estimate_run's per-model tallies."""
    scopes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        if not line["model"].simulated:
            scopes[limit_scope(line["model"]).ident].append(line)
    bounds: list[LimitBound] = []
    for ident, members in scopes.items():
        calls = sum(line["calls"] for line in members)
        tokens = round(sum(line["p"] + line["c"] for line in members))
        stated = stated_limits(limits_dir / f"{ident}.json") if limits_dir is not None else (None, None)
        candidates: list[tuple[float, str]] = []
        for unit, amount, field, learned in (("requests", calls, "requests_per_minute", stated[0]),
                                             ("tokens", tokens, "tokens_per_minute", stated[1])):
            for line in members:
                rate = getattr(line["model"], field)
                if rate:
                    where = ROLE_CONFIG_KEYS.get(min(line["roles"]), min(line["roles"]))
                    candidates.append((amount / rate / 60, f"{rate:,.0f} {unit}/min ({where}.{field})"))
            if learned:
                candidates.append((amount / learned / 60, f"{learned:,.0f} {unit}/min (stated by the provider to an "
                                   "earlier run on this store)"))
        if calls and candidates:
            hours, limit = max(candidates)
            scope = limit_scope(members[0]["model"])
            models = ", ".join(sorted({line["model"].model for line in members}))
            bounds.append(LimitBound(scope=f"{models} @ {scope.where}" if scope.kind != "model" else scope.where,
                                     calls=calls, tokens=tokens, limit=limit, hours=hours))
    return sorted(bounds, key=lambda bound: -bound.hours)


def limit_lines(estimate: RunEstimate, at_least_h: float = 0.0) -> list[str]:
    """'at 6 requests/min (agent.requests_per_minute), the ~1,200 calls of <models> need about 3.3 h' per known
    limit needing at least ``at_least_h``."""
    return [f"at {bound.limit}, the ~{bound.calls:,} calls of {bound.scope} need about {_duration(bound.hours)}"
            for bound in estimate.limits if bound.hours >= at_least_h]


def _duration(hours: float) -> str:
    return f"{hours:,.1f} h" if hours >= 1 else f"{hours * 60:,.0f} min"


def _n(value: float) -> str:
    return f"{value:,.0f}"


def format_estimate(estimate: RunEstimate, *, jobs_listed: bool = True) -> str:
    """The plan as text: one line per job, a table per model, the total and the assumptions."""
    out: list[str] = []
    total = len(estimate.jobs)
    if jobs_listed:
        for i, job in enumerate(estimate.jobs, 1):
            calls = " ".join(f"{role}={n:,}" for role, n in job.calls.items())
            shared = "" if job.new_conversations else " (reuses conversations of an earlier job)"
            out.append(f"job {i:>3} of {total}: {job.label}: {job.conversations:,} conversations, calls {calls}, "
                       f"{usd(job.cost_usd)}{shared}")
    out.append("")
    width = max([len("model"), *(len(m.model) for m in estimate.models)])  # never cut a model name
    out.append(f"{'model':<{width}} {'roles':<18} {'calls':>10} {'prompt tok':>14} {'compl. tok':>12} {'dollars':>22}")
    for m in estimate.models:
        if m.cost_usd is None:
            dollars = "unknown"
        elif m.self_hosted:
            dollars = usd(m.cost_usd) + (f" ({m.gpu_hours:,.1f} GPU-h)" if m.gpu_hours else "")
        else:
            dollars = usd(m.cost_usd)
        out.append(f"{m.model:<{width}} {','.join(m.roles):<18} {_n(m.calls):>10} {_n(m.prompt_tokens):>14} "
                   f"{_n(m.completion_tokens):>12} {dollars:>22}")
    conversations = sum(job.new_conversations for job in estimate.jobs)
    out.append(f"total: {total} job(s), {conversations:,} new conversations, {estimate.calls:,} model calls, "
               f"{usd(estimate.cost_usd)}" + (f" + unpriced models {', '.join(estimate.unpriced)}" if estimate.unpriced else ""))
    out.append("assumptions: prices from litellm's bundled price map (or a model's params.input_cost_per_token and "
               "output_cost_per_token); self-hosted models $0 per token "
               "(plus GPU-hours x gpu_usd_per_hour when a model sets it); conversations already stored are not "
               "subtracted (upper bound); judges of one agent share its conversations.")
    out.extend(f"rate limit: {line}" for line in limit_lines(estimate))
    used = {role for line in estimate.models for role in line.roles}
    for role, p in estimate.profiles.items():
        if role not in used:
            continue
        cached = f" ({100 * p.cached_share:.0f}% of prompt tokens cached)" if p.cached_share else ""
        out.append(f"  {role}: {p.calls:.1f} calls/conversation, {p.prompt_tokens:,.0f} prompt{cached} + "
                   f"{p.completion_tokens:,.0f} completion tokens/call, {p.latency_s:.1f} s/call ({p.source})")
    return "\n".join(out)
