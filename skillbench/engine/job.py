"""One job: every selected scenario through rollout → rule checks → judge → pass rule, into the job folder."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TextIO

from skillbench.agents.program import build_program, with_program_identity
from skillbench.benchmark.loader import Benchmark, load_benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.benchmark.selection import select_scenarios
from skillbench.config.schema import RunConfig
from skillbench.core.canonical import canonical_array, canonical_json
from skillbench.core.collector import rare_collections
from skillbench.core.errors import BenchmarkCodeError, ConfigError, InfrastructureError
from skillbench.core.faults import storage_problem
from skillbench.core.guest import watch_the_loop
from skillbench.core.records import Rollout, RuleCheck, Usage
from skillbench.engine.budget import BudgetGuard, SweepSpend
from skillbench.engine.progress import BudgetReached, Progress, SweepPosition
from skillbench.engine.results import (
    CONFIG_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    JobSummary,
    ResultRow,
    assemble_row,
)
from skillbench.engine.signals import run_until_signal
from skillbench.engine.summary import role_max_tokens, summarize, trial_population_of
from skillbench.engine.trials import trial_seed
from skillbench.evaluation import VerdictKeys, judge_transcript, run_rule_checks
from skillbench.evaluation.records import Verdict
from skillbench.models.call_path import SEND_GATE
from skillbench.models.client import ClientPool, ModelClient
from skillbench.models.lazy import LazyClient
from skillbench.models.ledger import recording
from skillbench.models.limit_share import LIMITS_DIR
from skillbench.models.litellm_setup import flush_background_logging
from skillbench.prompts import AGENT_PROMPT_VERSION, USER_PROMPT_VERSION, render_judge_prompt
from skillbench.prompts.tool_result import TOOL_RESULT_PROMPT_VERSION
from skillbench.rollout.orchestrator import AgentLimits, RolloutParams, run_rollout
from skillbench.store import (
    ArtifactStore,
    result_settings,
    write_json_atomic,
    write_text_atomic,
)
from skillbench.store.keys import encoded_hash

log = logging.getLogger("skillbench.job")
TRACEBACKS_DIR = "tracebacks"  # in a job folder: the traceback of each row that guest code ended


class RolloutKeys:
    """The rollout keys of one job's config: agent + user simulator + mock + scenario content + seed + prompt versions
    (+ the trial index after the first: trial 0 keeps the key a job without trials has); never the judge or pass rule.

    The config's part is encoded once here, each scenario's, skill's and tool's once per loaded benchmark
    (``Benchmark.canonical``): a key is then a join and a SHA-256, the same bytes as hashing the whole
    (``store.keys.encoded_hash``), so the keys of earlier runs hold."""

    def __init__(self, cfg: RunConfig, benchmark: Benchmark) -> None:
        settings = result_settings(cfg)
        self.benchmark = benchmark
        self._config = {name: canonical_json(value) for name, value in {
            "agent": settings["agent"], "user_sim": settings["user_sim"], "mock": settings["mock"], **settings["run"],
            "prompts": [AGENT_PROMPT_VERSION, USER_PROMPT_VERSION, TOOL_RESULT_PROMPT_VERSION],
        }.items()}

    def key(self, scenario: Scenario, trial: int = 0) -> str:
        benchmark = self.benchmark
        skill = benchmark.skill_of(scenario)
        members = {
            **self._config,
            "scenario": benchmark.canonical(scenario),
            "skill": benchmark.canonical(skill),
            "tools": canonical_array(benchmark.canonical(tool) for tool in benchmark.toolkit(skill)),
        }
        if trial:
            members["trial"] = canonical_json(trial)
        return encoded_hash(members)


def rollout_key(cfg: RunConfig, benchmark: Benchmark, scenario: Scenario, trial: int = 0) -> str:
    """One rollout key (:class:`RolloutKeys`; a job keeps one of those for all of its keys)."""
    return RolloutKeys(cfg, benchmark).key(scenario, trial)


@dataclass
class JobContext:
    cfg: RunConfig
    benchmark: Benchmark
    store: ArtifactStore
    rollout_params: RolloutParams
    judge: ModelClient
    progress: Progress
    job_dir: Path | None = None  # where a row's guest traceback is written (tracebacks/); None: not written
    conversations_had: int = 0  # had or reused, not infrastructure or benchmark errors (agent_failed_every_try)
    _rollout_keys: dict[tuple[str, int], str] = field(default_factory=dict)
    _trial_params: dict[int, RolloutParams] = field(default_factory=dict)
    _keys: RolloutKeys | None = None
    _verdict_keys: VerdictKeys | None = None

    def rollout_key(self, scenario: Scenario, trial: int = 0) -> str:
        """The rollout key of a scenario and trial under this job's config, hashed once per scenario and trial."""
        key = self._rollout_keys.get((scenario.id, trial))
        if key is None:
            if self._keys is None:
                self._keys = RolloutKeys(self.cfg, self.benchmark)
            key = self._rollout_keys[(scenario.id, trial)] = self._keys.key(scenario, trial)
        return key

    def verdict_key(self, prompt: str) -> str:
        """The verdict key of this job's judge on ``prompt`` (the judge's part encoded once per job)."""
        if self._verdict_keys is None:
            self._verdict_keys = VerdictKeys(self.cfg.judge)
        return self._verdict_keys.key(prompt)

    def trial_params(self, trial: int) -> RolloutParams:
        """The rollout parameters of one trial: trial 0 is the job's own; another trial's agent, user simulator
        and mock carry that trial's seed (:func:`trial_seed`), so its conversation is its own."""
        if trial == 0:
            return self.rollout_params
        params = self._trial_params.get(trial)
        if params is None:
            base, seed = self.rollout_params, trial_seed(self.cfg.run.seed, trial)
            params = self._trial_params[trial] = replace(
                base,
                agent=LazyClient(base.clients, self.cfg.agent, "agent", seed=seed),  # type: ignore[arg-type]
                user=LazyClient(base.clients, self.cfg.user_sim, "user", seed=seed),  # type: ignore[arg-type]
                agent_models={
                    name: LazyClient(base.clients, client.cfg, "agent", seed=seed)  # type: ignore[misc]
                    for name, client in base.agent_models.items()
                },
                seed=seed,
            )
        return params


