"""The Hydra entry point: ``python -m skillbench [overrides] [-m]``. Thin: validate, then run the job."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from skillbench.benchmark import load_benchmark, select_scenarios
from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config import RunConfig, validate_config
from skillbench.config.origin import ConfigOrigin
from skillbench.config.secrets import argument_credentials
from skillbench.config.secrets import refusal as secrets_refusal
from skillbench.core.errors import BenchmarkDataError, ConfigError, SkillbenchError
from skillbench.core.faults import Terminated, exit_code, install_sigterm, stop_word, storage_problem
from skillbench.core.money import usd
from skillbench.engine.budget import SWEEP_RUN_ENV, SweepSpend
from skillbench.engine.inflight import NOT_STARTED, DeferredJob, deferring
from skillbench.engine.progress import BudgetReached, SweepPosition, abandoned_note
from skillbench.engine.results import JOB_ERROR_FILE, SUMMARY_FILE, JobSummary
from skillbench.models.prompt_size import scenario_tokens
from skillbench.plan import completion
from skillbench.plan.callback import SWEEP_JOBS_ENV, SWEEP_STARTED_ENV, end_interrupted, owned_folder
from skillbench.plan.hydra_errors import argv_problem, sweep_note
from skillbench.plan.hydra_errors import install as install_hydra_errors
from skillbench.plan.outcome import (
    BENCHMARK_ERROR_EXIT,
    INTERRUPTED_FILE,
    STOPPED_FILE,
    UNSCORED_EXIT,
    continue_hint,
    job_benchmark_errors,
    job_failure,
    job_unscored,
)
from skillbench.plan.secret_guard import APP_CONFIG_NAME, APP_CONFIG_PATH, credential_problem
from skillbench.store import write_json_atomic
from skillbench.store.ownership import LOCK_FILE

log = logging.getLogger("skillbench")
install_hydra_errors(owned_folder)  # unknown option/key, bad override syntax: one line, exit 2

# Files Hydra writes into a folder before the job starts; removing only these never touches user data.
_HYDRA_FILES = (".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml", "skillbench.log", LOCK_FILE)


def _remove_hydra_leftovers(job_dir: Path, multirun: bool) -> None:
    """A job refused before it started leaves no output folder behind."""
    for name in _HYDRA_FILES:
        with contextlib.suppress(FileNotFoundError):
            (job_dir / name).unlink()
    for folder in (job_dir / ".hydra", job_dir):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only succeeds when empty
    if multirun:
        sweep_dir = job_dir.parent
        remaining = ([p for p in sweep_dir.iterdir() if p.name not in ("multirun.yaml", LOCK_FILE)]
                     if sweep_dir.is_dir() else [])
        if not remaining:
            for name in ("multirun.yaml", LOCK_FILE):
                with contextlib.suppress(FileNotFoundError):
                    (sweep_dir / name).unlink()
            with contextlib.suppress(OSError):
                sweep_dir.rmdir()


def check_credentials(cfg: RunConfig) -> None:
    """A provider without its key would fail every call; say so once, before anything runs (the preflight's
    rule: a vLLM-like server of your own may need no key, litellm's OpenAI client always needs one)."""
    from skillbench.plan.preflight import missing_keys, model_roles  # see main: not needed by `--help`

    missing = missing_keys(model_roles(cfg))
    if missing:
        role, model = missing[0]
        raise ConfigError(
            f"{role} '{model.name}' ({model.model}) needs the environment variable {model.api_key_env}. "
            f"Fix: export {model.api_key_env}=<your key>, or pick an offline model (e.g. {role.split('.')[0]}=sim_*)."
        )


def _refuse_oversized(cfg: RunConfig, benchmark: Benchmark, chosen: list[Scenario]) -> None:
    """A scenario too big for a role's prompt cap, refused by the job itself when the preflight (which refuses it for
    every job at once, plan/sweep.py plan_jobs) was turned off."""
    from skillbench.plan.sweep import oversized_problem  # see main: the benchmark and tools code

    too_big = oversized_problem(cfg, benchmark, [scenario_tokens(s, benchmark.skill_of(s)) for s in chosen])
    if too_big:
        raise ConfigError(too_big)


@hydra.main(version_base="1.3", config_path=APP_CONFIG_PATH, config_name=APP_CONFIG_NAME)
def main(cfg: DictConfig) -> float | None:
    # Imported here, not at the top: `--help` and refused configs never load the engine (litellm, the MCP SDK...).
    from skillbench.engine.job import run_job, run_job_async
    from skillbench.engine.names import check_registered_names, panel_problems

    install_sigterm()  # SIGTERM ends the job as Ctrl-C does (marker, resume line), also in launcher workers
    hydra_cfg = HydraConfig.get()
    job_dir = Path(hydra_cfg.runtime.output_dir)
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    try:
        origin = ConfigOrigin.of(hydra_cfg)  # errors name where a value was set: the command line, a file
        run_cfg = validate_config(cfg, origin=origin)
        check_registered_names(run_cfg, origin=origin)
        # A single run's panel is checked here too (run.preflight=false); a sweep's, across its jobs, by the preflight.
        panel = [] if multirun else panel_problems([run_cfg], sweep=False)
        if panel:
            raise ConfigError(panel[0])
        check_credentials(run_cfg)
        # Load and select the scenarios up front: a malformed data file is refused like a bad config.
        benchmark = load_benchmark(run_cfg.benchmark.source)
        chosen = select_scenarios(benchmark, run_cfg.benchmark)
        if not run_cfg.run.preflight:  # the preflight measured every selection once, before the first job
            _refuse_oversized(run_cfg, benchmark, chosen)
    except (ConfigError, BenchmarkDataError) as exc:
        for handler in logging.getLogger().handlers:
            handler.close()
        _remove_hydra_leftovers(job_dir, multirun)
        print(f"skillbench: {exc}", file=sys.stderr)
        sys.exit(2)
    for stale in (INTERRUPTED_FILE, STOPPED_FILE):  # a rerun into the same folder starts unmarked
        (job_dir / stale).unlink(missing_ok=True)
    sweep = _sweep_position(hydra_cfg) if multirun else None
    label = sweep.label() if sweep else ""
    started = _JobStart(run_cfg, job_dir, multirun, label, sweep)
    if deferring():  # hydra/launcher=inflight: it runs this job's core beside the sweep's other jobs
        return DeferredJob(  # type: ignore[return-value]
            start=started.start, conclude=started.conclude,
            core=lambda sweep_spend: run_job_async(run_cfg, job_dir, label, sweep, sweep_spend),
            abandon=lambda: _remove_hydra_leftovers(job_dir, multirun=False))
    sweep_spend = started.start()
    if sweep_spend is NOT_STARTED:
        return None
    return started.conclude(lambda: run_job(run_cfg, job_dir, label, sweep, sweep_spend,
                                            on_signal=started.mark_terminated, last_words=started.forced_exit))


@dataclass
class _JobStart:
    """A validated job from its start to its outcome: the two halves around the engine's core, shared by the
    launchers that run one job at a time and by hydra/launcher=inflight, which runs many cores in one event loop."""

    run_cfg: RunConfig
    job_dir: Path
    multirun: bool
    label: str
    sweep: SweepPosition | None
    _marker_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _marker_final: bool = field(default=False, repr=False)

    def start(self) -> Any:
        """The rest of this run of the sweep, whose spend counts against the budget (None without a budget), or
        NOT_STARTED: this run has spent the budget (or the budget stopped one of its jobs), and this job leaves no
        folder. Only this run's spend counts: what an earlier run of the sweep left in its folders is not read."""
        budget, job_dir = self.run_cfg.run.budget_usd, self.job_dir
        if budget is None or not self.multirun:
            return None
        sweep_spend = SweepSpend(job_dir.parent, job_dir, os.environ.get(SWEEP_RUN_ENV, ""))
        if budget - sweep_spend.spent() <= 0 or sweep_spend.stopped():
            # (its log handlers stay open on the removed file: Hydra still logs the next job's start through them)
            _remove_hydra_leftovers(job_dir, multirun=False)
            return NOT_STARTED
        return sweep_spend

    def mark_terminated(self) -> None:
        """The marker, written the moment SIGTERM arrives (engine/signals.py): a scheduler's SIGKILL may follow
        before the job has unwound, and the folder must say "stopped" then too. The job's end rewrites it."""
        with self._marker_lock:
            if not self._marker_final:
                _keep_stopped(self.job_dir, INTERRUPTED_FILE, {"reason": "terminated", "signal": "SIGTERM"})

    def _sealed(self, outcome: Callable[[], JobSummary]) -> JobSummary:
        """``outcome()``, after which SIGTERM's early marker is no longer written, and is taken back unless the job
        was stopped (a job that finished as SIGTERM arrived is finished; one that failed says so itself)."""
        stopped = False
        try:
            return outcome()
        except KeyboardInterrupt:
            stopped = True
            raise
        finally:
            with self._marker_lock:
                self._marker_final = True
                if not stopped:  # a marker here is SIGTERM's early one: the job's start removed any older marker
                    (self.job_dir / INTERRUPTED_FILE).unlink(missing_ok=True)

    def forced_exit(self) -> None:
        """SIGTERM's last words when guest code kept the job from stopping in time (engine/signals.py): the
        marker and the line a normal stop writes; the process then ends with 143."""
        record = {"reason": "terminated", "signal": "SIGTERM", "forced": True}
        with self._marker_lock:
            self._marker_final = True
            rows = _keep_stopped(self.job_dir, INTERRUPTED_FILE, record)
        print(f"skillbench: {self.label}terminated (SIGTERM); the job did not stop within a few seconds (code that "
              f"is not skillbench's kept it busy), so the process ended at once; {rows} finished row(s) kept in "
              f"{self.job_dir}. {continue_hint(budget=False)}", file=sys.stderr, flush=True)

    def conclude(self, outcome: Callable[[], JobSummary]) -> float | None:
        """The job's end from ``outcome()`` (its summary, or what it raised): markers, lines, exit codes."""
        run_cfg, job_dir, multirun, label = self.run_cfg, self.job_dir, self.multirun, self.label
        budget = run_cfg.run.budget_usd
        try:
            summary = self._sealed(outcome)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (core/faults.py Terminated): the same path
            record = {"reason": exc.reason if isinstance(exc, Terminated) else "interrupted",
                      "signal": exc.signal_name if isinstance(exc, Terminated) else "SIGINT"}
            if not multirun:
                _stopped(job_dir, INTERRUPTED_FILE, record, stop_word(exc), exit_code(exc))
            rows = _keep_stopped(job_dir, INTERRUPTED_FILE, record)
            print(f"skillbench: {label}{stop_word(exc)}; {rows} finished row(s) kept in {job_dir}", file=sys.stderr,
                  flush=True)
            raise  # the sweep's own process ends the sweep: its report over what finished, the resume line
        except BudgetReached as exc:
            record = {"reason": "budget", "spent_usd": exc.spent_usd, "budget_usd": exc.budget_usd, "done": exc.done,
                      "total": exc.total, "stopped_in_flight": exc.stopped_in_flight, "sweep_spent_usd": exc.sweep_spent_usd,
                      "abandoned_calls": exc.abandoned_calls, "reached_at": exc.reached_at,
                      "sent_after_cap": exc.sent_after_cap}
            if not multirun:
                _stopped(job_dir, STOPPED_FILE, record, str(exc), 3, budget=True)
            # In a sweep the job returns, so Hydra goes on to the sweep's end (its summary line, its report, exit 3);
            # the jobs after it do not start.
            rows = _keep_stopped(job_dir, STOPPED_FILE, record)
            assert budget is not None
            print(f"skillbench: {label}budget reached: the sweep has spent "
                  f"{usd(exc.sweep_spent_usd)} of {usd(budget)} ({usd(exc.spent_usd)} in this job); "
                  f"{exc.done} of {exc.total} conversations finished"
                  + (f", {exc.stopped_in_flight} in flight stopped (unfinished)" if exc.stopped_in_flight else "")
                  + abandoned_note(exc.abandoned_calls) + f"; {rows} finished row(s) kept in {job_dir}; "
                  "the rest of the sweep does not start.", file=sys.stderr, flush=True)
            return None
        except ConfigError as exc:  # a configuration mistake found only mid-run (a program's unknown model name)
            return _job_failed(job_dir, exc, multirun, user_error=True, code=2)
        except SkillbenchError as exc:
            return _job_failed(job_dir, exc, multirun, user_error=True)
        except Exception as exc:  # a crash in one job must not stop the sweep or its report
            if storage_problem(exc):
                return _storage_failed(job_dir, exc, multirun, label, run_cfg.store.root)
            return _job_failed(job_dir, exc, multirun, user_error=False)
        _report_outcome(summary, run_cfg, job_dir, multirun)
        return summary.pass_rate


def _sweep_position(hydra_cfg: DictConfig) -> SweepPosition:
    """This job's place in the sweep, from its number and the size and start the plan callback recorded."""
    total = os.environ.get(SWEEP_JOBS_ENV)
    started = float(os.environ.get(SWEEP_STARTED_ENV, "0") or 0)
    return SweepPosition(index=int(hydra_cfg.job.num) + 1, total=int(total) if total else None, started=started or None)


def _keep_stopped(job_dir: Path, marker: str, record: dict) -> int:
    """A job stopped on purpose: finished rows stay in results.jsonl, a marker says why; the rows kept."""
    rows = sum(1 for _ in (job_dir / "results.jsonl").open()) if (job_dir / "results.jsonl").exists() else 0
    write_json_atomic(job_dir / marker, {**record, "rows_kept": rows})
    return rows


def _stopped(job_dir: Path, marker: str, record: dict, message: str, code: int, *, budget: bool = False) -> None:
    """A run stopped on purpose: its rows and marker kept, the command that continues it printed, exit ``code``."""
    rows = _keep_stopped(job_dir, marker, record)
    print(f"skillbench: {message}; {rows} finished row(s) kept in {job_dir}. {continue_hint(budget=budget)}",
          file=sys.stderr, flush=True)
    sys.exit(code)


def _report_outcome(summary: JobSummary, cfg: RunConfig, job_dir: Path, multirun: bool) -> None:
    """A job that scored nothing or is mostly infrastructure errors is a failure, not a result."""
    failure = job_failure(summary.model_dump(mode="json"), cfg.run.max_infra_error_share)
    cost = f", ${summary.cost_usd:.4f}" if summary.cost_usd else ""
    log.info("%s (%d model calls%s). Report: skillbench report %s", job_dir, summary.llm_calls, cost, job_dir)
    broken = job_benchmark_errors(summary.model_dump(mode="json"), job_dir)
    if broken and not multirun:  # the benchmark's own fault first: named apart from the agent's and the endpoints'
        print(f"skillbench: finished with {broken}", file=sys.stderr)
        sys.exit(BENCHMARK_ERROR_EXIT)
    if failure and not multirun:  # a sweep goes on; its end says which jobs failed and exits non-zero
        print(f"skillbench: job failed: {failure}", file=sys.stderr)
        sys.exit(1)
    unscored = job_unscored(summary.model_dump(mode="json"))
    if unscored and not multirun:  # a result, but not a whole one: say so, and how to complete it
        print(f"skillbench: finished with {unscored}. {continue_hint(budget=False)}", file=sys.stderr)
        sys.exit(UNSCORED_EXIT)


def _storage_failed(job_dir: Path, exc: BaseException, multirun: bool, label: str, store_root: str) -> None:
    """The disk is full or not writable: one line naming the folder and the fix (no traceback flood), job_error.json
    when anything can still be written, the finished rows left as they are."""
    problem = storage_problem(exc, (str(job_dir), store_root)) or str(exc)
    logging.raiseExceptions = False  # the log file is on that disk too: its own write errors add nothing
    with contextlib.suppress(OSError):
        write_json_atomic(job_dir / JOB_ERROR_FILE, {"error": problem, "type": "StorageError", "traceback": None})
    try:
        rows = sum(1 for line in (job_dir / "results.jsonl").open("rb") if line.endswith(b"\n"))
    except OSError:
        rows = 0
    print(f"skillbench: {label}{problem}. {rows} finished row(s) kept in {job_dir}.", file=sys.stderr, flush=True)
    if not multirun:
        sys.exit(1)


def _job_failed(job_dir: Path, exc: BaseException, multirun: bool, *, user_error: bool, code: int = 1) -> None:
    """Record why the job failed; a sweep goes on (and its report lists the job as missing)."""
    write_json_atomic(
        job_dir / JOB_ERROR_FILE,
        {"error": str(exc), "type": type(exc).__name__, "traceback": None if user_error else traceback.format_exc()},
    )
    (job_dir / SUMMARY_FILE).unlink(missing_ok=True)
    if user_error:
        log.error("%s", exc)
    else:
        log.exception("job failed")
    if not multirun:
        print(f"skillbench: {exc}", file=sys.stderr)
        sys.exit(code)
    return None


def shell_completion() -> None:
    """``-sc install=bash``: print the completion script for both entry points and exit; ``-sc query=bash``:
    let Hydra answer for the overrides after ``python -m skillbench`` or ``skillbench run``."""
    script = completion.handle(sys.argv[1:])
    if script is not None:
        print(script, end="", flush=True)
        sys.exit(0)


def check_command_line(prog: str = "python -m skillbench") -> None:
    """Before Hydra parses the command line: a bad one is one line with the fix, exit 2 (Hydra prints its usage
    or a traceback); ``--cfg`` on a sweeping config gets a note saying what the sweep replaces."""
    problem = argv_problem(sys.argv[1:], prog)
    credentials = argument_credentials(sys.argv[1:])
    if credentials:  # refused before Hydra echoes or saves any override
        problem = secrets_refusal(credentials, "on the command line")
    if not problem:  # a key in the config it composes: refused before Hydra prints (--cfg, --info...) or runs it
        problem = credential_problem(sys.argv[1:])
    if problem:
        print(f"skillbench: {problem}", file=sys.stderr)
        sys.exit(2)
    note = sweep_note(sys.argv[1:], prog)
    if note:
        print(f"skillbench: {note}", file=sys.stderr, flush=True)


def main_argv(argv: list[str]) -> int:
    """``skillbench run ...``: the same as ``python -m skillbench ...``."""
    sys.argv = [sys.argv[0] if sys.argv else "skillbench", *argv]
    shell_completion()
    check_command_line("skillbench run")
    run_app()
    return 0


def run_app() -> None:
    """The Hydra app; Ctrl-C or SIGTERM that ends a sweep (or a run before its job started) ends it honestly: every
    job keeps its finished rows, the sweep's report covers what finished, one line says how to continue."""
    try:
        main()
    except KeyboardInterrupt as exc:
        end_interrupted(exc)


if __name__ == "__main__":
    shell_completion()
    check_command_line()
    run_app()
