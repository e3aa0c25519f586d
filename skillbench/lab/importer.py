"""``skillbench import``: transcripts produced elsewhere → a normal run folder (results.jsonl, summary.json,
config.json, rollouts in the store) that ``report``, ``rescore``, ``diff``, ``load_results`` and
``judges validate --run`` read unchanged. Formats: see docs/judge-lab.md.

A malformed record is reported as ``file:line: field: problem`` (``file:item N: ...`` for an item of a JSON list)
and skipped; the valid ones still import.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Persona, Scenario, Skill, WorkflowStep
from skillbench.config import RunConfig
from skillbench.core.errors import ConfigError
from skillbench.core.jsonl import json_lines
from skillbench.core.records import (
    OUTCOMES,
    ExpectedOutcome,
    Message,
    ResultPairing,
    Rollout,
    RuleCheck,
    ScenarioPath,
    ToolCall,
    ToolCallRecord,
)
from skillbench.core.rubric import DIMENSION_BY_NAME, DIMENSION_NAMES, JudgeScores
from skillbench.engine.results import CONFIG_FILE, HUMAN_JUDGE, RESULTS_FILE, SUMMARY_FILE, ResultRow
from skillbench.engine.summary import summarize
from skillbench.evaluation import run_rule_checks
from skillbench.evaluation.checks import rule_checks_version
from skillbench.evaluation.pass_rule import rule_based_pass
from skillbench.prompts.agent import CONTROL_TOOLS, END_CONVERSATION, TRANSFER_TO_HUMAN
from skillbench.prompts.format import NOT_GIVEN
from skillbench.report.panel_verdicts import PANEL_KEY
from skillbench.store import ArtifactStore, content_hash, write_json_atomic

CONTEXT_KIND = "imported_contexts"
HUMAN = HUMAN_JUDGE
IMPORTED = "imported"  # the user simulator and mock of an imported row: nobody simulated the caller or the tools
IMPORT_FILE = "import.json"


class HumanLabels(BaseModel):
    """Optional labels a person gave the conversation."""

    model_config = ConfigDict(extra="forbid")

    passed: bool | None = Field(None, description="Pass/fail as the person judged it.")
    outcome: str | None = Field(None, description=f"One of {', '.join(OUTCOMES)}.")
    hallucinated_action: bool | None = None
    dimensions: dict[str, int] = Field(
        default_factory=dict, description="Rubric dimension → score, on that dimension's scale in the rubric (1-5).")

    @field_validator("dimensions")
    @classmethod
    def _on_the_rubric(cls, value: dict[str, int]) -> dict[str, int]:
        # The rubric owns the names and the bounds (the same ones JudgeScores enforces on a judge's reply).
        unknown = sorted(set(value) - set(DIMENSION_NAMES))
        if unknown:
            raise PydanticCustomError("rubric_dimension", "unknown dimension(s) {unknown}; known: {known}",
                                      {"unknown": str(unknown), "known": ", ".join(DIMENSION_NAMES)})
        for name, score in value.items():
            dimension = DIMENSION_BY_NAME[name]
            if not dimension.low <= score <= dimension.high:
                raise PydanticCustomError("rubric_scale", "{score} is not on the rubric's {low}-{high} scale",
                                          {"field": name, "score": score, "low": dimension.low, "high": dimension.high})
        return value


def human_labels(labels: HumanLabels) -> dict[str, bool | str | int]:
    """The labels a person gave besides pass/fail, flat: ``outcome``, ``hallucinated_action``, one key per dimension."""
    flat: dict[str, bool | str | int] = dict(labels.dimensions)
    if labels.outcome is not None:
        flat["outcome"] = labels.outcome
    if labels.hallucinated_action is not None:
        flat["hallucinated_action"] = labels.hallucinated_action
    return flat


class Metadata(BaseModel):
    """Per-conversation metadata; every field is optional."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(None, description="Conversation id (default: <file stem>-<line>, or <file stem>-<item number> "
                           "in a JSON list).")
    agent: str | None = Field(None, description="Who produced it (default: the --agent option).")
    skill_id: str | None = Field(None, description="A skill of the --benchmark: its policy, steps and tools apply.")
    scenario_id: str | None = Field(None, description="A scenario of that benchmark: enables every rule check.")
    path: ScenarioPath | None = Field(
        None, description="With skill_id and no scenario_id: the path the conversation took (happy_path, transfer, ...). "
        "The tools every scenario of that skill on that path requires are then checked.")
    expected_outcome: ExpectedOutcome | None = Field(
        None, description="What the conversation should have ended as, where the test design says so (not the person's "
        "verdict: that is labels.outcome). Not given: the judge prompt says so, rather than assuming success.")
    policy: str | None = Field(None, description="The policy or skill text the agent followed (when no skill_id).")
    tools: list[str] | None = Field(None, description="Tool names offered to the agent.")
    benchmark: str | None = Field(None, description="The benchmark or data set the conversation comes from: the rows' "
                                  "benchmark label (default: the --label option, else the file's name without suffix).")
    termination: str | None = Field(None, description="How it ended (resolved, transferred, ...); default from control calls.")
    task: str | None = Field(None, description="The task (scenario) this conversation is a trial of: the conversations of "
                             "one task are its trials, so pass^k is reported and every CI resamples tasks. Default: the "
                             "--task-pattern match of the id, else scenario_id, else the conversation's own id.")
    trial: int | None = Field(None, ge=0, description="Which trial of its task (default: the --task-pattern's 'trial' "
                              "group, else the task's conversations numbered from 0 in the order they are read).")
    labels: HumanLabels | None = None