def make_context(
    cfg: RunConfig, benchmark: Benchmark, *, total: int, budget_usd: float | None = None, label: str = "",
    sweep: SweepPosition | None = None, job_dir: Path | None = None,
) -> JobContext:
    """Clients, store and rollout parameters of one job (also used by the judge lab to obtain rollouts)."""
    cfg = with_program_identity(cfg)
    progress = Progress(
        total=total, budget_usd=budget_usd, label=label, sweep=sweep,
        title=f"agent={cfg.agent.name} judge={cfg.judge.name}",
    )
    # Every request is reported to the progress as it ends: calls and cost move per call. The limiters' leases live
    # beside the store, so every process using it (launcher workers, array tasks, other runs) shares each limit.
    pool = ClientPool(seed=cfg.run.seed, observer=progress.observe, shared_dir=Path(cfg.store.root) / LIMITS_DIR)
    progress.endpoints = pool.endpoint_stats
    return JobContext(
        cfg=cfg,
        benchmark=benchmark,
        store=ArtifactStore(cfg.store.root),
        rollout_params=RolloutParams(
            benchmark=benchmark,
            clients=pool,
            # Built at the first model call: a fully cached job never imports litellm.
            agent=LazyClient(pool, cfg.agent, "agent"),  # type: ignore[arg-type]
            user=LazyClient(pool, cfg.user_sim, "user"),  # type: ignore[arg-type]
            stop_marker=cfg.user_sim.stop_marker,
            mock=cfg.mock,
            max_turns=cfg.run.max_turns,
            seed=cfg.run.seed,
            agent_program=build_program(cfg.agent),
            agent_models={name: LazyClient(pool, model, "agent") for name, model in cfg.agent.models.items()},  # type: ignore[misc]
            agent_limits=AgentLimits(reply_s=cfg.agent.reply_limit_s, conversation_s=cfg.agent.conversation_limit_s),
        ),
        judge=LazyClient(pool, cfg.judge, "judge"),  # type: ignore[arg-type]
        progress=progress,
        job_dir=job_dir,
    )


