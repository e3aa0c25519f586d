"""What the viewer shows, without any terminal: the conversations of runs and sweeps (one per rollout: agent ×
scenario × trial), each judge's reading of it, the filter over them and the transcript as styled lines.

Kept apart from the textual app so it is tested as plain Python and reusable (``load_conversations``)."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.text import Text

from skillbench.core.errors import ConfigError
from skillbench.core.records import Rollout, RuleCheck
from skillbench.core.rubric import DIMENSIONS
from skillbench.engine.results import ResultRow
from skillbench.report.frame import job_labels
from skillbench.report.jobs import Job, load_jobs
from skillbench.report.transcripts import TranscriptFinder

Verdict = Literal["pass", "fail", "error"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "error")
RESULT_CHARS = 600  # a tool result or message longer than this is cut in the transcript view (the rest: '…')


@dataclass
class JudgeReading:
    """One judge's reading of one conversation (a result row)."""

    judge: str
    verdict: Verdict
    task_completion: str | None
    scores: dict[str, int]
    hallucinated: bool | None
    explanation: str
    fail_reasons: list[str]
    error: str | None


@dataclass
class Conversation:
    """One rollout (agent × scenario × trial) with every judge's reading of it."""

    key: str
    agent: str
    scenario_id: str
    trial: int
    path: str
    industry: str
    skill_id: str
    termination: str
    turns: int
    rule_checks: list[RuleCheck]
    rule_passed: bool | None
    job: Path
    rollout_key: str | None
    judges: dict[str, JudgeReading] = field(default_factory=dict)

    @property
    def disagreement(self) -> bool:
        """Judges (a person's label counts as one) gave this conversation both a pass and a fail."""
        return len({r.verdict for r in self.judges.values() if r.verdict != "error"}) > 1


def _reading(judge: str, row: ResultRow) -> JudgeReading:
    verdict: Verdict = "error" if row.passed is None else ("pass" if row.passed else "fail")
    scores = row.scores
    return JudgeReading(
        judge=judge, verdict=verdict, task_completion=scores.task_completion if scores else None,
        scores={d.name: getattr(scores, d.name) for d in DIMENSIONS} if scores else {},
        hallucinated=scores.hallucinated_action if scores else None, explanation=scores.explanation if scores else "",
        fail_reasons=list(row.fail_reasons), error=row.infra_error or row.judge_error)