class ImportedContext(BaseModel):
    """What a judge needs besides the transcript, stored next to the imported rollout (kind imported_contexts)."""

    model_config = ConfigDict(extra="forbid")

    skill: Skill
    scenario: Scenario
    labels: HumanLabels | None = None
    not_applicable: list[str] = Field(default_factory=list, description="Rule checks the data did not allow.")
    not_given: list[str] = Field(
        default_factory=list, description="Facts the record did not state (path, expected_outcome, forbidden_tools, toolkit): "
        "the judge prompt says '(not given)' instead of the scenario's defaults.")

    @model_validator(mode="after")
    def _unknown_toolkit(self) -> ImportedContext:
        # contexts stored before the toolkit could be said as unknown carry the placeholder tool 'none.given'
        if self.skill.tools in (["none.given"], [NOT_GIVEN]) and "toolkit" not in self.not_given:
            self.not_given.append("toolkit")
        return self


class RecordError(ValueError):
    """One bad record: where it is and what is wrong."""


@dataclass
class Imported:
    rollout: Rollout
    context: ImportedContext
    benchmark: str = ""  # the rows' benchmark label: the import's own (metadata.benchmark, --label or the file's stem)
    conversation: str = ""  # the conversation's own id (metadata.id, or file stem and place)
    task: str = ""  # the task it is a trial of: the rows' scenario_id (see Metadata.task)
    trial: int | None = None  # its trial of the task (None until numbered by import_files)


def _require(cond: bool, field: str, problem: str) -> None:
    if not cond:
        raise RecordError(f"{field}: {problem}")


def _tool_name(name: str) -> str:
    return name if name in CONTROL_TOOLS else name.replace("__", ".")