async def obtain_rollout(ctx: JobContext, scenario: Scenario, trial: int = 0) -> tuple[Rollout, bool]:
    """The stored rollout of ``scenario`` (trial ``trial``) under ``ctx.cfg``, or a new one (stored unless
    infrastructure or the benchmark's own code failed). A stored conversation that an agent time limit ended is
    redone when that limit has been raised since."""
    key = ctx.rollout_key(scenario, trial)
    limits = ctx.rollout_params.agent_limits
    return await ctx.store.get_or_create(
        "rollouts", key, Rollout, lambda: _have_conversation(ctx, scenario, trial, key),
        keep=lambda r: r.termination not in UNSTORED,
        reuse=lambda r: r.time_limit is None or r.time_limit.seconds >= (
            limits.reply_s if r.time_limit.limit == "reply" else limits.conversation_s),
    )


# Conversations never stored: a rerun redoes them (infrastructure) or they wait for the benchmark's fix.
UNSTORED = frozenset({"infra_error", "benchmark_error"})


async def _have_conversation(ctx: JobContext, scenario: Scenario, trial: int, key: str) -> Rollout:
    """The conversation, tried again after an infrastructure error up to ``run.infra_retries`` times; the
    benchmark's own fault is never retried (the same code fails the same way)."""
    params = ctx.trial_params(trial)
    errors: list[InfrastructureError] = []
    spent: dict[str, Usage] = {}  # what the abandoned attempts cost, so every request is counted
    for attempt in range(ctx.cfg.run.infra_retries + 1):
        try:
            with recording() as ledger:  # what answered, and which replies were cut
                rollout = await run_rollout(scenario, params, key=key)
            return rollout.model_copy(update={
                "usage": _merge_usage(rollout.usage, spent), "abandoned_attempts": attempt,
                "served_by": ledger.served, "cut_replies": dict(ledger.cut),
            })
        except BenchmarkCodeError as exc:
            log.warning("benchmark error on %s: %s", scenario.id, exc)
            return placeholder_rollout(ctx, scenario, key, _merge_usage(spent, exc.by_role), benchmark_error=str(exc),
                                       traceback=exc.traceback).model_copy(update={"abandoned_attempts": attempt})
        except InfrastructureError as exc:  # recorded and retried, never scored as the model's failure
            errors.append(exc)
            spent = _merge_usage(spent, exc.by_role)
            log.warning("infrastructure error on %s (attempt %d): %s", scenario.id, attempt + 1, exc)
            # A refused request would be refused again; an endpoint that throttled a call past its patience
            # would throttle the redo too: restarting would only throw away the calls already accepted.
            if not exc.retryable or exc.throttled:
                break
    failed = agent_failed_every_try(ctx, errors)
    if failed is not None:
        return failed.model_copy(update={"usage": spent, "abandoned_attempts": len(errors) - 1})
    return placeholder_rollout(ctx, scenario, key, spent, infra_error=str(errors[-1])).model_copy(
        update={"abandoned_attempts": len(errors) - 1})


