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
from skillbench.core.collector import rare_collections
from skillbench.core.errors import InfrastructureError
from skillbench.core.faults import storage_problem
from skillbench.core.records import Rollout, RuleCheck, Usage
from skillbench.engine.budget import BudgetGuard
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
from skillbench.engine.summary import role_max_tokens, summarize
from skillbench.engine.trials import trial_seed
from skillbench.evaluation import judge_transcript, run_rule_checks, verdict_key
from skillbench.evaluation.records import Verdict
from skillbench.models.client import ClientPool, ModelClient
from skillbench.models.lazy import LazyClient
from skillbench.models.ledger import recording
from skillbench.models.litellm_setup import flush_background_logging
from skillbench.prompts import AGENT_PROMPT_VERSION, USER_PROMPT_VERSION, render_judge_prompt
from skillbench.prompts.tool_result import TOOL_RESULT_PROMPT_VERSION
from skillbench.rollout.orchestrator import RolloutParams, run_rollout
from skillbench.store import (
    ArtifactStore,
    content_hash,
    result_settings,
    write_json_atomic,
    write_text_atomic,
)

log = logging.getLogger("skillbench.job")
LIMITS_DIR = ".limits"  # in the store: one small state file per endpoint + key (models/limiter.py)


def rollout_key(cfg: RunConfig, benchmark: Benchmark, scenario: Scenario, trial: int = 0) -> str:
    """Agent + user simulator + mock + scenario content + seed + prompt versions (+ the trial index after the
    first: trial 0 keeps the key a job without trials has). Never the judge or pass rule."""
    skill = benchmark.skill_of(scenario)
    settings = result_settings(cfg)
    return content_hash(
        {
            **({"trial": trial} if trial else {}),
            "agent": settings["agent"],
            "user_sim": settings["user_sim"],
            "mock": settings["mock"],
            "scenario": scenario.model_dump(mode="json"),
            "skill": skill.model_dump(mode="json"),
            "tools": [tool.model_dump(mode="json") for tool in benchmark.toolkit(skill)],
            **settings["run"],
            "prompts": [AGENT_PROMPT_VERSION, USER_PROMPT_VERSION, TOOL_RESULT_PROMPT_VERSION],
        }
    )


@dataclass
class JobContext:
    cfg: RunConfig
    benchmark: Benchmark
    store: ArtifactStore
    rollout_params: RolloutParams
    judge: ModelClient
    progress: Progress
    _rollout_keys: dict[tuple[str, int], str] = field(default_factory=dict)
    _trial_params: dict[int, RolloutParams] = field(default_factory=dict)

    def rollout_key(self, scenario: Scenario, trial: int = 0) -> str:
        """:func:`rollout_key` under this job's config, hashed once per scenario and trial."""
        key = self._rollout_keys.get((scenario.id, trial))
        if key is None:
            key = self._rollout_keys[(scenario.id, trial)] = rollout_key(self.cfg, self.benchmark, scenario, trial)
        return key

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
    sweep: SweepPosition | None = None,
) -> JobContext:
    """Clients, store and rollout parameters of one job (also used by the judge lab to obtain rollouts)."""
    cfg = with_program_identity(cfg)
    progress = Progress(
        total=total, budget_usd=budget_usd, label=label, sweep=sweep,
        title=f"agent={cfg.agent.name} judge={cfg.judge.name}",
    )
    # Every request is reported to the progress as it ends: calls and cost move per call. Limiter state lives
    # beside the store, so every process using it (launcher workers, other runs) shares each endpoint's limit.
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
        ),
        judge=LazyClient(pool, cfg.judge, "judge"),  # type: ignore[arg-type]
        progress=progress,
    )