def _openai_messages(raw: list[Any]) -> tuple[list[Message], list[ToolCallRecord]]:
    """The messages and the call log of an OpenAI-format conversation. Each call gets its identity (``seq``, in
    call order) and each result is paired with the call it answers by :class:`ResultPairing` (the oldest unanswered
    call with its id: logs reuse ids); the records come out in call order, as the turn loop logs them."""
    messages: list[Message] = []
    pairing: ResultPairing[ToolCall] = ResultPairing()
    records: list[ToolCallRecord] = []
    calls_made = 0
    # Turns count as the orchestrator counts them: an agent turn runs from the caller's message to the next one, so
    # its tool rounds and its reply share one number (each assistant message its own turn would make a four-call
    # correction look like a conversation twice as long as a native one).
    turn = 0
    caller_spoke = True
    for index, item in enumerate(raw):
        where = f"messages[{index}]"
        _require(isinstance(item, dict), where, "must be an object")
        role = item.get("role")
        _require(role in {"system", "user", "assistant", "tool"}, f"{where}.role", f"must be system, user, assistant or tool, not {role!r}")
        content = item.get("content")
        _require(content is None or isinstance(content, str), f"{where}.content", "must be a string or null")
        calls: list[ToolCall] = []
        answered: ToolCall | None = None
        if role == "user":
            caller_spoke = True
        if role == "assistant":
            if caller_spoke:
                turn += 1
            caller_spoke = False
            for j, call in enumerate(item.get("tool_calls") or []):
                function = call.get("function") if isinstance(call, dict) else None
                _require(isinstance(function, dict) and isinstance(function.get("name"), str),
                         f"{where}.tool_calls[{j}].function.name", "missing")
                arguments = function.get("arguments") or "{}"
                try:
                    parsed = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
                except (json.JSONDecodeError, TypeError, ValueError):
                    raise RecordError(f"{where}.tool_calls[{j}].function.arguments: not a JSON object") from None
                tool_call = ToolCall(id=str(call.get("id") or f"call_{index}_{j}"), name=function["name"], arguments=parsed,
                                     seq=calls_made)
                calls_made += 1
                calls.append(tool_call)
                pairing.called(tool_call.id, tool_call)
                if function["name"] in CONTROL_TOOLS:  # recorded as the orchestrator records a control call
                    records.append(ToolCallRecord(turn=turn, call_id=tool_call.id, call_seq=tool_call.seq, name=function["name"],
                                                  arguments=parsed, offered=True, is_error=False, result="conversation ended",
                                                  control=True))
        if role == "tool":
            call_id = item.get("tool_call_id")
            answered = pairing.answered(call_id) if isinstance(call_id, str) else None
            if answered is None:
                raise RecordError(f"{where}.tool_call_id: {call_id!r} answers no earlier tool call")
            text = content or ""
            try:
                is_error = isinstance(json.loads(text), dict) and "error" in json.loads(text)
            except json.JSONDecodeError:
                is_error = text.lower().startswith("error")
            records.append(ToolCallRecord(turn=turn, call_id=answered.id, call_seq=answered.seq, name=_tool_name(answered.name),
                                          arguments=answered.arguments, offered=True, is_error=is_error, result=text))
        messages.append(Message(role=role, content=content, tool_calls=calls, tool_call_id=item.get("tool_call_id"),
                                call_seq=answered.seq if answered is not None else None, name=item.get("name"), turn=turn))
    unanswered = [c.name for c in pairing.unanswered() if c.name not in CONTROL_TOOLS]
    _require(not unanswered, "messages", f"tool call(s) {unanswered} have no tool result message")
    records.sort(key=lambda record: record.call_seq or 0)  # results are logged as they arrive: back in call order
    return messages, records


def _generic_messages(turns: list[Any]) -> list[dict[str, Any]]:
    """The generic format → OpenAI messages: ``{"speaker": "caller"|"agent", "text", "tool_calls": [{"name",
    "arguments", "result"}]}`` per turn."""
    out: list[dict[str, Any]] = []
    for index, turn in enumerate(turns):
        _require(isinstance(turn, dict), f"turns[{index}]", "must be an object")
        speaker = turn.get("speaker")
        _require(speaker in {"caller", "agent", "policy"}, f"turns[{index}].speaker", f"must be caller, agent or policy, not {speaker!r}")
        role = {"caller": "user", "agent": "assistant", "policy": "system"}[speaker]
        calls = turn.get("tool_calls") or []
        out.append({"role": role, "content": turn.get("text"),
                    "tool_calls": [{"id": f"call_{index}_{j}", "function": {"name": c.get("name"), "arguments": json.dumps(c.get("arguments") or {})}}
                                   for j, c in enumerate(calls)]})
        for j, call in enumerate(calls):
            if call.get("name") not in CONTROL_TOOLS:
                out.append({"role": "tool", "tool_call_id": f"call_{index}_{j}", "name": call.get("name"),
                            "content": call.get("result") if isinstance(call.get("result"), str) else json.dumps(call.get("result"))})
    return out