def agent_failed_every_try(ctx: JobContext, errors: list[InfrastructureError]) -> Rollout | None:
    """The agent's own failure, when every try of a conversation ended in an infrastructure error that the agent
    under test raised — its program (``InfrastructureError`` from its own code), or for an agent service
    (``agent.service``) its server answering 5xx — while the job's other conversations were had: a crash on this
    scenario's content, not an outage. None otherwise (infrastructure, as before; docs/outcomes.md)."""
    tries = ctx.cfg.run.infra_retries + 1
    if len(errors) < tries or ctx.conversations_had == 0 or errors[-1].partial is None:
        return None
    service = ctx.cfg.agent.service

    def the_agents(exc: InfrastructureError) -> bool:
        if exc.origin == "agent_program":
            return True
        return service and exc.origin == "agent_model" and exc.status is not None and exc.status >= 500

    if not all(the_agents(exc) for exc in errors):
        return None
    who = "agent service" if errors[-1].origin == "agent_model" else "agent program"
    detail = (f"agent: the {who} failed on every one of the {tries} tries of this scenario while the job's other "
              f"conversations were had (its failure, not an outage): {str(errors[-1])[:300]}")
    partial: Rollout = errors[-1].partial
    return partial.model_copy(update={"termination": "model_error", "termination_detail": detail})


def _merge_usage(first: dict[str, Usage], second: dict[str, Usage]) -> dict[str, Usage]:
    return {role: first.get(role, Usage()).add(second.get(role, Usage())) for role in {**first, **second}}


def placeholder_rollout(ctx: JobContext, scenario: Scenario, key: str, usage: dict[str, Usage], *,
                        infra_error: str | None = None, benchmark_error: str | None = None,
                        traceback: str | None = None) -> Rollout:
    """The placeholder of a conversation that could not be had (infrastructure) or whose benchmark code failed:
    never stored, never scored."""
    return Rollout(
        key=key, scenario_id=scenario.id, skill_id=scenario.skill_id, agent=ctx.cfg.agent.name, messages=[],
        termination="benchmark_error" if benchmark_error is not None else "infra_error", infra_error=infra_error,
        benchmark_error=benchmark_error, traceback=traceback or None, usage=usage,
    )


async def obtain_verdict(ctx: JobContext, prompt: str, rollout: Rollout) -> tuple[Verdict, bool]:
    """The stored verdict of ``ctx.cfg.judge`` on ``prompt``, or a new one (stored unless the endpoint failed)."""
    key = ctx.verdict_key(prompt)

    async def produce() -> Verdict:
        earlier = ctx.store.get("verdicts", key, Verdict)  # a stored judge error: its attempts are carried on
        try:
            with recording() as ledger:
                verdict = await judge_transcript(ctx.judge, ctx.cfg.judge, prompt, key=key, rollout_key=rollout.key,
                                                 earlier=earlier)
            return verdict.model_copy(update={
                "served_by": ledger.served.get("judge", []),
                "cut_replies": {"judge": ledger.cut["judge"]} if ledger.cut["judge"] else {},
            })
        except InfrastructureError as exc:
            return Verdict(
                key=key, judge=ctx.cfg.judge.name, rollout_key=rollout.key, judge_error=str(exc), error_kind="infra",
                usage=exc.usage or Usage(),
            )

    # Only a verdict is final: a stored judge error (its evidence) is handed to the judge, which asks again.
    return await ctx.store.get_or_create("verdicts", key, Verdict, produce, keep=lambda v: v.storable,
                                         reuse=lambda v: v.final)


async def evaluate_scenario(ctx: JobContext, scenario: Scenario, trial: int = 0) -> ResultRow:
    """Rollout (stored or new) → rule checks → verdict (stored or new) → one result row.

    Any unexpected exception stays inside this scenario: its row is an infrastructure error (our own
    failure: never scored, nothing stored for it, a rerun redoes it) and the job goes on. A configuration
    mistake found only now (an agent program asking for a model it was not given) stops the job.
    """
    try:
        return await _evaluate(ctx, scenario, trial)
    except ConfigError:
        raise
    except Exception as exc:
        if storage_problem(exc):  # a full or read-only disk is the job's end, not one scenario's infra error
            raise
        log.exception("scenario %s failed inside skillbench; recorded as an infrastructure error", scenario.id)
        key = ctx.rollout_key(scenario, trial)
        rollout = placeholder_rollout(ctx, scenario, key, {},
                                      infra_error=f"internal error: {type(exc).__name__}: {str(exc)[:300]}")
        return _row(ctx, scenario, trial, rollout, [], None, {}, (0.0, 0.0))