def read_jobs(paths: list[Path]) -> list[Job]:
    """Every job under ``paths`` (runs, sweeps, folders of sweeps), finished or not. No finished job: one ConfigError
    naming the fix."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise ConfigError(f"no such folder: {', '.join(missing)}. Fix: give a run or sweep folder (outputs/runs/<stamp>_..., "
                          "outputs/multirun/<stamp>)")
    jobs = load_jobs(list(paths))
    if not any(job.finished for job in jobs):
        raise ConfigError(f"no finished job under {', '.join(map(str, paths))}. Fix: give a run or sweep folder that holds "
                          "summary.json files (a run still going or interrupted has none yet)")
    return jobs


def skipped_note(jobs: list[Job]) -> str:
    """What the viewer leaves out, in a few words for its status line ('' when nothing): damaged lines, jobs whose
    rows disagree with their summary, unfinished jobs (each named on stderr by ``skillbench view``)."""
    damaged = sum(len(job.damaged) for job in jobs)
    disagreeing = sum(bool(job.disagreements) for job in jobs)
    unfinished = [job for job in jobs if not job.finished]
    parts = ([f"{damaged} damaged line(s) skipped"] if damaged else []) + (
        [f"{disagreeing} job(s) whose rows disagree with their summary"] if disagreeing else []) + (
        [f"{len(unfinished)} unfinished job(s) left out ({sum(len(job.rows) for job in unfinished)} row(s))"]
        if unfinished else [])
    return "; ".join(parts)


def load_conversations(paths: list[Path]) -> tuple[list[Conversation], TranscriptFinder]:
    """The conversations of the finished jobs under ``paths`` (runs, sweeps, folders of sweeps), ordered by agent,
    scenario and trial, and the finder of their transcripts. No finished job: one ConfigError naming the fix."""
    return conversations_of(read_jobs(paths))


def conversations_of(jobs: list[Job]) -> tuple[list[Conversation], TranscriptFinder]:
    """The conversations of the finished ones of ``jobs`` and the finder of their transcripts."""
    jobs = [job for job in jobs if job.finished]
    labels = job_labels(jobs)
    conversations: dict[str, Conversation] = {}
    for job in jobs:
        agent, judge = labels[job.path]
        for row in job.rows:
            trial = row.trial
            key = f"{agent}\x00{row.scenario_id}\x00{trial}"
            conversation = conversations.get(key)
            if conversation is None:
                conversation = conversations[key] = Conversation(
                    key=key, agent=agent, scenario_id=row.scenario_id, trial=trial, path=row.path, industry=row.industry,
                    skill_id=row.skill_id, termination=row.termination, turns=row.turns, rule_checks=list(row.rule_checks),
                    rule_passed=row.rule_passed, job=job.path, rollout_key=row.rollout_key)
            conversation.judges.setdefault(judge, _reading(judge, row))
    ordered = sorted(conversations.values(), key=lambda c: (c.agent, c.scenario_id, c.trial))
    return ordered, TranscriptFinder(jobs)


FILTER_KEYS = ("agent", "judge", "verdict", "path", "industry", "skill")
FILTER_HELP = ("filter: agent=NAME judge=NAME verdict=pass|fail|error path=NAME industry=NAME skill=NAME disagree, "
               "any other word searches scenario ids (all must match; a value matches as a substring)")


@dataclass
class ViewFilter:
    """Which conversations are listed. ``verdict`` with ``judge``: that judge's verdict; alone: any judge's."""

    agent: str = ""
    judge: str = ""
    verdict: str = ""
    path: str = ""
    industry: str = ""
    skill: str = ""
    disagree: bool = False
    words: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str) -> ViewFilter:
        """``agent=sim_sloppy verdict=fail path=transfer disagree refund`` → a filter; an unknown key is a ValueError."""
        found = cls()
        try:
            tokens = shlex.split(text)
        except ValueError:
            tokens = text.split()
        for token in tokens:
            name, sep, value = token.partition("=")
            if not sep:
                if token.lower() in {"disagree", "disagreement", "disagreements"}:
                    found.disagree = True
                else:
                    found.words.append(token.lower())
                continue
            if name not in FILTER_KEYS:
                raise ValueError(f"unknown filter key {name!r}; known: {', '.join(FILTER_KEYS)}, disagree")
            if name == "verdict" and value not in VERDICTS:
                raise ValueError(f"verdict={value!r}: one of {', '.join(VERDICTS)}")
            setattr(found, name, value.lower())
        return found

    def text(self) -> str:
        """The filter as the text that parses back to it."""
        parts = [f"{k}={getattr(self, k)}" for k in FILTER_KEYS if getattr(self, k)]
        return " ".join([*parts, *(["disagree"] if self.disagree else []), *self.words])

    def matches(self, conversation: Conversation) -> bool:
        c = conversation
        if self.agent and self.agent not in c.agent.lower():
            return False
        for wanted, value in ((self.path, c.path), (self.industry, c.industry), (self.skill, c.skill_id)):
            if wanted and wanted not in value.lower():
                return False
        readings = [r for name, r in c.judges.items() if not self.judge or self.judge in name.lower()]
        if self.judge and not readings:
            return False
        if self.verdict and not any(r.verdict == self.verdict for r in readings):
            return False
        if self.disagree and not c.disagreement:
            return False
        return all(word in c.scenario_id.lower() for word in self.words)


def _cut(text: str, limit: int = RESULT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def transcript_text(rollout: Rollout | dict[str, Any] | None, problem: str | None) -> Text:
    """The conversation as styled lines: caller and agent messages, tool calls with their arguments, tool results
    (ok or error) and the ending. Content is never read as markup (a message may hold '[bold]' or '[/]')."""
    out = Text()
    if problem:
        out.append(f"{problem}\n", style="yellow")
    if rollout is None:
        return out
    if isinstance(rollout, dict):  # stored in an older format: shown raw
        out.append(json.dumps(rollout, indent=1, ensure_ascii=False)[:20000])
        return out
    records = rollout.call_records()  # paired by the call's identity, as the judge prompt pairs them
    for message in rollout.messages:
        if message.role == "system":
            continue
        if message.role == "user":
            out.append(f"[{message.turn}] caller  ", style="bold cyan")
            out.append(_cut(message.content or "") + "\n")
        elif message.role == "assistant":
            if message.content:
                out.append(f"[{message.turn}] agent   ", style="bold green")
                out.append(_cut(message.content) + (f"  ({message.cut})" if message.cut else "") + "\n")
            for call in message.tool_calls:
                record = records.get(call.seq)
                name = record.name if record is not None else call.name  # the catalogue name, as judges see it
                arguments = call.raw_arguments if call.raw_arguments is not None else json.dumps(call.arguments, ensure_ascii=False)
                out.append(f"[{message.turn}] → call  ", style="bold yellow")
                out.append(f"{name} {_cut(arguments, 300)}" + ("  (not offered)" if record is not None and not record.offered else "") + "\n")
        elif message.role == "tool":
            record = records.get(message.call_seq)
            failed = record is not None and record.is_error
            out.append(f"[{message.turn}] ← {'error' if failed else 'result'} ", style="bold red" if failed else "bold magenta")
            out.append(f"{record.name if record else message.name}: {_cut(message.content or '')}\n")
    out.append("end: ", style="bold")
    out.append(rollout.termination + (f" ({rollout.termination_detail})" if rollout.termination_detail else "") + "\n")
    return out


def checks_text(conversation: Conversation) -> Text:
    out = Text()
    rule = {None: "—", True: "passes", False: "fails"}[conversation.rule_passed]
    out.append(f"Rule checks (rule-based verdict: {rule})\n", style="bold")
    for check in conversation.rule_checks:
        mark, style = ("✓", "green") if check.passed else ("✗", "red")
        out.append(f" {mark} ", style=style)
        out.append(f"{check.name}{' (hard)' if check.hard else ''}: {check.detail}\n")
    return out


def judge_text(reading: JudgeReading) -> Text:
    """One judge's verdict, outcome, rubric scores, flag, fail reasons and explanation."""
    out = Text()
    style = {"pass": "bold green", "fail": "bold red", "error": "bold yellow"}[reading.verdict]
    out.append(f"{reading.judge}: {reading.verdict.upper()}\n", style=style)
    if reading.error:
        out.append(f"error: {reading.error}\n", style="yellow")
    if reading.task_completion:
        out.append(f"outcome: {reading.task_completion}\n")
    for dimension in DIMENSIONS:
        if dimension.name in reading.scores:
            out.append(f"{dimension.header}: {reading.scores[dimension.name]}\n")
    if reading.hallucinated is not None:
        out.append(f"hallucinated action: {'yes' if reading.hallucinated else 'no'}\n")
    if reading.fail_reasons:
        out.append("fail reasons: " + "; ".join(reading.fail_reasons) + "\n")
    if reading.explanation:
        out.append("explanation: ", style="bold")
        out.append(reading.explanation + "\n")
    return out