def _termination_detail(records: list[ToolCallRecord]) -> str:
    """The closing control call's reason (transfer) or summary (end), as the orchestrator words a native ending."""
    controls = [r for r in records if r.control]
    if not controls:
        return ""
    key = "reason" if controls[-1].name == TRANSFER_TO_HUMAN else "summary"
    return str(controls[-1].arguments.get(key) or "")


def _termination(meta: Metadata, records: list[ToolCallRecord]) -> str:
    if meta.termination:
        return meta.termination
    controls = [r for r in records if r.control]
    if controls and controls[-1].name == TRANSFER_TO_HUMAN:
        return "transferred"
    if controls and controls[-1].name == END_CONVERSATION:
        return str(controls[-1].arguments.get("outcome") or "resolved")
    return "user_ended"  # no control call: the conversation simply stopped on the caller's side


def _context(meta: Metadata, record_id: str, messages: list[Message], benchmark: Benchmark) -> ImportedContext:
    skills = benchmark.skills  # id → skill
    not_applicable: list[str] = []
    if meta.skill_id is not None:
        _require(meta.skill_id in skills, "metadata.skill_id", f"{meta.skill_id!r} is not a skill of benchmark {benchmark.manifest.name}")
        skill = skills[meta.skill_id]
    else:
        policy = meta.policy or "No policy text was given with this conversation."
        skill = Skill(id=f"imported-{record_id}", name="Imported conversation", industry="imported", category="imported",
                      company="not given", capability=policy, workflow=policy,
                      steps=[WorkflowStep(id="policy", kind="inform", instruction=policy, tools=list(meta.tools or []))],
                      success_criteria=["The caller's request is handled as the policy says."],
                      guardrails=["Follow the policy above."], tools=list(meta.tools or [NOT_GIVEN]))
        not_applicable += ["verified_before_account_access"]
    scenarios = {s.id: s for s in benchmark.scenarios}
    not_given: list[str] = []
    if meta.scenario_id is not None:
        _require(meta.scenario_id in scenarios, "metadata.scenario_id", f"{meta.scenario_id!r} is not a scenario of the benchmark")
        scenario = scenarios[meta.scenario_id]
    else:
        first = next((m.content for m in messages if m.role == "user" and m.content), "")
        required: list[str] = []
        expected = meta.expected_outcome
        if meta.skill_id is not None and meta.path is not None:
            # a skill and a path fix the tools every conversation must call: those all its scenarios on that path require
            same = [s for s in benchmark.scenarios if s.skill_id == skill.id and s.path == meta.path]
            _require(bool(same), "metadata.path", f"skill {skill.id!r} has no scenario on path {meta.path!r} in the benchmark")
            required = sorted(set.intersection(*(set(s.required_tools) for s in same)))
            outcomes = {s.expected_outcome for s in same}
            if expected is None and len(outcomes) == 1:  # ... and the ending they all expect
                expected = outcomes.pop()
        else:
            not_applicable.append("required_tools_invoked")
        # The scenario's defaults (happy_path, success, no forbidden tool) stand in for facts nobody stated; the judge
        # prompt must not present them as facts (a burst-pipe transfer judged against 'Expected outcome: success').
        not_given += [name for name, value in (("path", meta.path), ("expected_outcome", expected)) if value is None]
        not_given.append("forbidden_tools")
        scenario = Scenario(id=record_id, skill_id=skill.id, path=meta.path or "happy_path", title=first[:80] or record_id,
                            objective=first or NOT_GIVEN, persona=Persona(id="imported", label="imported"),
                            success_criteria=list(skill.success_criteria), required_tools=required,
                            expected_outcome=expected or "success")
        not_applicable += ["no_forbidden_tool_succeeded", "target_state_reached"]
        if "expected_outcome" in not_given:
            not_applicable.append("outcome_matches_expected")
    if meta.tools is None and meta.skill_id is None:
        # Nobody recorded what the agent was offered: the judge prompt says the toolkit is unknown (not a toolkit
        # of one placeholder tool, which made judges call every call out-of-toolkit) and the rule check is off.
        not_applicable.append("no_unrecovered_out_of_toolkit_call")
        not_given.append("toolkit")
    return ImportedContext(skill=skill, scenario=scenario, labels=meta.labels, not_applicable=not_applicable, not_given=not_given)