async def _evaluate(ctx: JobContext, scenario: Scenario, trial: int) -> ResultRow:
    skill = ctx.benchmark.skill_of(scenario)
    started = time.perf_counter()
    rollout, rollout_reused = await obtain_rollout(ctx, scenario, trial)
    rollout_s = time.perf_counter() - started
    ctx.progress.rollout_finished(rollout_s)
    if rollout_reused:  # its abandoned tries were counted by the run that had the conversation
        rollout = rollout.model_copy(update={"abandoned_attempts": 0})
    usage: dict[str, Usage] = {
        role: (value.as_cache_hit() if rollout_reused else value) for role, value in rollout.usage.items()
    }
    checks: list[RuleCheck] = []
    verdict: Verdict | None = None
    judge_s = 0.0
    if rollout.termination not in UNSTORED:
        ctx.conversations_had += 1
        try:
            checks = run_rule_checks(rollout, scenario, skill, ctx.cfg.checks)
        except BenchmarkCodeError as exc:  # a plug-in rule check failed: the benchmark's side, never the agent's
            log.warning("benchmark error on %s: %s", scenario.id, exc)
            rollout = rollout.model_copy(update={"termination": "benchmark_error", "benchmark_error": str(exc),
                                                 "traceback": exc.traceback or None})
    if rollout.termination not in UNSTORED:
        started = time.perf_counter()
        prompt = render_judge_prompt(skill, scenario, rollout, checks, ctx.cfg.judge.rubric_version)
        verdict, verdict_reused = await obtain_verdict(ctx, prompt, rollout)
        judge_s = time.perf_counter() - started
        usage["judge"] = verdict.usage.as_cache_hit() if verdict_reused else verdict.usage
    return _row(ctx, scenario, trial, rollout, checks, verdict, usage, (rollout_s, judge_s))


def _row(ctx: JobContext, scenario: Scenario, trial: int, rollout: Rollout, checks: list[RuleCheck],
         verdict: Verdict | None, usage: dict[str, Usage], timings: tuple[float, float]) -> ResultRow:
    """The scenario's row, its guest traceback written beside results.jsonl, the progress told."""
    row = assemble_row(ctx.cfg, scenario, ctx.benchmark.skill_of(scenario), ctx.benchmark.version, rollout, checks,
                       verdict, usage, timings, trial=trial)
    if rollout.traceback and ctx.job_dir is not None:
        name = f"{TRACEBACKS_DIR}/{scenario.id}" + (f".trial{trial}" if trial else "") + ".txt"
        (ctx.job_dir / TRACEBACKS_DIR).mkdir(exist_ok=True)
        write_text_atomic(ctx.job_dir / name, rollout.traceback)
        row = row.model_copy(update={"traceback_file": name})
    ctx.progress.record(usage, infra_error=row.infra_error is not None and row.passed is None,
                        judge_error=row.judge_error is not None, model_error=row.termination == "model_error",
                        judge_s=timings[1])
    return row


async def run_job_async(
    cfg: RunConfig, job_dir: Path, label: str = "", sweep: SweepPosition | None = None,
    sweep_spend: SweepSpend | None = None,
) -> JobSummary:
    """Run every selected scenario; rows are appended as they finish, the summary is written last.

    ``sweep_spend``: the rest of this run of the job's sweep, whose spend counts against ``run.budget_usd`` with this
    job's own (engine/budget.py)."""
    started_at, started = datetime.now(UTC), time.perf_counter()
    run = _JobRun.prepare(cfg, job_dir, label, sweep, sweep_spend)
    rows = await run.have_every_conversation()
    summary = run.conclude(rows, started_at, time.perf_counter() - started)
    _log_done(summary, run.ctx, job_dir, rows)
    return summary


