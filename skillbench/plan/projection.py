"""How long a sweep takes: a fluid model of jobs on workers, cores and rate-limited endpoints.

A job's scenarios run ``min(run.scenario_concurrency, endpoint concurrency)`` at a time; a
conversation takes its calls' latencies in sequence, then the judge's; the judges' jobs of one agent share its
conversations (running together, they split them: skillbench defers a conversation another job is having);
calls cost the measured CPU, a job's on one core at most (one event loop), and a machine's jobs share its cores;
every job pays its measured fixed cost and the sweep its own (composing and checking the jobs, the report);
every new interpreter pays the start-up and the imports (once per sweep on one machine: the fork launcher's
workers inherit them; once per job for SLURM array tasks); the running jobs' calls to one model share its
requests and tokens per minute, max-min fairly (``fair_shares``: a job slowed by one endpoint leaves its unsent
calls on the others to the jobs that can use them). Not modelled: queueing on a shared vLLM server beyond its
batching, bursts, retries.

``simulate`` gives a layout's wall time (one machine's workers, or one process per job as SLURM array tasks);
``rate_limit_bound`` the time no layout can beat. ``benchmarks/grid_projection.py`` measures the inputs on a
down-scaled grid against rate-limited stubs, checks the model against that run and projects the paper's grid with it
(docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class JobShape:
    """What the projection needs of one job of the grid."""

    agent: str
    scenarios: int
    rollout_slots: int  # conversations at once: min(scenario_concurrency, agent, user concurrency)
    judge_slots: int
    conversation_s: float  # one conversation's calls in sequence (agent and user)
    judge_s: float  # the judge's calls of one conversation
    conversation_calls: float
    judge_calls: float
    # Per litellm model: (calls per conversation while rolling out, judge calls per conversation, tokens per call).
    endpoints: dict[str, tuple[float, float, float]] = field(default_factory=dict)


@dataclass
class Costs:
    cpu_per_call_s: float
    fixed_per_job_s: float  # a fully cached job's own share of a sweep
    fixed_per_sweep_s: float  # the rest of a fully cached sweep: composing and checking every job, the report
    startup_s: float  # a process's start-up to its first job (`--help`'s wall)
    import_s: float  # what a job that calls models imports besides (the engine, MCP SDK, litellm)


@dataclass
class _Running:
    job: JobShape
    node: int
    warmup_s: float
    to_judge: float = field(init=False)
    active_s: float = (
        0.0  # since its warm-up ended: no job ends before one conversation and its judging could
    )

    def __post_init__(self) -> None:
        self.to_judge = float(self.job.scenarios)


def simulate(
    jobs: list[JobShape],
    costs: Costs,
    *,
    nodes: int,
    workers_per_node: int,
    cores_per_node: float,
    process_per_job: bool,
    queue_wait_s: float = 0.0,
    stub_cpu_per_call_s: float = 0.0,
    rate_limits: dict[str, dict[str, float]] | None = None,
    steps: int = 200_000,
    burst_s: float = 0.0,
) -> float:
    """Seconds until the last job ends, jobs taken in order by free workers (fluid approximation).
    ``stub_cpu_per_call_s``: CPU another process on the same machine spends per call (the local stub's).
    ``rate_limits``: per litellm model, ``requests_per_minute`` / ``tokens_per_minute`` of the key the grid uses.
    ``steps``: about how many time steps the run takes (the resolution).
    ``burst_s``: seconds of its rate a limit lets through at once after an idle spell (a token bucket's depth)."""
    pending = list(jobs)
    conversations_left = {job.agent: float(job.scenarios) for job in jobs}
    running: list[_Running] = []
    free = [(node, w) for node in range(nodes) for w in range(workers_per_node)]
    started_workers: set[tuple[int, int]] = set()
    total = sum(j.scenarios * (j.conversation_s + j.judge_s) / max(1, j.rollout_slots) for j in jobs)
    dt = max(1e-3, max(total, rate_limit_bound(jobs, rate_limits)) / steps)
    # One sweep process (basic or fork launcher): it starts and imports once, on one core, before any job starts;
    # every forked worker inherits it, so none starts earlier (the stub's clock: the first call came 3.2 s after
    # the start with either launcher; this once let a second worker start at 0).
    now = 0.0 if process_per_job else (costs.startup_s + costs.import_s) / max(min(1.0, cores_per_node), 1e-3)
    slots: dict[int, tuple[int, int]] = {}
    rates_per_s = {(model, kind): float(limits[f"{kind}_per_minute"]) / 60
                   for model, limits in (rate_limits or {}).items() for kind in ("requests", "tokens")
                   if (limits or {}).get(f"{kind}_per_minute")}
    credit = {resource: burst_s * rate for resource, rate in rates_per_s.items()}  # buckets start full
    while pending or running:
        while free and pending:
            node, worker = free.pop(0)
            warm = costs.fixed_per_job_s
            if process_per_job:  # a fresh interpreter per job (a SLURM array task)
                warm += queue_wait_s + costs.startup_s + costs.import_s
            started_workers.add((node, worker))
            item = _Running(pending.pop(0), node, warm)
            running.append(item)
            slots[id(item)] = (node, worker)
        # Rates before the machines' cores are shared out.
        demand: dict[int, float] = {}
        own_core: dict[int, float] = {}
        rates: list[tuple[_Running, float, bool]] = []
        for item in running:
            job = item.job
            if item.warmup_s > 0:
                rates.append((item, 0.0, False))
                demand[item.node] = demand.get(item.node, 0.0) + 1.0  # start-up is CPU-bound
                continue
            rolling = conversations_left[job.agent] > 0
            rate = (
                job.rollout_slots / (job.conversation_s + job.judge_s)
                if rolling
                else job.judge_slots / job.judge_s
            )
            calls = rate * ((job.conversation_calls if rolling else 0.0) + job.judge_calls)
            # One job is one event loop: its calls' CPU runs on one core at most, whatever the machine has.
            work = calls * costs.cpu_per_call_s
            own_core[id(item)] = min(1.0, 1.0 / work) if work > 0 else 1.0
            demand[item.node] = demand.get(item.node, 0.0) + calls * own_core[id(item)] * (
                costs.cpu_per_call_s + stub_cpu_per_call_s
            )
            rates.append((item, rate, rolling))
        share = {node: min(1.0, cores_per_node / d) if d > 0 else 1.0 for node, d in demand.items()}
        # Provider rate limits: the running jobs' calls to one endpoint (model + key) share its requests and
        # tokens per minute; a job runs at the pace of its most limited endpoint.
        used: dict[Any, float] = {}
        limited = endpoint_factors(rates, own_core, share, rate_limits,
                                   extra={r: c / dt for r, c in credit.items()}, used=used)
        for resource, rate in rates_per_s.items():
            credit[resource] = min(burst_s * rate, max(0.0, credit[resource] + (rate - used.get(resource, 0.0)) * dt))
        for item, rate, rolling in rates:
            if item.warmup_s > 0:
                item.warmup_s -= dt * share[item.node]
                continue
            item.active_s += dt
            done = rate * own_core[id(item)] * share[item.node] * limited.get(id(item), 1.0) * dt
            if rolling:
                done = min(done, conversations_left[item.job.agent])
                conversations_left[item.job.agent] -= done
            item.to_judge -= done
        now += dt
        for item in [
            r for r in running if r.to_judge <= 1e-9 and r.active_s >= r.job.conversation_s + r.job.judge_s
        ]:
            running.remove(item)
            free.append(slots.pop(id(item)))
        free.sort()
    return now + costs.fixed_per_sweep_s


def rate_limit_bound(jobs: list[JobShape], rate_limits: dict[str, dict[str, float]] | None) -> float:
    """Seconds no layout can beat: the most loaded endpoint's calls (or tokens) ÷ its limit. An agent's
    conversations are had once, whichever of its judges' jobs has them; every job judges them all."""
    calls: dict[str, float] = {}
    tokens: dict[str, float] = {}
    rolled: set[str] = set()
    for job in jobs:
        for model, (rolling_calls, judge_calls, per_call) in job.endpoints.items():
            n = job.scenarios * (judge_calls + (rolling_calls if job.agent not in rolled else 0.0))
            calls[model] = calls.get(model, 0.0) + n
            tokens[model] = tokens.get(model, 0.0) + n * per_call
        rolled.add(job.agent)
    bound = 0.0
    for model, limits in (rate_limits or {}).items():
        rpm, tpm = (limits or {}).get("requests_per_minute"), (limits or {}).get("tokens_per_minute")
        if rpm:
            bound = max(bound, calls.get(model, 0.0) / (rpm / 60))
        if tpm:
            bound = max(bound, tokens.get(model, 0.0) / (tpm / 60))
    return bound


def endpoint_factors(rates: list[Any], own_core: dict[int, float], share: dict[int, float],
                     rate_limits: dict[str, dict[str, float]] | None, extra: dict[Any, float] | None = None,
                     used: dict[Any, float] | None = None) -> dict[int, float]:
    """Per running job, the share of its unlimited pace that its endpoints' rate limits allow (1.0: none bind).

    Max-min fair and work-conserving (progressive filling): every job's pace rises together until a limit it
    uses is full; those jobs stay there and the rest keep rising. (Taking each job's most limited endpoint
    against everyone's *unthrottled* demand, as this did before, slowed a job on a free endpoint for calls that a
    throttled job would never send: the more jobs ran at once, the more capacity it wasted, so 85 SLURM nodes
    projected slower than 17.) ``extra``: per (model, "requests" | "tokens"), rate a bucket's burst adds now;
    ``used``: filled with the rate each resource is used at."""
    if not rate_limits:
        return {}
    # Per job, its demand on each limited resource (model, "requests" | "tokens") per second at full pace.
    demand: dict[int, dict[tuple[str, str], float]] = {}
    for item, rate, rolling in rates:
        if rate <= 0:
            continue
        pace = rate * own_core.get(id(item), 1.0) * share.get(item.node, 1.0)
        needs: dict[tuple[str, str], float] = {}
        for model, (rolling_calls, judge_calls, tokens) in item.job.endpoints.items():
            limits = rate_limits.get(model) or {}
            calls = pace * ((rolling_calls if rolling else 0.0) + judge_calls)
            if limits.get("requests_per_minute") and calls > 0:
                needs[(model, "requests")] = needs.get((model, "requests"), 0.0) + calls
            if limits.get("tokens_per_minute") and calls * tokens > 0:
                needs[(model, "tokens")] = needs.get((model, "tokens"), 0.0) + calls * tokens
        demand[id(item)] = needs
    capacity = {(model, kind): float(limits[f"{kind}_per_minute"]) / 60 + (extra or {}).get((model, kind), 0.0)
                for model, limits in rate_limits.items() for kind in ("requests", "tokens")
                if (limits or {}).get(f"{kind}_per_minute")}
    factors = fair_shares(demand, capacity)
    if used is not None:
        for consumer, needs in demand.items():
            for resource, rate in needs.items():
                used[resource] = used.get(resource, 0.0) + rate * factors.get(consumer, 1.0)
    return factors


def fair_shares(demand: dict[int, dict[Any, float]], capacity: dict[Any, float]) -> dict[int, float]:
    """Max-min fair pace factors in [0, 1] for consumers with ``demand[consumer][resource]`` at full pace sharing
    ``capacity[resource]`` (progressive filling). Never over a capacity; a consumer is below 1 only when a
    resource it uses is full."""
    factor: dict[int, float] = {}
    open_ = {c for c in demand}
    left = dict(capacity)
    while open_:
        level, full = 1.0, []
        for resource, cap in left.items():
            load = sum(demand[c].get(resource, 0.0) for c in open_)
            if load <= 0:
                continue
            reach = max(0.0, cap) / load
            if reach < level - 1e-12:
                level, full = reach, [resource]
            elif abs(reach - level) <= 1e-12:
                full.append(resource)
        if not full:  # nothing binds below full pace
            factor.update({c: 1.0 for c in open_})
            break
        frozen = {c for c in open_ if any(demand[c].get(r, 0.0) > 0 for r in full)}
        for c in frozen:
            factor[c] = level
        for resource in left:
            left[resource] -= sum(level * demand[c].get(resource, 0.0) for c in frozen)
        open_ -= frozen
    return factor