def task_pattern(text: str) -> re.Pattern[str]:
    """``--task-pattern``: a regular expression over conversation ids whose group ``task`` (else its first group) is
    the task and whose optional group ``trial`` is the trial; a bad one is a ConfigError naming the fix."""
    try:
        pattern = re.compile(text)
    except re.error as exc:
        raise ConfigError(f"--task-pattern {text!r}: not a regular expression ({exc}). Fix: e.g. "
                          "--task-pattern '(?P<task>.+)-trial(?P<trial>[0-9]+)'") from None
    if "task" not in pattern.groupindex and pattern.groups == 0:
        raise ConfigError(f"--task-pattern {text!r} has no group to take the task from. Fix: add (?P<task>...), e.g. "
                          "'(?P<task>.+)-trial(?P<trial>[0-9]+)'")
    return pattern


def _grouped(item: Imported, pattern: re.Pattern[str] | None, explicit_task: bool) -> Imported:
    """The task and trial ``--task-pattern`` reads from the conversation id (metadata.task and trial win)."""
    if pattern is None or explicit_task:
        return item
    found = pattern.fullmatch(item.conversation)
    _require(found is not None, "metadata.id", f"{item.conversation!r} does not match --task-pattern {pattern.pattern!r}")
    assert found is not None
    task = found.group("task") if "task" in pattern.groupindex else found.group(1)
    _require(bool(task), "metadata.id", f"--task-pattern {pattern.pattern!r} finds an empty task in {item.conversation!r}")
    trial = item.trial
    if trial is None and "trial" in pattern.groupindex and found.group("trial") is not None:
        _require(found.group("trial").isdigit(), "metadata.id",
                 f"--task-pattern's trial {found.group('trial')!r} in {item.conversation!r} is not a whole number")
        trial = int(found.group("trial"))
    return replace(item, task=task, trial=trial)