@dataclass
class _JobRun:
    """One job while it runs: its scenarios × trials (units), context, budget guard and results file."""

    cfg: RunConfig
    job_dir: Path
    units: list[tuple[Scenario, int]]
    ctx: JobContext
    guard: BudgetGuard | None
    rows: dict[tuple[str, int], ResultRow] = field(default_factory=dict)

    @classmethod
    def prepare(cls, cfg: RunConfig, job_dir: Path, label: str, sweep: SweepPosition | None,
                sweep_spend: SweepSpend | None) -> _JobRun:
        """Load and select the scenarios, write config.json, build the clients, say what runs."""
        cfg = with_program_identity(cfg)  # config.json and every rollout key name the program's source
        benchmark = load_benchmark(cfg.benchmark.source)
        scenarios = select_scenarios(benchmark, cfg.benchmark)
        job_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(job_dir / CONFIG_FILE, cfg.model_dump(mode="json"))
        # Every scenario × trial is one conversation (trial-major within a scenario: its rows stay together).
        units = [(scenario, trial) for scenario in scenarios for trial in range(cfg.run.trials)]
        ctx = make_context(cfg, benchmark, total=len(units), budget_usd=cfg.run.budget_usd, label=label, sweep=sweep,
                           job_dir=job_dir)
        guard = None
        if cfg.run.budget_usd is not None:
            guard = BudgetGuard(cfg.run.budget_usd, ctx.progress, sweep_spend)
            ctx.progress.on_observe = guard.observed
        _log_start(cfg, len(scenarios))
        return cls(cfg=cfg, job_dir=job_dir, units=units, ctx=ctx, guard=guard)

    async def have_every_conversation(self) -> list[ResultRow]:
        """Every unit's row, appended to results.jsonl as it finishes (a kill leaves only whole rows), then the file
        rewritten once in benchmark order. Stops every conversation on the first job-ending failure (a full disk,
        a signal, a configuration error found mid-run) or at the budget."""
        ctx, guard = self.ctx, self.guard
        slots = asyncio.Semaphore(self.cfg.run.scenario_concurrency)
        results_path = self.job_dir / RESULTS_FILE
        reporter = asyncio.create_task(ctx.progress.report_every(self.cfg.run.progress_interval_s))
        # An agent program is guest code: one that blocks the event loop past its reply limit is interrupted.
        watch = (watch_the_loop(self.cfg.agent.reply_limit_s) if self.cfg.agent.program is not None
                 else contextlib.nullcontext())
        try:
            async with watch:
                await self._run_all(slots, results_path)
        finally:
            if guard is not None:
                guard.close(finished_all=len(self.rows) == len(self.units))
            reporter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reporter
        ordered = [self.rows[(s.id, trial)] for s, trial in self.units if (s.id, trial) in self.rows]
        # Rewrite once in benchmark order (atomic, no temporary file left if it fails), so equal runs give equal files.
        write_text_atomic(results_path, "".join(row.model_dump_json() + "\n" for row in ordered))
        return ordered

    async def _run_all(self, slots: asyncio.Semaphore, results_path: Path) -> None:
        """Every conversation at once, within the slots; each row appended to results.jsonl as it finishes."""
        guard = self.guard
        with results_path.open("w", encoding="utf-8") as sink, rare_collections():
            # With a budget, no request leaves once it is reached (the gate), and the guard stops every conversation
            # at once (it cancels them from inside the check that found the cap, before any of them runs again).
            gate = SEND_GATE.set(guard.may_send) if guard is not None else None
            try:
                conversations = [asyncio.ensure_future(self._one(slots, scenario, trial, sink))
                                 for scenario, trial in self.units]
            finally:
                if gate is not None:
                    SEND_GATE.reset(gate)
            if guard is not None:
                guard.stop_conversations = lambda: _cancel(conversations)
            try:
                await _all_or_first_failure(conversations, budgeted=guard is not None)
            finally:
                if guard is not None:
                    guard.stop_conversations = None
            await flush_background_logging()  # this job's own share of litellm's work, not the next job's

    async def _one(self, slots: asyncio.Semaphore, scenario: Scenario, trial: int, sink: TextIO) -> None:
        row = await self._take_turn(slots, scenario, trial, defer_if_busy=True)
        if row == "deferred":
            await asyncio.sleep(0)  # every other waiting scenario queues up first; this one joins the back
            row = await self._take_turn(slots, scenario, trial, defer_if_busy=False)
        if not isinstance(row, ResultRow):
            return
        self.rows[(scenario.id, trial)] = row
        # One whole line per write, flushed: a kill leaves only complete rows behind.
        sink.write(row.model_dump_json() + "\n")
        sink.flush()

    async def _take_turn(self, slots: asyncio.Semaphore, scenario: Scenario, trial: int, *, defer_if_busy: bool
                         ) -> ResultRow | Literal["deferred"] | None:
        """The scenario's row once it has a slot; None past the budget (a rerun with a higher budget does it)."""
        ctx, guard = self.ctx, self.guard
        async with slots:
            # Another job of the sweep (e.g. the next judge of this agent, in another worker) is having this
            # conversation: parallel jobs that share rollouts split them instead of queueing on the same lock.
            if defer_if_busy and ctx.store.being_produced("rollouts", ctx.rollout_key(scenario, trial)):
                return "deferred"
            if guard is None:
                return await evaluate_scenario(ctx, scenario, trial)
            if not await guard.admit():  # its expected cost does not fit in what is left of the budget
                return None
            row: ResultRow | None = None
            try:
                row = await evaluate_scenario(ctx, scenario, trial)
                return row
            finally:
                cost = sum(u.cost_usd for u in row.usage.values()) if row is not None else 0.0
                guard.finished(cost, reused=row is None or cost == 0)

    def conclude(self, ordered: list[ResultRow], started_at: datetime, wall_time_s: float) -> JobSummary:
        """The summary (written last: its presence marks a finished job); a budget stop raises instead."""
        if len(ordered) < len(self.units):  # only the budget skips scenarios; no summary for an unfinished job
            guard = self.guard
            assert guard is not None
            raise BudgetReached(self.ctx.progress.cost_usd, guard.budget_usd, len(ordered), len(self.units),
                                stopped_in_flight=guard.stopped_in_flight, sweep_spent_usd=guard.spent(),
                                abandoned_calls=sum(u.abandoned_calls for u in self.ctx.progress.live.values()),
                                reached_at=guard.reached_at, sent_after_cap=guard.sent_after_cap())
        summary = summarize(ordered, self.cfg, started=started_at, wall_time_s=wall_time_s,
                            benchmark_version=self.ctx.benchmark.version)
        summary = summary.model_copy(update={"rate_limits": self.ctx.rollout_params.clients.endpoint_stats()})
        write_json_atomic(self.job_dir / SUMMARY_FILE, summary.model_dump(mode="json"))
        return summary


