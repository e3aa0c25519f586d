"""Hostile and careless guests, run as a user runs skillbench (a subprocess, real Hydra, MCP, store, files): agent
programs on PYTHONPATH and a domain whose code tools misbehave. Each ends in its documented class and exit code
(docs/outcomes.md, docs/guarantees.md "Guest code"), within a bounded time, with nothing finished lost."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from skillbench.benchmark.loader import resolve_source
from tests.reliability.harness import SMALL, rows_written, skillbench, skillbench_lines, start, wait_for

HOSTILE = '''
import asyncio

from skillbench.agents import AgentReply, AgentState, LLMAgent
from skillbench.core.errors import InfrastructureError


class Exits:
    async def reply(self, state: AgentState) -> AgentReply:
        raise SystemExit(0)  # what sys.exit() in a wrapped library or an argparse does


class InitBoom:
    def __init__(self) -> None:
        raise RuntimeError("vocabulary file vocab.txt not found")

    async def reply(self, state: AgentState) -> AgentReply:
        raise AssertionError("never built")


class InitTypeBug:
    def __init__(self, depth: int = 2) -> None:
        self.depth = depth + "1"  # a bug inside the constructor, not a wrong parameter

    async def reply(self, state: AgentState) -> AgentReply:
        raise AssertionError("never built")


class Declares:
    def model_names(self) -> list[str]:
        return ["nonexistent"]

    async def reply(self, state: AgentState) -> AgentReply:
        return await LLMAgent().reply(state)


class AsksLate:
    async def reply(self, state: AgentState) -> AgentReply:
        await state.models.complete([{"role": "user", "content": "hi"}], model="nonexistent")
        raise AssertionError("unreachable")


class FailsOneSkill:
    """Says infrastructure is down, every time, but only for one skill's conversations."""

    def __init__(self, skill: str = "") -> None:
        self.skill, self.inner = skill, LLMAgent()

    async def reply(self, state: AgentState) -> AgentReply:
        if state.skill.id == self.skill:
            raise InfrastructureError("index for this skill unavailable")
        return await self.inner.reply(state)


class BusyOnOneSkill(FailsOneSkill):
    """Spins without ever yielding to the event loop in one skill's conversations."""

    async def reply(self, state: AgentState) -> AgentReply:
        while state.skill.id == self.skill:
            pass
        return await self.inner.reply(state)
