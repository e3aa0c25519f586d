"""Progress of a job (and of its sweep): conversations done, rate, ETA, calls per role, cost, errors.

Calls, tokens and cost move with every model call: the model clients report each request to
:meth:`Progress.observe` as it ends (an observer handed down, so the models layer never imports this
one). Conversations, cache hits and error counts move when a conversation finishes.

Two displays of the same counters: on a terminal, a live ``rich`` panel (a bar for the sweep, one for
the job, and a line of counters) redrawn a few times a second; anywhere else (CI, pipes, tests, log
files) one plain log line every ``run.progress_interval_s``, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from skillbench.core.errors import SkillbenchError
from skillbench.core.money import usd
from skillbench.core.records import ROLES, Usage
from skillbench.engine.inflight import in_flight

log = logging.getLogger("skillbench.progress")


class BudgetReached(SkillbenchError):
    """The job (or its sweep) spent ``run.budget_usd``; finished rows are kept, the rest did not start."""

    def __init__(self, spent_usd: float, budget_usd: float, done: int, total: int, *, stopped_in_flight: int = 0,
                 sweep_spent_usd: float | None = None, abandoned_calls: int = 0, reached_at: float | None = None,
                 sent_after_cap: int = 0) -> None:
        stopped = f"; {stopped_in_flight} in flight stopped (unfinished)" if stopped_in_flight else ""
        super().__init__(f"budget reached: {usd(spent_usd)} spent of {usd(budget_usd)}; {done} of {total} "
                         f"conversations finished{stopped}{abandoned_note(abandoned_calls)}")
        self.spent_usd, self.budget_usd, self.done, self.total = spent_usd, budget_usd, done, total
        self.stopped_in_flight = stopped_in_flight
        self.sweep_spent_usd = spent_usd if sweep_spent_usd is None else sweep_spent_usd
        self.abandoned_calls = abandoned_calls  # requests cancelled in flight, counted at their estimated price
        self.reached_at = reached_at  # epoch seconds (None: the next conversation did not fit)
        self.sent_after_cap = sent_after_cap  # requests sent after another process's job of the sweep found the cap


def abandoned_note(calls: int) -> str:
    """'; 3 requests cancelled in flight are counted (a provider bills them: priced from their size)'."""
    if not calls:
        return ""
    return (f"; {calls} request(s) cancelled in flight are counted in the spend (a provider bills them; priced from "
            "their size)")


@dataclass(frozen=True)
class SweepPosition:
    """Where a job stands in its sweep: ``index`` of ``total`` (1-based), and when the sweep started."""

    index: int
    total: int | None = None
    started: float | None = None  # epoch seconds (time.time()), shared by launcher workers

    def eta_s(self, current: float = 0.0) -> float | None:
        """Seconds the rest of the sweep should take, from the mean time of the jobs done so far; ``current``
        is the share of this job already done (so a long first job has an ETA too). Rough: a judge's job
        that reuses its agent's conversations is much shorter than the agent's first job."""
        done = self.index - 1 + current
        if not (self.total and self.started and done > 0):
            return None
        return (time.time() - self.started) / done * (self.total - done)

    def label(self) -> str:
        """'job 3 of 85 (sweep ETA 42 min): ', the prefix of every plain progress line."""
        if not self.total:
            return f"job {self.index}: "
        eta = self.eta_s()
        return f"job {self.index} of {self.total}" + (f" (sweep ETA {eta / 60:.0f} min)" if eta is not None else "") + ": "


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "--"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _count(value: int) -> str:
    return f"{value / 1e6:.1f}M" if value >= 1e6 else f"{value / 1e3:.1f}k" if value >= 1e4 else str(value)


@dataclass
class Progress:
    total: int
    done: int = 0
    infra_errors: int = 0
    judge_errors: int = 0
    model_errors: int = 0
    rollouts_done: int = 0  # conversations had or reused (their judging may still run)
    rollout_s: float = 0.0  # seconds spent obtaining them, summed
    judge_s: float = 0.0  # seconds spent judging the finished ones, summed
    usage: dict[str, Usage] = field(default_factory=lambda: {role: Usage() for role in ROLES})
    """Usage of the finished conversations (as their rows record it: reused work counts as cache hits)."""
    live: dict[str, Usage] = field(default_factory=lambda: {role: Usage() for role in ROLES})
    """Every request made so far, as it ended (conversations in flight included)."""
    started: float = field(default_factory=time.perf_counter)
    budget_usd: float | None = None
    label: str = ""  # "job 3 of 85: " in a sweep
    sweep: SweepPosition | None = None
    title: str = ""  # "agent=gpt5 judge=gemini2_5_pro", shown on the live display
    endpoints: Any = None  # () -> per-endpoint limiter figures (ClientPool.endpoint_stats), shown when throttled
    on_observe: Any = None  # () -> None after every request (the budget guard: engine/budget.py)

    def observe(self, role: str, usage: Usage) -> None:
        """One request ended (``ClientPool`` observer): calls, tokens and cost move now."""
        self.live[role] = self.live.get(role, Usage()).add(usage)
        if self.on_observe is not None and usage.cost_usd:
            self.on_observe()

    def rollout_finished(self, seconds: float) -> None:
        """A conversation is had (or reused); its judging comes next (the ETA counts both stages)."""
        self.rollouts_done += 1
        self.rollout_s += seconds

    def record(self, usage: dict[str, Usage], *, infra_error: bool, judge_error: bool, model_error: bool = False,
               judge_s: float = 0.0) -> None:
        self.done += 1
        self.judge_s += judge_s
        self.infra_errors += infra_error
        self.judge_errors += judge_error
        self.model_errors += model_error
        for role, value in usage.items():
            self.usage[role] = self.usage.get(role, Usage()).add(value)

    @property
    def cost_usd(self) -> float:
        """Dollars spent so far: every answered request, including those of conversations still running."""
        return max(sum(u.cost_usd for u in self.live.values()), sum(u.cost_usd for u in self.usage.values()))

    @property
    def calls(self) -> dict[str, int]:
        """Requests answered per role so far (per call; falls back to finished rows when nothing was observed)."""
        live = {role: u.calls for role, u in self.live.items()}
        if not any(live.values()):
            return {role: u.calls for role, u in self.usage.items()}
        return live

    def over_budget(self) -> bool:
        """True once what was spent reaches the budget (conversations in flight still finish)."""
        return self.budget_usd is not None and self.cost_usd >= self.budget_usd

    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started

    def eta_s(self) -> float | None:
        """Seconds left, from the share of the work done: each conversation is a rollout then its judging, weighed
        by their mean observed seconds (a stage not seen yet weighs as much as the other). A job whose rollouts are
        all done and only judging remains gets a short ETA, not one extrapolated from judged conversations only."""
        elapsed = self.elapsed_s()
        rolled = max(self.rollouts_done, self.done)
        if not rolled or self.done >= self.total or elapsed <= 0:
            return None
        per_rollout = self.rollout_s / rolled
        per_judging = self.judge_s / self.done if self.done else None
        if per_judging is None or per_judging <= 0:
            per_judging = per_rollout if per_rollout > 0 else 1.0
        if per_rollout <= 0:
            per_rollout = per_judging
        share = (rolled * per_rollout + self.done * per_judging) / (self.total * (per_rollout + per_judging))
        return elapsed * (1 - share) / share if share > 0 else None

    def line(self) -> str:
        elapsed = self.elapsed_s()
        calls = self.calls
        hits = sum(u.cache_hits for u in self.usage.values())
        per_role = " ".join(f"{role}={n}" for role, n in calls.items() if n)
        rate = self.done / elapsed * 60 if elapsed > 0 else 0.0
        eta = self.eta_s()
        budget = f" of {usd(self.budget_usd)}" if self.budget_usd is not None else ""
        return (
            f"{self.label}{self.done}/{self.total} conversations | {rate:.1f}/min {'' if eta is None else f'ETA {eta:.0f}s'} "
            f"| LLM calls {sum(calls.values())} ({per_role or 'none yet'}) | cache hits {hits} | ${self.cost_usd:.4f}{budget} | "
            f"errors: {self._errors()} | {elapsed:.1f}s" + (f" | {limits}" if (limits := self.limits()) else "")
        ).replace("  ", " ")

    def _errors(self) -> str:
        failed = sum(u.failed_attempts for u in self.live.values())
        text = f"infra {self.infra_errors}, judge {self.judge_errors}"
        if self.model_errors:
            text += f", model {self.model_errors}"
        return text + (f", failed requests {failed}" if failed else "")

    def limits(self) -> str:
        """'limits: gpt-5 8/16 500 req/min 30,000 tok/min, 429s 12, waited 30s' for the rate-limit scopes that have
        a rate in force (configured or stated by the provider), throttled or made calls wait; empty otherwise."""
        try:
            endpoints = self.endpoints() if self.endpoints is not None else []
        except Exception:  # a display problem never fails the job
            return ""
        parts = [f"{e['endpoint'].split(' @ ')[0]} {e['limit']:g}/{e['ceiling']}{_rates(e)}, 429s {e['rate_limited']}, "
                 f"waited {e['waited_s']:.0f}s" for e in endpoints
                 if e["rate_limited"] or e["waited_s"] >= 1 or e.get("requests_per_minute") or e.get("tokens_per_minute")]
        return "limits: " + "; ".join(parts) if parts else ""

    async def report_every(self, interval_s: float) -> None:
        """Until cancelled: the live display on a terminal, else a log line every ``interval_s``."""
        log.info("%sstarting %d conversation(s)", self.label, self.total)
        with LiveDisplay(self).shown() if _terminal() else contextlib.nullcontext():
            while True:
                await asyncio.sleep(interval_s)
                log.info(self.line())  # on a terminal, only the log file gets it


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed, or not a file at all
        return False


def _rates(endpoint: dict[str, Any]) -> str:
    """' 600 req/min 30,000 tok/min': the rates in force of one scope (what is known of them)."""
    return "".join(f" {value:,.0f} {unit}/min" for value, unit in
                   ((endpoint.get("requests_per_minute"), "req"), (endpoint.get("tokens_per_minute"), "tok")) if value)


def _terminal() -> bool:
    """A person is watching stderr (a real terminal, not a pipe, file or CI log), and one job has it: jobs side by
    side in one process (hydra/launcher=inflight) each log plain lines, prefixed with the job's place in the sweep."""
    return _isatty(sys.stderr) and not in_flight()