async def _all_or_first_failure(conversations: list[asyncio.Future[None]], *, budgeted: bool) -> None:
    """Wait for every conversation. A budget stop cancels some (not a failure); anything else one of them raises, or
    a signal, cancels and collects the rest, then is raised (none left unhandled)."""
    try:
        await asyncio.gather(*conversations, return_exceptions=budgeted)
        for conversation in conversations:
            if not conversation.cancelled() and conversation.exception() is not None:
                raise conversation.exception()  # type: ignore[misc]
    except BaseException:
        _cancel(conversations)
        await asyncio.gather(*conversations, return_exceptions=True)
        raise


def _cancel(conversations: list[asyncio.Future[None]]) -> None:
    """Cancel every conversation still running (each is collected by whoever awaits it)."""
    # A call cancelled before its provider coroutine started says so as it is collected: noise here.
    warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
    for conversation in conversations:
        if not conversation.done():
            conversation.cancel()


def _log_start(cfg: RunConfig, scenarios: int) -> None:
    log.info(
        "job: agent=%s judge=%s user_sim=%s mock=%s pass_rule=%s benchmark=%s (%d scenarios%s)%s",
        cfg.agent.name, cfg.judge.name, cfg.user_sim.name, cfg.mock.name, cfg.pass_rule.name, cfg.benchmark.name,
        scenarios, f" × {cfg.run.trials} trials" if cfg.run.trials > 1 else "",
        " [SIMULATED agent]" if cfg.agent.simulated else "",
    )
    log.info("max_tokens per role: %s", ", ".join(
        f"{role}={'server default' if cap is None else cap}" for role, cap in role_max_tokens(cfg).items()))


