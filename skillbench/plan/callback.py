"""Hydra callback: before the first job of a run or sweep, compose every job, preflight it and estimate it.

Chosen over a check inside the task function because Hydra calls ``on_multirun_start`` once, in the
parent process, with the sweep's config and before the sweeper creates any folder; a refusal here
leaves nothing behind whatever the launcher (joblib workers never start).
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from hydra.errors import HydraException
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from skillbench.agents.program import with_program_identity
from skillbench.config.secrets import config_credentials
from skillbench.config.secrets import refusal as secrets_refusal
from skillbench.core.errors import SkillbenchError
from skillbench.core.faults import exit_code, install_sigterm, stop_word, wait_for_children
from skillbench.core.money import usd
from skillbench.engine.budget import SWEEP_RUN_ENV
from skillbench.plan.outcome import continue_hint, sweep_outcome
from skillbench.report.callback import ReportCallback, build_command, one_line, report_failure, report_written
from skillbench.store.finished import move_aside, refusal, run_conflict, sweep_conflict
from skillbench.store.ownership import FolderBusy, FolderClaim, claim

# The app imports this module at start-up (`--help` included). What composes, preflights and estimates jobs loads
# the benchmark and tools code and the MCP types (plan.sweep, plan.preflight, plan.estimate: ~0.3-0.4 s each, `python
# -X importtime`): imported inside the functions that run them.
if TYPE_CHECKING:
    from skillbench.plan.sweep import PlannedJob

# The sweep size, for "job k of N" in each job's progress (inherited by launcher workers).
SWEEP_JOBS_ENV = "SKILLBENCH_SWEEP_JOBS"
SWEEP_STARTED_ENV = "SKILLBENCH_SWEEP_STARTED"  # epoch seconds, for the sweep's ETA


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


T = TypeVar("T")


def _expanded(expand: Callable[[DictConfig], list[T]], master: DictConfig) -> list[T]:
    """The sweep's jobs (or their overrides); one line and exit 2 when the sweep cannot be expanded: a value that
    is not a valid choice (a typo, a glob matching nothing), or one Hydra cannot sweep (interval(0,1))."""
    from skillbench.plan.sweep import composition_problem  # see the imports

    try:
        return expand(master)
    except SkillbenchError as exc:
        _refuse([str(exc)])
    except (HydraException, OmegaConfBaseException) as exc:
        _refuse([composition_problem(exc)])


def _refuse(problems: list[str]) -> NoReturn:
    from skillbench.plan.preflight import refusal as preflight_refusal  # see the imports

    for line in preflight_refusal(problems):
        _say(f"skillbench: {line}")
    sys.exit(2)


def _guarded(step: Callable[[], None]) -> None:
    """Hydra turns an exception in a callback into a warning and runs the job anyway: a safety step that fails in an
    unexpected way refuses the run instead (one line, exit 2), never lets it write unguarded."""
    try:
        step()
    except Exception as exc:
        _refuse([f"could not check the output folder ({type(exc).__name__}: {exc}); nothing was run. Fix: choose "
                 "another folder (hydra.run.dir=... or hydra.sweep.dir=...), or report this as a bug."])


def _refuse_credentials(master: DictConfig) -> None:
    """A credential anywhere in the composed config (a YAML file, an experiment preset, a sweep parameter, an
    interpolated environment variable; Hydra's own node with its overrides and env_set) is refused before Hydra
    writes or prints a single value."""
    found = config_credentials(master)
    if found:
        _refuse([secrets_refusal(found, "in the configuration")])


# The sweep this process runs (set when it starts): where an interrupted sweep's report goes.
_ACTIVE_SWEEP: dict[str, Any] = {}


def owned_folder() -> str | None:
    """The run or sweep folder this process owns (named when a write of Hydra's own fails on a full disk)."""
    return _ACTIVE_SWEEP.get("owned")


def end_interrupted(exc: KeyboardInterrupt) -> NoReturn:
    """Ctrl-C or SIGTERM reached the sweep's (or run's) own process: wait for the workers to keep their finished rows,
    write the sweep's report over what finished, print how it ended and the command that continues it, exit 130/143.
    Whatever happens meanwhile (the report cannot be built in this process, another Ctrl-C), it ends in lines that
    say what is kept and the commands that build the report and continue: never a traceback."""
    sweep_dir = _ACTIVE_SWEEP.get("dir")
    try:
        _end_interrupted(exc, sweep_dir)
    except KeyboardInterrupt:  # interrupted again while ending: say what is kept, at once
        report = ""
        if sweep_dir is not None and _ACTIVE_SWEEP.get("report", True):
            report = f" Build its report with: {build_command(Path(sweep_dir))}."
        _say(f"skillbench: {stop_word(exc)}; finished work is kept.{report} {continue_hint(budget=False)}")
    sys.exit(exit_code(exc))


def _end_interrupted(exc: KeyboardInterrupt, sweep_dir: str | None) -> None:
    """The interrupted end's lines: the sweep's report when it can be built here, else the command that builds it."""
    wait_for_children()
    if sweep_dir is None or not Path(sweep_dir).is_dir():
        _say(f"skillbench: {stop_word(exc)} before any job finished; nothing was lost. {continue_hint(budget=False)}")
        return
    kept = "finished work is kept"
    if _ACTIVE_SWEEP.get("report", True):
        written = ReportCallback()._build(Path(sweep_dir))
        kept += (" (the report covers the finished jobs)" if written
                 else f"; build the report over the finished jobs with: {build_command(Path(sweep_dir))}")
    outcome = sweep_outcome(Path(sweep_dir), float(_ACTIVE_SWEEP.get("max_infra_error_share", 0.5)),
                            planned=int(os.environ.get(SWEEP_JOBS_ENV) or 0))
    _say(f"skillbench: {outcome.line}")
    _say(f"skillbench: sweep {stop_word(exc)}; {kept}. {continue_hint(budget=False)}")


class PlanCallback(Callback):
    """``on_run_start``/``on_multirun_start``: preflight (``run.preflight``) and dry run (``run.dry_run``)."""

    def __init__(self, **kwargs: Any) -> None:
        self.options = kwargs

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        _refuse_credentials(config)
        jobs = self._check(config)
        _guarded(lambda: self._own(config, jobs, multirun=False))

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        if getattr(self, "_claim", None) is not None:
            self._claim.release()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._sweep_dir = OmegaConf.select(config, "hydra.sweep.dir")  # resolved now, as the launcher will
        _refuse_credentials(config)
        jobs = self._check(config)
        _guarded(lambda: self._own(config, jobs, multirun=True))
        install_sigterm(forward=True)  # as Ctrl-C reaches every worker from the terminal, SIGTERM is passed on
        _ACTIVE_SWEEP.update(
            dir=self._sweep_dir,
            report=bool(OmegaConf.select(config, "hydra.callbacks.report.enabled", default=True)),
            max_infra_error_share=OmegaConf.select(config, "run.max_infra_error_share", default=0.5),
        )
        os.environ[SWEEP_STARTED_ENV] = str(time.time())
        os.environ[SWEEP_RUN_ENV] = uuid.uuid4().hex  # this run's budget files; an earlier run's are not its spend

    def _own(self, master: DictConfig, jobs: list[PlannedJob] | None, *, multirun: bool) -> None:
        """Own the run's or sweep's folder before Hydra writes into it: refused (one line, exit 2, nothing written)
        when a live process owns it, or when it holds finished results of another configuration (moved aside
        instead with run.overwrite=true). Whatever the launcher: the sweep's own jobs write under this owner."""
        option = "hydra.sweep.dir" if multirun else "hydra.run.dir"
        folder = Path(str(OmegaConf.select(master, option)))
        kind = "sweep" if multirun else "run"
        sweep_size = (int(os.environ.get(SWEEP_JOBS_ENV) or 0) or None) if multirun else None

        def own() -> FolderClaim:
            try:
                return claim(folder, kind, option=option, planned=sweep_size)
            except FolderBusy as exc:
                _refuse([str(exc)])
            except OSError as exc:
                _refuse([f"cannot write the output folder {folder}: {exc.strerror or exc}. Fix: free space or fix its "
                         f"permissions, or choose another folder ({option}=<folder>)."])

        owned = own()
        if not owned.created:
            if jobs is None:  # the preflight was skipped: compose the jobs to compare them with what is there
                from skillbench.plan.sweep import compose_jobs, plan_jobs  # see the imports

                jobs = plan_jobs(_expanded(compose_jobs, master))
            # Compared as the job will run it: what the job fills in at its start (the program's source hash) is part
            # of its stored config.json, so a rerun of the same program must carry it too.
            planned = [None if job.cfg is None else with_program_identity(job.cfg) for job in jobs]
            problem = sweep_conflict(folder, planned) if multirun else run_conflict(folder, planned[0])
            if problem:
                if not OmegaConf.select(master, "run.overwrite", default=False):
                    owned.abandon()
                    _refuse([refusal(problem, option=option)])
                aside = move_aside(folder)
                owned.release()
                owned = own()
                _say(f"skillbench: run.overwrite=true: the earlier results in {folder} were moved to {aside} "
                     "(nothing deleted).")
        self._claim = owned
        _ACTIVE_SWEEP["owned"] = str(folder)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Listed before the report callback, so (end hooks run in reverse) this runs after the report."""
        try:
            self._sweep_end(config)
        finally:
            if getattr(self, "_claim", None) is not None:
                self._claim.release()

    def _sweep_end(self, config: DictConfig) -> None:
        sweep_dir = Path(str(getattr(self, "_sweep_dir", None) or config.hydra.sweep.dir))
        if not sweep_dir.is_dir():
            return
        budget = OmegaConf.select(config, "run.budget_usd", default=None)
        outcome = sweep_outcome(
            sweep_dir, float(OmegaConf.select(config, "run.max_infra_error_share", default=0.5)),
            planned=int(os.environ.get(SWEEP_JOBS_ENV) or 0), budget_usd=None if budget is None else float(budget),
        )
        _say(f"skillbench: {outcome.line}")
        if outcome.budget_stopped:
            report = ("the report above covers the finished jobs" if report_written(sweep_dir) else
                      f"build the report over the finished jobs with: {build_command(sweep_dir)}")
            _say(f"skillbench: budget reached; finished work is kept ({report}). {continue_hint(budget=True)}")
        failure = report_failure(sweep_dir)
        if failure is not None:  # the jobs' results are kept; the sweep did not end as asked all the same
            _say(f"skillbench: the sweep's report was not built ({one_line(failure)}); the jobs' results are kept. "
                 f"Fix it, then build the report with: {build_command(sweep_dir)}")
        code = outcome.exit_code or (0 if failure is None else 2 if isinstance(failure, SkillbenchError) else 1)
        if code:
            sys.exit(code)

    def _check(self, master: DictConfig) -> list[PlannedJob] | None:
        """The preflight and the dry run; the planned jobs (None when the preflight is off)."""
        dry_run = bool(OmegaConf.select(master, "run.dry_run", default=False))
        preflight = bool(OmegaConf.select(master, "run.preflight", default=True))
        multirun = "MULTIRUN" in str(OmegaConf.select(master, "hydra.mode"))
        if not (dry_run or preflight):
            if multirun:  # even unchecked, a sweep of 0 jobs is refused here, before Hydra makes its folder
                self._count_jobs(master)
            return None
        from skillbench.plan.preflight import preflight_problems  # see the imports
        from skillbench.plan.sweep import compose_jobs, plan_jobs

        started = time.perf_counter()
        composed = _expanded(compose_jobs, master)
        real = any(job.cfg is not None and not _simulated(job.cfg) for job in composed)
        if (multirun or real) and sys.stderr.isatty():  # said at once to a person; logs stay one line per problem
            _say(f"skillbench: checking {len(composed)} job(s) before the first call"
                 f"{' (dry run)' if dry_run else ''}...")
        jobs = plan_jobs(composed)
        os.environ[SWEEP_JOBS_ENV] = str(len(jobs))
        if dry_run:
            self._dry_run(jobs, master)
        problems = preflight_problems(
            jobs, probe_timeout_s=float(OmegaConf.select(master, "run.probe_timeout_s", default=3.0)),
        )
        if problems:
            _refuse(problems)
        if real:
            self._announce(jobs, master, time.perf_counter() - started)
        return jobs

    @staticmethod
    def _count_jobs(master: DictConfig) -> None:
        """The sweep's size for "job k of N" (refused when it has no job), without composing any job."""
        from skillbench.plan.sweep import sweep_overrides  # see the imports

        os.environ[SWEEP_JOBS_ENV] = str(len(_expanded(sweep_overrides, master)))

    @staticmethod
    def _outputs(master: DictConfig) -> Path:
        root = OmegaConf.select(master, "store.root", default="outputs/store")
        return Path(str(root)).parent

    def _dry_run(self, jobs: list[PlannedJob], master: DictConfig) -> None:
        from skillbench.plan.estimate import estimate_run, format_estimate  # see the imports
        from skillbench.plan.preflight import job_problems, jobs_models, routing_problems

        # A dry run still refuses what no run could do (a bad config, benchmark or model string); keys and
        # servers are not needed.
        problems = job_problems(jobs) + routing_problems(jobs_models(jobs))
        if problems:
            _refuse(problems)
        print(format_estimate(estimate_run(jobs, self._outputs(master))), flush=True)
        _say("skillbench: dry run: nothing was called and no folder was written.")
        sys.exit(0)

    def _announce(self, jobs: list[PlannedJob], master: DictConfig, checked_s: float) -> None:
        """The estimate's total, printed before any paid call; a model litellm cannot price is said plainly,
        since its calls count as $0 in the recorded cost and the budget."""
        from skillbench.plan.estimate import (  # see the imports
            ROLE_CONFIG_KEYS,
            SLOW_LIMIT_H,
            estimate_run,
            limit_lines,
        )

        estimate = estimate_run(jobs, self._outputs(master))
        budget = OmegaConf.select(master, "run.budget_usd", default=None)
        unpriced = [line for line in estimate.models if line.cost_usd is None]
        _say(
            f"skillbench: preflight passed in {checked_s:.1f} s: {len(jobs)} job(s), about {estimate.calls:,} model "
            f"calls, about {usd(estimate.cost_usd)}" + (" for the priced models" if unpriced else "")
            + (f" (budget {usd(float(budget))})" if budget is not None else " (no budget: set run.budget_usd)")
            + ". Details: add run.dry_run=true."
        )
        for line in limit_lines(estimate, at_least_h=SLOW_LIMIT_H):  # a queue that drains slowly is said up front
            _say(f"skillbench: note: {line}: the run takes at least that long (docs/paid-runs.md 'Rate limits').")
        for line in unpriced:
            keys = [ROLE_CONFIG_KEYS.get(role, role) for role in line.roles]
            stake = ("run.budget_usd cannot stop its spend" if budget is not None
                     else "the estimate, the progress and the reports leave its spend out")
            _say(
                f"skillbench: warning: litellm has no price for {line.model} ({', '.join(keys)}), so its calls count "
                f"as $0 and {stake}. Fix: give it litellm prices in dollars per token, e.g. "
                f"+{keys[0]}.params.input_cost_per_token=3e-06 +{keys[0]}.params.output_cost_per_token=1.5e-05 "
                "(litellm bills every call with them), or accept that its spend is not counted."
            )



def _simulated(cfg: DictConfig) -> bool:
    roles = [OmegaConf.select(cfg, f"{role}.simulated", default=False) for role in ("agent", "judge", "user_sim")]
    return all(bool(r) for r in roles) and OmegaConf.select(cfg, "mock.response_mode", default="stateful") != "llm"