class _DropProgressLines(logging.Filter):
    """On the terminal the live display replaces the periodic lines; log files keep them."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name != log.name


class LiveDisplay:
    """The terminal view of a :class:`Progress`: sweep bar, job bar, counters; redrawn 4 times a second."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def render(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        p = self.progress
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(width=30)
        grid.add_column()
        sweep = p.sweep
        if sweep is not None and sweep.total:
            grid.add_row(
                f"job {sweep.index} of {sweep.total}",
                ProgressBar(total=sweep.total, completed=sweep.index - 1, width=30),
                f"{sweep.index - 1}/{sweep.total} jobs done | sweep ETA {_duration(sweep.eta_s(p.done / max(p.total, 1)))}",
            )
        elapsed = p.elapsed_s()
        rate = p.done / elapsed * 60 if elapsed > 0 else 0.0
        grid.add_row(
            p.title or "job",
            ProgressBar(total=max(p.total, 1), completed=p.done, width=30),
            f"{p.done}/{p.total} conversations | {rate:.1f}/min | ETA {_duration(p.eta_s())} | {_duration(elapsed)} elapsed",
        )
        calls = p.calls
        live = p.live.values()
        tokens_in, tokens_out = sum(u.prompt_tokens for u in live), sum(u.completion_tokens for u in live)
        per_role = " ".join(f"{role}={n}" for role, n in calls.items() if n) or "none yet (loading model libraries and the MCP mock, then the first call)"
        budget = f" of {usd(p.budget_usd)}" if p.budget_usd is not None else ""
        grid.add_row("calls", f"{sum(calls.values())} model calls", f"{per_role} | tokens {_count(tokens_in)} in / {_count(tokens_out)} out")
        grid.add_row(
            "cost", f"${p.cost_usd:.4f}{budget}",
            f"cache hits {sum(u.cache_hits for u in p.usage.values())} | errors: {p._errors()}",
        )
        limits = p.limits()
        if limits:
            grid.add_row("limits", "adaptive per endpoint", limits.removeprefix("limits: "))
        return grid

    @contextlib.contextmanager
    def shown(self) -> Iterator[None]:
        from rich.console import Console
        from rich.live import Live

        console = Console(stderr=True)
        # Log lines written while the display is up (Hydra logs to stdout) go above it through rich, not
        # through it: terminal handlers are pointed at the proxies Live puts in place of stdout and stderr.
        before = {"stdout": sys.stdout, "stderr": sys.stderr}
        handlers = [
            (h, name) for h in logging.getLogger().handlers if type(h) is logging.StreamHandler
            for name, stream in before.items() if h.stream is stream and _isatty(stream)
        ]
        drop = _DropProgressLines()
        # stdout redirected to a file stays that file (rich would send its prints to the terminal).
        with Live(get_renderable=self.render, console=console, refresh_per_second=4,
                  redirect_stdout=_isatty(sys.stdout), redirect_stderr=True) as live:
            for handler, name in handlers:
                handler.setStream(getattr(sys, name))
                handler.addFilter(drop)
            try:
                yield
            finally:
                live.refresh()  # the final counts stay on screen
                for handler, name in handlers:
                    handler.removeFilter(drop)
                    handler.setStream(before[name])