def _log_done(summary: JobSummary, ctx: JobContext, job_dir: Path, rows: list[ResultRow]) -> None:
    log.info(ctx.progress.line())
    log.info(
        "done: pass rate %s (%d/%d scored), rule-based %s, model errors %d (scored as fails), judge errors %d, "
        "infra errors %d, benchmark errors %d, conversations redone after infra errors %d (%d tries abandoned), "
        "replies cut at max_tokens %s, requests %d answered + %d failed (%d retries) -> %s",
        "n/a" if summary.pass_rate is None else f"{summary.pass_rate:.1%}", summary.passed, summary.scored,
        "n/a" if summary.rule_pass_rate is None else f"{summary.rule_pass_rate:.1%}",
        summary.model_errors, summary.judge_errors, summary.infra_errors, summary.benchmark_errors,
        summary.redone_conversations, summary.abandoned_attempts, _cut_line(summary.cut_replies), summary.llm_calls,
        summary.failed_attempts, summary.retries, job_dir,
    )
    if summary.pass_hat_k:
        population = trial_population_of(rows, summary.trials)
        note = population.cap_note()
        log.info(
            "trials: %d per scenario, over %d scenario(s) with a scored trial; %s; %s%s%s", summary.trials,
            population.scenarios,
            " ".join(f"pass^{k} {_pct(v)}" for k, v in summary.pass_hat_k.items() if v is not None),
            " ".join(f"pass@{k} {_pct(v)}" for k, v in summary.pass_at_k.items() if v is not None),
            f"; {note}" if note else "", " [SIMULATED agent]" if ctx.cfg.agent.simulated else "",
        )
    if summary.config_errors:
        log.error("%d scenario(s) were refused by a provider on requests built from valid inputs: check the model "
                  "config (model name, params, api_base); they are not scored", summary.config_errors)
    if summary.infra_errors:
        first = next(row.infra_error for row in rows if row.infra_error and row.passed is None)
        log.warning("%d scenario(s) hit infrastructure errors and were not scored; first: %s", summary.infra_errors, first)
    if summary.benchmark_errors:
        first = next(row.benchmark_error for row in rows if row.benchmark_error)
        log.warning("%d scenario(s) hit benchmark errors (the benchmark's own code failed) and were not scored; "
                    "first: %s", summary.benchmark_errors, first)
    for endpoint in summary.rate_limits:
        if endpoint["rate_limited"]:
            log.info("rate limits: %s: %d of %d requests throttled (429/503), %.1fs waited for the provider (its pauses and refusals), limit now %s of %s",
                     endpoint["endpoint"], endpoint["rate_limited"], endpoint["requests"], endpoint["waited_s"],
                     endpoint["limit"], endpoint["ceiling"])


def _cut_line(cut: dict[str, int]) -> str:
    return ", ".join(f"{role} {count}" for role, count in cut.items()) if cut else "0"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def run_job(cfg: RunConfig, job_dir: Path, label: str = "", sweep: SweepPosition | None = None,
            sweep_spend: SweepSpend | None = None,
            on_signal: Callable[[], None] | None = None,
            last_words: Callable[[], None] | None = None) -> JobSummary:
    """SIGTERM ends it as Ctrl-C does; ``on_signal`` (the job's marker) runs as SIGTERM arrives, ``last_words`` (the
    marker and the line) before a forced exit when guest code keeps the job from stopping (engine/signals.py)."""
    return run_until_signal(run_job_async(cfg, job_dir, label, sweep, sweep_spend), on_signal=on_signal,
                            last_words=last_words)
