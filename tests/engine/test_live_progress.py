"""Progress as a person sees it: a live display on a terminal (run under a pseudo-terminal), counters per call."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

from skillbench.core.records import Usage
from skillbench.engine.progress import Progress, SweepPosition

REPO = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


def run_in_terminal(cwd: Path, *args: str, timeout: float = 300) -> tuple[int, str]:
    """``python -m skillbench ARGS`` with stdin, stdout and stderr on a pseudo-terminal; what it drew, escapes removed."""
    master, slave = pty.openpty()
    env = os.environ | {"COLUMNS": "200", "LINES": "50", "TERM": "xterm", "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "skillbench", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=cwd, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                break
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal (Linux reports EIO)
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        code = proc.wait(timeout=60)
    return code, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))


def test_a_sweep_on_a_terminal_draws_live_bars_and_counters(tmp_path: Path) -> None:
    code, screen = run_in_terminal(
        tmp_path, "benchmark.limit=1", "judge=sim_balanced,sim_lenient", "run.progress_interval_s=0.2", "-m"
    )
    assert code == 0, screen[-3000:]
    assert screen.startswith("skillbench: starting")  # said before the libraries load
    assert "job 1 of 2" in screen and "job 2 of 2" in screen and "1/2 jobs done" in screen and "sweep ETA" in screen
    assert "1/1 conversations" in screen and "/min" in screen and "ETA" in screen
    assert re.search(r"\d+ model calls +agent=\d+ user=\d+ judge=\d+ \| tokens \d+ in / \d+ out", screen), screen[-3000:]
    assert "$0.0000" in screen and "errors: infra 0, judge 0" in screen
    # The periodic plain lines are for log files, not for the terminal, where the display replaces them.
    progress_lines = [line for line in screen.splitlines() if "[skillbench.progress]" in line]
    assert progress_lines and all("starting 1 conversation(s)" in line for line in progress_lines), progress_lines
    logged = (next(tmp_path.glob("outputs/multirun/*/0_*")) / "skillbench.log").read_text()
    assert re.search(r"\[skillbench.progress\]\[INFO\] job 1 of 2: \d/1 conversations", logged), logged


def test_counters_move_per_call_before_a_conversation_finishes() -> None:
    progress = Progress(total=2, budget_usd=0.01, sweep=SweepPosition(index=3, total=85), label="job 3 of 85: ")
    progress.observe("agent", Usage(calls=1, prompt_tokens=100, completion_tokens=10, cost_usd=0.004))
    progress.observe("agent", Usage(failed_attempts=1))
    line = progress.line()
    assert line.startswith("job 3 of 85: 0/2 conversations") and "LLM calls 1 (agent=1)" in line
    assert "$0.0040 of $0.01" in line and "failed requests 1" in line
    progress.observe("judge", Usage(calls=1, cost_usd=0.006))
    assert progress.over_budget()  # the budget sees spend of conversations still running


def test_sweep_eta_counts_the_running_job() -> None:
    import time

    first = SweepPosition(index=1, total=4, started=time.time() - 100)
    assert first.eta_s() is None  # nothing done yet
    assert first.eta_s(current=0.5) is not None and 600 <= first.eta_s(current=0.5) <= 800  # half a job in ~100 s
    assert SweepPosition(index=3, total=4, started=time.time() - 100).eta_s() is not None


def test_the_eta_counts_judging_and_shrinks_when_only_judging_remains() -> None:
    # The probe's case: 3 slow conversations all had (~600 s each), one judged (~30 s), two judgings left.
    progress = Progress(total=3)
    progress.started -= 1800
    for _ in range(3):
        progress.rollout_finished(600.0)
    progress.record({}, infra_error=False, judge_error=True, judge_s=30.0)
    eta = progress.eta_s()
    assert eta is not None and eta < 120  # judged-only extrapolation said ~3,600 s
    # Before any judging the judging stage is weighed like a rollout: half the work is done, not all of it.
    fresh = Progress(total=2)
    fresh.started -= 100
    fresh.rollout_finished(100.0)
    assert fresh.eta_s() is not None and 250 <= (fresh.eta_s() or 0) <= 350


def test_throttled_endpoints_show_their_limiter_state_in_the_progress_line_and_the_live_display() -> None:
    from skillbench.engine.progress import LiveDisplay

    progress = Progress(total=4)
    progress.endpoints = lambda: [{"endpoint": "gpt-5 @ http://x", "limit": 4.5, "ceiling": 16, "rate_limited": 7,
                                   "waited_s": 12.0, "requests": 40}]
    assert "limits: gpt-5 4.5/16, 429s 7, waited 12s" in progress.line()
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(LiveDisplay(progress).render())
    assert "gpt-5 4.5/16, 429s 7, waited 12s" in console.export_text()
    progress.endpoints = lambda: [{"endpoint": "gpt-5", "limit": 8, "ceiling": 8, "rate_limited": 0, "waited_s": 0.0,
                                   "requests": 3}]
    assert "limits" not in progress.line()  # nothing to say while no endpoint throttles