async def obtain_rollout(ctx: JobContext, scenario: Scenario, trial: int = 0) -> tuple[Rollout, bool]:
    """The stored rollout of ``scenario`` (trial ``trial``) under ``ctx.cfg``, or a new one (stored unless
    infrastructure failed)."""
    key = ctx.rollout_key(scenario, trial)
    params = ctx.trial_params(trial)

    async def produce() -> Rollout:
        error: InfrastructureError | None = None
        spent: dict[str, Usage] = {}  # what the abandoned attempts cost, so every request is counted
        for attempt in range(ctx.cfg.run.infra_retries + 1):
            try:
                with recording() as ledger:  # what answered, and which replies were cut
                    rollout = await run_rollout(scenario, params, key=key)
                return rollout.model_copy(update={
                    "usage": _merge_usage(rollout.usage, spent), "abandoned_attempts": attempt,
                    "served_by": ledger.served, "cut_replies": dict(ledger.cut),
                })
            except InfrastructureError as exc:  # recorded and retried, never scored as the model's failure
                error = exc
                spent = _merge_usage(spent, exc.by_role)
                log.warning("infrastructure error on %s (attempt %d): %s", scenario.id, attempt + 1, exc)
                # A refused request would be refused again; an endpoint that throttled a call past its patience
                # would throttle the redo too: restarting would only throw away the calls already accepted.
                if not exc.retryable or exc.throttled:
                    break
        return infra_rollout(ctx, scenario, key, str(error), spent).model_copy(update={"abandoned_attempts": attempt})

    return await ctx.store.get_or_create("rollouts", key, Rollout, produce, keep=lambda r: r.termination != "infra_error")


def _merge_usage(first: dict[str, Usage], second: dict[str, Usage]) -> dict[str, Usage]:
    return {role: first.get(role, Usage()).add(second.get(role, Usage())) for role in {**first, **second}}


def infra_rollout(ctx: JobContext, scenario: Scenario, key: str, error: str, usage: dict[str, Usage]) -> Rollout:
    """The placeholder of a conversation that could not be had: never stored, never scored."""
    return Rollout(
        key=key, scenario_id=scenario.id, skill_id=scenario.skill_id, agent=ctx.cfg.agent.name, messages=[],
        termination="infra_error", infra_error=error, usage=usage,
    )