def parse_record(data: Any, record_id: str, agent: str, benchmark: Benchmark, label: str = "") -> Imported:
    """One conversation (OpenAI ``messages`` or generic ``turns``) → rollout + context; RecordError if malformed."""
    _require(isinstance(data, dict), "record", "must be a JSON object with 'messages' or 'turns'")
    try:
        meta = Metadata.model_validate(data.get("metadata") or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        # a dimension's score names the dimension itself (metadata.labels.dimensions.workflow_adherence)
        loc = [*first["loc"], *([first["ctx"]["field"]] if "field" in first.get("ctx", {}) else [])]
        raise RecordError(f"metadata.{'.'.join(map(str, loc))}: {first['msg']}") from None
    if meta.labels is not None:
        _require(meta.labels.outcome in {None, *OUTCOMES}, "metadata.labels.outcome", f"must be one of {', '.join(OUTCOMES)}")
    if "messages" in data:
        _require(isinstance(data["messages"], list) and data["messages"], "messages", "must be a non-empty list")
        raw = data["messages"]
    else:
        _require("turns" in data, "turns", "a record needs 'messages' (OpenAI) or 'turns' (generic)")
        _require(isinstance(data["turns"], list) and data["turns"], "turns", "must be a non-empty list")
        raw = _generic_messages(data["turns"])
    messages, records = _openai_messages(raw)
    record_id = meta.id or record_id
    context = _context(meta, record_id, messages, benchmark)
    if meta.tools is not None:
        records = [r.model_copy(update={"offered": r.control or r.name in meta.tools}) for r in records]
    elif meta.skill_id is not None:
        records = [r.model_copy(update={"offered": r.control or r.name in context.skill.tools}) for r in records]
    termination = _termination(meta, records)
    _require(termination in {"resolved", "transferred", "out_of_scope", "user_ended", "max_turns"}, "metadata.termination",
             f"{termination!r} is not a termination")
    body = {"messages": [m.model_dump(mode="json") for m in messages], "records": [r.model_dump(mode="json") for r in records],
            "agent": meta.agent or agent, "id": record_id}
    rollout = Rollout(key=content_hash(body), scenario_id=context.scenario.id, skill_id=context.skill.id, agent=meta.agent or agent,
                      messages=messages, tool_calls=records, offered_tools=list(meta.tools or context.skill.tools),
                      termination=termination, termination_detail=_termination_detail(records),  # type: ignore[arg-type]
                      turns=max((m.turn for m in messages), default=0))
    return Imported(rollout, context, meta.benchmark or label, conversation=record_id,
                    task=meta.task or context.scenario.id, trial=meta.trial)


def read_records(path: Path) -> list[tuple[str, int, Any | RecordError]]:
    """(where, number, parsed JSON or its error) per record. A JSONL file: its line, so ``where`` is the line
    number. A JSON list: its items, so ``where`` is ``item N`` (1-based; a pretty-printed item spans many lines);
    a file that is not valid JSON at all is one error at the line where parsing failed."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return [(str(exc.lineno), exc.lineno, RecordError(f"file: invalid JSON ({exc.msg})"))]
        if not isinstance(data, list):
            return [("1", 1, RecordError("file: a .json file must hold a list of conversations"))]
        return [(f"item {number}", number, item) for number, item in enumerate(data, start=1)]
    out: list[tuple[str, int, Any | RecordError]] = []
    for number, line in enumerate(json_lines(text), start=1):
        if not line.strip():
            continue
        try:
            out.append((str(number), number, json.loads(line)))
        except json.JSONDecodeError as exc:
            out.append((str(number), number, RecordError(f"line: invalid JSON ({exc.msg})")))
    return out


def human_scores(labels: HumanLabels | None) -> JudgeScores | None:
    """Full rubric scores when the person gave every dimension and the outcome (else None: pass/fail only)."""
    if labels is None or labels.outcome is None or set(labels.dimensions) != set(DIMENSION_NAMES):
        return None
    return JudgeScores(task_completion=labels.outcome, hallucinated_action=bool(labels.hallucinated_action),
                       explanation="human label", **labels.dimensions)


def applicable_checks(item: Imported) -> list[RuleCheck]:
    checks = run_rule_checks(item.rollout, item.context.scenario, item.context.skill)
    return [c for c in checks if c.name not in item.context.not_applicable]


def result_row(item: Imported, cfg: RunConfig) -> ResultRow:
    checks = applicable_checks(item)
    labels = item.context.labels
    passed = labels.passed if labels is not None else None
    scenario, unknown = item.context.scenario, item.context.not_given
    return ResultRow(
        scenario_id=item.task or item.rollout.scenario_id, trial=item.trial or 0, skill_id=item.rollout.skill_id,
        industry=item.context.skill.industry,
        # a fact the record did not state reads as the judge prompt reads it, not as the scenario's default
        path=NOT_GIVEN if "path" in unknown else scenario.path, persona=scenario.persona.label,
        expected_outcome=NOT_GIVEN if "expected_outcome" in unknown else scenario.expected_outcome,
        agent=cfg.agent.name, judge=cfg.judge.name,
        user_sim=IMPORTED, mock=IMPORTED, pass_rule=cfg.pass_rule.name, benchmark=item.benchmark or cfg.benchmark.name, simulated=False,
        rollout_key=item.rollout.key, termination=item.rollout.termination, turns=item.rollout.turns,
        tool_calls=sum(1 for r in item.rollout.tool_calls if not r.control),
        tool_errors=sum(1 for r in item.rollout.tool_calls if r.is_error), rule_checks=checks,
        rule_checks_version=rule_checks_version(checks), rule_passed=rule_based_pass(checks, cfg.pass_rule),
        scores=human_scores(labels), judge_error=None if passed is not None else "no human label",
        passed=passed, fail_reasons=["human label: fail"] if passed is False else [], usage={}, rollout_s=0.0, judge_s=0.0,
    )


def import_files(paths: list[Path], out: Path, cfg: RunConfig, benchmark: Benchmark, agent: str,
                 label: str | None = None, pattern: re.Pattern[str] | None = None) -> tuple[list[Imported], list[str]]:
    """Import every valid record into the run folder ``out``; returns (imported, one error line per bad record).

    The rows' benchmark label is the import's own: a record's metadata.benchmark, else ``label``, else its file's
    stem (never the --benchmark whose skills the records may name: they are not its scenarios). A row's scenario is
    the conversation's task and its trial the trial of that task (Metadata.task, ``pattern``: --task-pattern)."""
    store = ArtifactStore(cfg.store.root)
    items: list[Imported] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    trials: dict[tuple[str, int], str] = {}  # (task, trial) → where it was read
    pending: list[tuple[Imported, str]] = []  # conversations whose trial is numbered once every explicit one is known
    for path in paths:
        for where, number, data in read_records(path):
            try:
                if isinstance(data, RecordError):
                    raise data
                item = parse_record(data, f"{path.stem}-{number}", agent, benchmark, label or path.stem)
                explicit_task = isinstance(data.get("metadata"), dict) and data["metadata"].get("task") is not None
                item = _grouped(item, pattern, explicit_task)
                # one row per conversation id: a second one would silently replace the first in every report
                _require(item.conversation not in seen, "metadata.id",
                         f"{item.conversation!r} already imported from {seen.get(item.conversation)}")
                if item.trial is not None:
                    _require((item.task, item.trial) not in trials, "metadata.trial",
                             f"task {item.task!r} trial {item.trial} already imported from {trials.get((item.task, item.trial))}")
                    trials[(item.task, item.trial)] = f"{path}:{where}"
                else:
                    pending.append((item, f"{path}:{where}"))
                seen[item.conversation] = f"{path}:{where}"
                items.append(item)
            except RecordError as exc:
                errors.append(f"{path}:{where}: {exc}")
    numbered: dict[int, Imported] = {}
    for item, where in pending:  # the task's next free trial, in the order the conversations were read
        trial = next(t for t in itertools.count() if (item.task, t) not in trials)
        trials[(item.task, trial)] = where
        numbered[id(item)] = replace(item, trial=trial)
    items = [numbered.get(id(item), item) for item in items]
    if not items:
        return items, errors
    started = datetime.now(UTC)
    agents = {item.rollout.agent for item in items}
    if len(agents) == 1:  # the run is named after the one agent the metadata names
        cfg = cfg.model_copy(update={"agent": cfg.agent.model_copy(update={"name": agents.pop()})})
    labels = sorted({item.benchmark for item in items})  # the run's label: its rows' (several joined by '+')
    cfg = cfg.model_copy(update={"benchmark": cfg.benchmark.model_copy(update={"name": "+".join(labels)})})
    per_task = Counter(item.task for item in items)  # run.trials: the most trials of a task, as a run with trials
    cfg = cfg.model_copy(update={"run": cfg.run.model_copy(update={"trials": max(per_task.values())})})
    rows = [result_row(item, cfg) for item in items]
    for item in items:
        store.put("rollouts", item.rollout.key, item.rollout)
        store.put(CONTEXT_KIND, item.rollout.key, item.context)
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / CONFIG_FILE, cfg.model_dump(mode="json"))
    tmp = out / f".{RESULTS_FILE}.tmp"
    tmp.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    tmp.replace(out / RESULTS_FILE)
    tasks: dict[str, dict[int, str]] = {}
    for item in items:
        tasks.setdefault(item.task, {})[item.trial or 0] = item.conversation
    write_json_atomic(out / IMPORT_FILE, {"files": [str(p) for p in paths], "imported": len(items), "errors": errors,
                                          "task_pattern": pattern.pattern if pattern is not None else None,
                                          "tasks": {task: dict(sorted(t.items())) for task, t in sorted(tasks.items())},
                                          "not_applicable": {i.conversation: i.context.not_applicable for i in items}})
    summary = summarize(rows, cfg, started=started, wall_time_s=0.0, benchmark_version=benchmark.version)
    write_json_atomic(out / SUMMARY_FILE, summary.model_dump(mode="json"))  # written last: marks the run finished
    return items, errors