'''

TWO_SKILLS = ["benchmark=starter", "benchmark.scenarios=[bk-fee-happy-01,tc-plan-missing-01]",
              "run.scenario_concurrency=1", "agent=sim_careful", "judge=sim_balanced"]


@pytest.fixture
def programs(tmp_path: Path) -> dict[str, str]:
    """The environment that puts the hostile programs on the path."""
    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    return {"PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for path in sorted(folder.rglob("results.jsonl")) for line in path.read_text().splitlines()]


def test_a_program_that_exits_ends_only_its_conversations_in_a_run_and_in_a_sweep(
    tmp_path: Path, programs: dict[str, str]
) -> None:
    sweep = tmp_path / "sweep"
    done = skillbench(tmp_path, "agent=sim_careful,sim_sloppy", "agent.program={_target_:hostile.Exits}",
                      "judge=sim_balanced", *SMALL, f"hydra.sweep.dir={sweep}", f"store.root={tmp_path / 'store'}",
                      "-m", env=programs)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(sweep)
    assert len(rows) == 4 and {row["termination"] for row in rows} == {"model_error"}
    assert all(row["passed"] is False and "raised SystemExit" in row["termination_detail"] for row in rows)
    for row in rows:  # the traceback of each is beside its job's rows
        [job] = [p.parent for p in sweep.rglob("results.jsonl") if row["scenario_id"] in p.read_text()
                 and row["agent"] in p.parent.name]
        assert "raise SystemExit(0)" in (job / row["traceback_file"]).read_text()
    assert any("sweep: 2 job(s): 2 finished" in line for line in skillbench_lines(done.stderr)), done.stderr[-2000:]


@pytest.mark.parametrize(("program", "says"), [
    ("hostile.InitBoom", "building hostile.InitBoom raised RuntimeError: vocabulary file vocab.txt not found (programs/hostile.py:"),
    ("hostile.InitTypeBug", "building hostile.InitTypeBug raised TypeError: unsupported operand type(s)"),
    ("hostile.Declares", "the agent program asks for model 'nonexistent', which agent.models does not name"),
], ids=["init-raises", "init-type-bug", "unknown-model-declared"])
def test_a_program_that_cannot_be_built_or_names_an_unknown_model_stops_before_the_run(
    tmp_path: Path, programs: dict[str, str], program: str, says: str
) -> None:
    run = tmp_path / "run"
    done = skillbench(tmp_path, *SMALL, f"agent.program={{_target_:{program}}}", f"hydra.run.dir={run}",
                      f"store.root={tmp_path / 'store'}", env=programs)
    assert done.returncode == 2, done.stderr[-3000:]
    [line] = skillbench_lines(done.stderr)
    assert says in line and "Fix:" in line and "Traceback" not in done.stderr
    assert not run.exists()


def test_an_unknown_model_found_only_mid_run_stops_the_job_as_a_configuration_error(
    tmp_path: Path, programs: dict[str, str]
) -> None:
    run = tmp_path / "run"
    done = skillbench(tmp_path, *SMALL, "agent.program={_target_:hostile.AsksLate}", f"hydra.run.dir={run}",
                      f"store.root={tmp_path / 'store'}", env=programs)
    assert done.returncode == 2, done.stderr[-3000:]
    assert "asks for model 'nonexistent'" in skillbench_lines(done.stderr)[-1]
    assert json.loads((run / "job_error.json").read_text())["type"] == "UnknownAgentModel"
    assert not (run / "summary.json").exists()  # never a result: no pass rate of 0 % for a typo


def test_a_program_failing_one_scenario_on_every_try_while_having_the_others_has_failed_it(
    tmp_path: Path, programs: dict[str, str]
) -> None:
    run = tmp_path / "run"
    done = skillbench(tmp_path, *TWO_SKILLS, "agent.program={_target_:hostile.FailsOneSkill,skill:telecom_change_plan}",
                      f"hydra.run.dir={run}", f"store.root={tmp_path / 'store'}", env=programs)
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = _rows(run)
    assert first["passed"] is not None and first["termination"] != "model_error"
    assert second["termination"] == "model_error" and second["passed"] is False and second["infra_error"] is None
    assert second["termination_detail"].startswith("agent: the agent program failed on every one of the 3 tries")  # run.infra_retries=2


def test_a_program_blocking_the_event_loop_is_interrupted_at_its_reply_limit_and_the_job_finishes(
    tmp_path: Path, programs: dict[str, str]
) -> None:
    run = tmp_path / "run"
    started = time.monotonic()
    done = skillbench(tmp_path, *TWO_SKILLS, "agent.program={_target_:hostile.BusyOnOneSkill,skill:telecom_change_plan}",
                      "agent.reply_limit_s=2", f"hydra.run.dir={run}", f"store.root={tmp_path / 'store'}", env=programs)
    assert done.returncode == 0, done.stderr[-3000:]
    assert time.monotonic() - started < 120
    first, spun = _rows(run)
    assert first["passed"] is not None and spun["termination"] == "model_error" and spun["passed"] is False
    assert spun["termination_detail"].startswith("agent: the agent program blocked the event loop for more than 2s")


def _spinning(tmp_path: Path, programs: dict[str, str]) -> tuple[subprocess.Popen[str], Path]:
    """A run whose first conversation has its row and whose second one's program spins (blocks the event loop)."""
    run = tmp_path / "run"
    job = start(tmp_path, *TWO_SKILLS, "agent.program={_target_:hostile.BusyOnOneSkill,skill:telecom_change_plan}",
                f"hydra.run.dir={run}", f"store.root={tmp_path / 'store'}", env=programs)
    wait_for(lambda: rows_written(run) == 1, what="the first conversation's row")
    time.sleep(1.0)  # the second conversation is spinning now
    return job, run


def _terminate(job: subprocess.Popen[str], *, kill_after_s: float | None = None) -> tuple[str, float]:
    """SIGTERM to a running job (and SIGKILL ``kill_after_s`` later, as a scheduler's KillWait does); its stderr and
    the seconds from SIGTERM to its end. The job is killed if it outlives the test."""
    try:
        sent = time.monotonic()
        job.send_signal(signal.SIGTERM)
        if kill_after_s is not None:
            time.sleep(kill_after_s)
            job.kill()
        _, stderr = job.communicate(timeout=60)
        return stderr, time.monotonic() - sent
    finally:
        if job.poll() is None:
            job.kill()


def test_sigterm_ends_a_run_within_seconds_while_a_program_blocks_the_event_loop(
    tmp_path: Path, programs: dict[str, str]
) -> None:
    job, run = _spinning(tmp_path, programs)
    stderr, took = _terminate(job)
    assert job.returncode == 143, stderr[-3000:]
    assert took < 20, took  # the grace period (5 s) and the process's own exit
    marker = json.loads((run / "interrupted.json").read_text())
    assert marker["signal"] == "SIGTERM" and marker["forced"] is True and marker["rows_kept"] == 1
    assert len(_rows(run)) == 1 and "rerunning" in skillbench_lines(stderr)[-1]


def test_sigkill_soon_after_sigterm_still_finds_the_job_marked_stopped_with_its_rows(
    tmp_path: Path, programs: dict[str, str]
) -> None:
    # A scheduler's SIGKILL follows SIGTERM after KillWait (SLURM: 30 s by default, less on some clusters), maybe
    # before the job has unwound: the marker is written as SIGTERM arrives, so the folder still says "stopped".
    job, run = _spinning(tmp_path, programs)  # the job cannot unwind before SIGKILL
    _terminate(job, kill_after_s=1.0)
    assert job.returncode == -signal.SIGKILL
    marker = json.loads((run / "interrupted.json").read_text())
    assert marker == {"reason": "terminated", "signal": "SIGTERM", "rows_kept": 1}
    assert len(_rows(run)) == 1


# -- a domain whose code tools misbehave (a copy of the packaged toolshed, one line changed) -----------------------

def _domain(tmp_path: Path, before: str, inserted: str) -> Path:
    """toolshed with ``inserted`` (indented like ``before``) placed just before the first line ``before``."""
    folder = tmp_path / "domain"
    shutil.copytree(resolve_source("toolshed"), folder)
    tools = folder / "tools" / "loans.py"
    lines = tools.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == before)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines[at:at] = [indent + line for line in inserted.splitlines()]
    tools.write_text("\n".join(lines) + "\n")
    return folder


OVERDUE = ["agent=sim_careful", "judge=sim_balanced", "benchmark.scenarios=[ts-extend-overdue-01,ts-extend-happy-01]"]


@pytest.mark.parametrize(("fault", "says"), [
    ("raise TypeError('can only concatenate str (not \"datetime.date\") to str')", "raised TypeError: can only concatenate"),
    ("raise SystemExit(0)", "raised SystemExit: 0"),
    ("import time\ntime.sleep(30)", "did not return within 1s (mock.code_tool_limit_s)"),
], ids=["TypeError", "SystemExit", "sleeps"])
def test_a_code_tools_fault_is_a_benchmark_error_named_never_retried_and_the_rest_goes_on(
    tmp_path: Path, fault: str, says: str
) -> None:
    domain = _domain(tmp_path, "if due < TODAY:", f"if due < TODAY:\n    {fault.replace(chr(10), chr(10) + '    ')}")
    run = tmp_path / "run"
    started = time.monotonic()
    done = skillbench(tmp_path, f"benchmark.source={domain}", *OVERDUE, "mock.code_tool_limit_s=1",
                      f"hydra.run.dir={run}", f"store.root={tmp_path / 'store'}")
    assert time.monotonic() - started < 120
    assert done.returncode == 6, done.stderr[-3000:]
    rows = {row["scenario_id"]: row for row in _rows(run)}
    broken, happy = rows["ts-extend-overdue-01"], rows["ts-extend-happy-01"]
    assert broken["termination"] == "benchmark_error" and broken["passed"] is None and broken["infra_error"] is None
    assert broken["benchmark_error"].startswith("benchmark toolshed, scenario ts-extend-overdue-01: code tool "
                                                "loans.extend_loan") and says in broken["benchmark_error"]
    assert broken["abandoned_attempts"] == 0  # the same code fails the same way: never redone
    assert happy["passed"] is True
    [line] = skillbench_lines(done.stderr)
    assert "1 of 2 conversations hit benchmark errors" in line and says in line and "Fix that code" in line
    if "sleep" not in fault:
        assert "tools/loans.py" in (run / broken["traceback_file"]).read_text()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["benchmark_errors"] == 1 and summary["infra_errors"] == 0 and summary["scored"] == 1


def test_a_code_tool_failing_while_the_gold_actions_replay_stops_the_load_in_one_line(tmp_path: Path) -> None:
    domain = _domain(tmp_path, 'loan["extensions"] += 1', '{}["missing"]')
    run = tmp_path / "run"
    done = skillbench(tmp_path, f"benchmark.source={domain}", "agent=sim_careful", "judge=sim_balanced",
                      f"hydra.run.dir={run}", f"store.root={tmp_path / 'store'}")
    assert done.returncode == 2, done.stderr[-3000:]
    [line] = skillbench_lines(done.stderr)
    assert "ts-extend-happy-01" in line and "gold_actions" in line and "raised KeyError: 'missing' (tools/loans.py:" in line
    assert "Traceback" not in done.stderr and not run.exists()
    lint = skillbench(tmp_path, "benchmark", "lint", str(domain), module="skillbench.cli")
    assert lint.returncode == 1 and "raised KeyError: 'missing'" in lint.stdout + lint.stderr
    assert "Traceback" not in lint.stdout + lint.stderr


def test_sigterm_while_a_code_tool_sleeps_ends_the_run_at_once(tmp_path: Path) -> None:
    flag = tmp_path / "sleeping"
    domain = _domain(tmp_path, "if due < TODAY:",
                     f"if due < TODAY:\n    import pathlib, time\n    pathlib.Path({str(flag)!r}).touch()\n    time.sleep(120)")
    run = tmp_path / "run"
    job = start(tmp_path, f"benchmark.source={domain}", *OVERDUE, "mock.code_tool_limit_s=300",
                f"hydra.run.dir={run}", f"store.root={tmp_path / 'store'}")
    wait_for(flag.exists, what="the code tool to start sleeping")
    stderr, took = _terminate(job)
    assert job.returncode == 143, stderr[-3000:]
    assert took < 15, took
    assert json.loads((run / "interrupted.json").read_text())["signal"] == "SIGTERM"