async def obtain_verdict(ctx: JobContext, prompt: str, rollout: Rollout) -> tuple[Verdict, bool]:
    """The stored verdict of ``ctx.cfg.judge`` on ``prompt``, or a new one (stored unless the endpoint failed)."""
    key = verdict_key(ctx.cfg.judge, prompt)

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
    failure: never scored, nothing stored for it, a rerun redoes it) and the job goes on.
    """
    try:
        return await _evaluate(ctx, scenario, trial)
    except Exception as exc:
        if storage_problem(exc):  # a full or read-only disk is the job's end, not one scenario's infra error
            raise
        log.exception("scenario %s failed inside skillbench; recorded as an infrastructure error", scenario.id)
        key = ctx.rollout_key(scenario, trial)
        rollout = infra_rollout(ctx, scenario, key, f"internal error: {type(exc).__name__}: {str(exc)[:300]}", {})
        skill = ctx.benchmark.skill_of(scenario)
        row = assemble_row(
            ctx.cfg, scenario, skill, ctx.benchmark.version, rollout, [], None, {}, (0.0, 0.0), trial=trial
        )
        ctx.progress.record({}, infra_error=True, judge_error=False)
        return row


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
    if rollout.termination != "infra_error":
        checks = run_rule_checks(rollout, scenario, skill, ctx.cfg.checks)
        started = time.perf_counter()
        prompt = render_judge_prompt(skill, scenario, rollout, checks, ctx.cfg.judge.rubric_version)
        verdict, verdict_reused = await obtain_verdict(ctx, prompt, rollout)
        judge_s = time.perf_counter() - started
        usage["judge"] = verdict.usage.as_cache_hit() if verdict_reused else verdict.usage
    row = assemble_row(
        ctx.cfg, scenario, skill, ctx.benchmark.version, rollout, checks, verdict, usage, (rollout_s, judge_s),
        trial=trial,
    )
    ctx.progress.record(usage, infra_error=row.infra_error is not None, judge_error=row.judge_error is not None,
                        model_error=row.termination == "model_error", judge_s=judge_s)
    return row


async def run_job_async(
    cfg: RunConfig, job_dir: Path, label: str = "", sweep: SweepPosition | None = None,
    spent_elsewhere: Callable[[], float] | None = None,
) -> JobSummary:
    """Run every selected scenario; rows are appended as they finish, the summary is written last.

    ``spent_elsewhere``: what the sweep's other jobs have spent so far (finished or running), counted against
    ``run.budget_usd`` with this job's own spend (engine/budget.py)."""
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    cfg = with_program_identity(cfg)  # config.json and every rollout key name the program's source
    benchmark = load_benchmark(cfg.benchmark.source)
    scenarios = select_scenarios(benchmark, cfg.benchmark)
    job_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(job_dir / CONFIG_FILE, cfg.model_dump(mode="json"))
    # Every scenario × trial is one conversation (trial-major within a scenario: its rows stay together).
    units = [(scenario, trial) for scenario in scenarios for trial in range(cfg.run.trials)]
    ctx = make_context(cfg, benchmark, total=len(units), budget_usd=cfg.run.budget_usd, label=label, sweep=sweep)
    log.info(
        "job: agent=%s judge=%s user_sim=%s mock=%s pass_rule=%s benchmark=%s (%d scenarios%s)%s",
        cfg.agent.name, cfg.judge.name, cfg.user_sim.name, cfg.mock.name, cfg.pass_rule.name, cfg.benchmark.name,
        len(scenarios), f" × {cfg.run.trials} trials" if cfg.run.trials > 1 else "",
        " [SIMULATED agent]" if cfg.agent.simulated else "",
    )
    log.info("max_tokens per role: %s", ", ".join(
        f"{role}={'server default' if cap is None else cap}" for role, cap in role_max_tokens(cfg).items()))
    limit = asyncio.Semaphore(cfg.run.scenario_concurrency)
    guard = None
    if cfg.run.budget_usd is not None:
        guard = BudgetGuard(cfg.run.budget_usd, ctx.progress, job_dir, spent_elsewhere)
        ctx.progress.on_observe = guard.observed
    results_path = job_dir / RESULTS_FILE
    rows: dict[tuple[str, int], ResultRow] = {}

    async def take_turn(
        scenario: Scenario, trial: int, *, defer_if_busy: bool
    ) -> ResultRow | Literal["deferred"] | None:
        """The scenario's row once it has a slot; None past the budget (a rerun with a higher budget does it)."""
        async with limit:
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

    async def one(scenario: Scenario, trial: int, sink: TextIO) -> None:
        row = await take_turn(scenario, trial, defer_if_busy=True)
        if row == "deferred":
            await asyncio.sleep(0)  # every other waiting scenario queues up first; this one joins the back
            row = await take_turn(scenario, trial, defer_if_busy=False)
        if not isinstance(row, ResultRow):
            return
        rows[(scenario.id, trial)] = row
        # One whole line per write, flushed: a kill leaves only complete rows behind.
        sink.write(row.model_dump_json() + "\n")
        sink.flush()

    reporter = asyncio.create_task(ctx.progress.report_every(cfg.run.progress_interval_s))
    try:
        with results_path.open("w", encoding="utf-8") as sink, rare_collections():
            conversations = [asyncio.ensure_future(one(scenario, trial, sink)) for scenario, trial in units]
            stopper = asyncio.ensure_future(_stop_at_cap(guard, conversations)) if guard is not None else None
            try:
                await asyncio.gather(*conversations, return_exceptions=guard is not None)
                for conversation in conversations:  # a budget stop cancelled some; anything else is raised
                    if not conversation.cancelled() and conversation.exception() is not None:
                        raise conversation.exception()  # type: ignore[misc]
            except BaseException:  # a full disk, a signal: stop the others and collect them, none left unhandled
                # A call cancelled before its provider coroutine started says so as it is collected: noise here.
                warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
                for conversation in conversations:
                    conversation.cancel()
                await asyncio.gather(*conversations, return_exceptions=True)
                raise
            await flush_background_logging()  # this job's own share of litellm's work, not the next job's
    finally:
        if guard is not None:
            stopper.cancel()  # type: ignore[union-attr]
            guard.close()
        reporter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reporter
    ordered = [rows[(scenario.id, trial)] for scenario, trial in units if (scenario.id, trial) in rows]
    # Rewrite once in benchmark order (atomic, no temporary file left if it fails), so equal runs give equal files.
    write_text_atomic(results_path, "".join(row.model_dump_json() + "\n" for row in ordered))
    if len(ordered) < len(units):  # only the budget skips scenarios; no summary for an unfinished job
        assert guard is not None
        raise BudgetReached(ctx.progress.cost_usd, guard.budget_usd, len(ordered), len(units),
                            stopped_in_flight=guard.stopped_in_flight, sweep_spent_usd=guard.spent())
    summary = summarize(
        ordered, cfg, started=started_at, wall_time_s=time.perf_counter() - started, benchmark_version=benchmark.version
    )
    summary = summary.model_copy(update={"rate_limits": ctx.rollout_params.clients.endpoint_stats()})
    write_json_atomic(job_dir / SUMMARY_FILE, summary.model_dump(mode="json"))
    log.info(ctx.progress.line())
    log.info(
        "done: pass rate %s (%d/%d scored), rule-based %s, model errors %d (scored as fails), judge errors %d, "
        "infra errors %d, conversations redone after infra errors %d (%d tries abandoned), replies cut at "
        "max_tokens %s, requests %d answered + %d failed (%d retries) -> %s",
        "n/a" if summary.pass_rate is None else f"{summary.pass_rate:.1%}", summary.passed, summary.scored,
        "n/a" if summary.rule_pass_rate is None else f"{summary.rule_pass_rate:.1%}",
        summary.model_errors, summary.judge_errors, summary.infra_errors, summary.redone_conversations,
        summary.abandoned_attempts, _cut_line(summary.cut_replies), summary.llm_calls, summary.failed_attempts,
        summary.retries, job_dir,
    )
    if summary.pass_hat_k:
        log.info(
            "trials: %d per scenario; %s; %s%s", summary.trials,
            " ".join(f"pass^{k} {_pct(v)}" for k, v in summary.pass_hat_k.items()),
            " ".join(f"pass@{k} {_pct(v)}" for k, v in summary.pass_at_k.items()),
            " [SIMULATED agent]" if cfg.agent.simulated else "",
        )
    if summary.config_errors:
        log.error("%d scenario(s) were refused by a provider on requests built from valid inputs: check the model "
                  "config (model name, params, api_base); they are not scored", summary.config_errors)
    if summary.infra_errors:
        first = next(row.infra_error for row in ordered if row.infra_error)
        log.warning("%d scenario(s) hit infrastructure errors and were not scored; first: %s", summary.infra_errors, first)
    for endpoint in summary.rate_limits:
        if endpoint["rate_limited"]:
            log.info("rate limits: %s: %d of %d requests throttled (429/503), %.1fs waited for slots, limit now %s of %s",
                     endpoint["endpoint"], endpoint["rate_limited"], endpoint["requests"], endpoint["waited_s"],
                     endpoint["limit"], endpoint["ceiling"])
    return summary


async def _stop_at_cap(guard: BudgetGuard, conversations: list[asyncio.Future[None]]) -> None:
    """At the budget, cancel every conversation still running: unfinished, nothing of it stored, redone on rerun."""
    await guard.reached.wait()
    running = [c for c in conversations if not c.done()]
    guard.stopped_in_flight = guard.in_flight
    if guard.in_flight:
        log.warning("budget reached: stopping %d conversation(s) in flight (unfinished; the rerun does them)",
                    guard.in_flight)
    warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
    for conversation in running:
        conversation.cancel()


def _cut_line(cut: dict[str, int]) -> str:
    return ", ".join(f"{role} {count}" for role, count in cut.items()) if cut else "0"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def run_job(cfg: RunConfig, job_dir: Path, label: str = "", sweep: SweepPosition | None = None,
            spent_elsewhere: Callable[[], float] | None = None) -> JobSummary:
    # SIGTERM ends it as Ctrl-C does
    return run_until_signal(run_job_async(cfg, job_dir, label, sweep, spent_elsewhere))