def load_imported(run_dir: Path) -> list[tuple[Imported, ResultRow]]:
    """The conversations of an imported run folder, with their contexts from the store (for ``judges validate --run``)."""
    results = run_dir / RESULTS_FILE
    config = run_dir / CONFIG_FILE
    if not results.is_file() or not config.is_file():
        raise ConfigError(f"{run_dir} is not a run folder (no {RESULTS_FILE} or {CONFIG_FILE}). Fix: give a folder written by skillbench import")
    root = Path(str((json.loads(config.read_text(encoding="utf-8")).get("store") or {}).get("root") or "outputs/store"))
    store = ArtifactStore(root)
    out: list[tuple[Imported, ResultRow]] = []
    for number, line in enumerate(json_lines(results.read_bytes()), start=1):
        row = ResultRow.model_validate_json(line)
        if row.user_sim != IMPORTED:  # a job of skillbench itself: its rollouts have no import context and no human labels
            raise ConfigError(
                f"{run_dir} is a run of skillbench itself (agent {row.agent}, judge {row.judge} on {row.benchmark}), not a folder "
                "written by skillbench import; --run compares judges with the human labels of imported conversations. Fix: to "
                f"measure judges on that agent's rollouts, drop --run and pass --agents {row.agent} benchmark={row.benchmark}; "
                "to compare them with people's labels, skillbench import your labelled transcripts and pass that folder")
        rollout = store.get("rollouts", row.rollout_key or "", Rollout)
        context = store.get(CONTEXT_KIND, row.rollout_key or "", ImportedContext)
        if rollout is None or context is None:
            missing = "rollout" if rollout is None else "import context"
            raise ConfigError(f"{results}:{number}: the {missing} of {row.scenario_id} ({row.rollout_key}) is not in the store {root} "
                              "named by its config.json. Fix: run from the folder the import ran in, or import again")
        out.append((Imported(rollout, context, row.benchmark, conversation=rollout.scenario_id, task=row.scenario_id,
                             trial=row.trial), row))
    return out


# A judge's verdict on one imported conversation, as ``judges validate --run`` hands it over: passed, scores (with the
# explanation), the pass rule's fail reasons, the judge error, the verdict key.
JudgeReading = tuple[bool | None, JudgeScores | None, list[str], str | None, str | None]


def write_judge_job(out: Path, import_dir: Path, pairs: list[tuple[Imported, ResultRow]], judge: str, judge_cfg: RunConfig | None,
                    readings: dict[str, JudgeReading], panel: dict[str, Any] | None = None) -> None:
    """A job folder of ``judge``'s verdicts on the conversations of ``import_dir``: its rows are the import's (same
    rollout keys, rule checks, path) with the judge's verdict, so a report over both folders pairs each judge row
    with the human label of the same conversation. ``judge_cfg`` None: the panel (named, no model); ``panel`` (its vote
    and members) marks the job as a panel column, so reports leave it out of the mean over judges as they do
    pass_rule.panel's."""
    cfg = RunConfig.model_validate(json.loads((import_dir / CONFIG_FILE).read_text(encoding="utf-8")))
    judge_part = judge_cfg.judge if judge_cfg is not None else cfg.judge.model_copy(update={"name": judge, "model": judge})
    cfg = cfg.model_copy(update={"judge": judge_part.model_copy(update={"name": judge})})
    rows = []
    for item, row in pairs:
        passed, scores, reasons, error, verdict_key = readings.get(item.rollout.key, (None, None, [], "not judged", None))
        rows.append(row.model_copy(update={"judge": judge, "passed": passed, "scores": scores, "fail_reasons": reasons,
                                           "judge_error": error, "verdict_key": verdict_key}))
    out.mkdir(parents=True, exist_ok=True)
    (out / SUMMARY_FILE).unlink(missing_ok=True)  # rewritten last: a half-written folder never reads as finished
    config = cfg.model_dump(mode="json")
    if panel is not None:
        config["judge"][PANEL_KEY] = panel
    write_json_atomic(out / CONFIG_FILE, config)
    tmp = out / f".{RESULTS_FILE}.tmp"
    tmp.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    tmp.replace(out / RESULTS_FILE)
    summary = summarize(rows, cfg, started=datetime.now(UTC), wall_time_s=0.0,
                        benchmark_version=rows[0].benchmark_version if rows else "")
    write_json_atomic(out / SUMMARY_FILE, summary.model_dump(mode="json"))
