"""The mining pipeline's model stages: representative workflow, skill writer (per-transcript instructions, merge) and judge.

Every call goes through litellm (:class:`~skillbench.models.client.ModelClient`) with a versioned
prompt (:mod:`skillbench.mining.prompts`); every reply is validated by a pydantic model and checked
against what the model was given (actions that occur in the cluster, tools in the catalogue). A
malformed reply is answered with what is wrong and asked again, up to ``attempts`` replies in all;
then the item is dropped with the reason recorded. An endpoint failure drops the item for this run
only (the caller does not store it), so the next run asks again.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from skillbench.benchmark.generator.model import StepSpec
from skillbench.core.errors import InfrastructureError, ModelOutputError, first_error
from skillbench.mining.prompts import prompt
from skillbench.mining.records import ActionSequence, Cluster, Conversation, Workflow
from skillbench.mining.represent import collapse, representative
from skillbench.mining.skillwriter import IDENTITY_FACTS, ServerDef, reads_only
from skillbench.models.client import ModelClient

T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)
MODEL_ERROR = "model error"  # prefix of drops that are not stored (the endpoint failed, not the model)
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def new_usage() -> dict[str, float]:
    return {"calls": 0.0, "prompt_tokens": 0.0, "completion_tokens": 0.0, "cost_usd": 0.0, "seconds": 0.0}


def add_usage(total: dict[str, float], more: Mapping[str, float]) -> dict[str, float]:
    for key, value in more.items():
        total[key] = total.get(key, 0.0) + value
    return total


def load_json(text: str | None, model: type[R]) -> R:
    """``text`` as ``model`` (a fenced block is unwrapped); ValueError saying what is wrong."""
    if not text or not text.strip():
        raise ValueError("empty reply")
    body = text.strip()
    if body.startswith("```"):  # models often fence JSON
        body = body.strip("`").removeprefix("json").strip()
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        where, message = first_error(exc)
        raise ValueError(f"not the requested JSON: {where or '(reply)'}: {message}") from None


async def ask(client: ModelClient, system: str, user: str, parse: Callable[[str | None], T],
              attempts: int) -> tuple[T | None, dict[str, float], str | None]:
    """The parsed reply, the usage spent, and why there is none (``model error: ...`` or ``malformed ...``)."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    usage = new_usage()
    problem = ""
    for _ in range(attempts):
        started = time.perf_counter()
        try:
            reply = await client.complete(messages)
        except InfrastructureError as exc:
            return None, usage, f"{MODEL_ERROR}: {str(exc)[:200]}"
        except ModelOutputError as exc:  # the provider refused the model's own output: a malformed reply
            usage["seconds"] += time.perf_counter() - started
            problem = f"refused by the provider: {str(exc)[:120]}"
            continue
        add_usage(usage, {"calls": 1.0, "prompt_tokens": reply.usage.prompt_tokens, "seconds": time.perf_counter() - started,
                          "completion_tokens": reply.usage.completion_tokens, "cost_usd": reply.usage.cost_usd})
        try:
            return parse(reply.content), usage, None
        except ValueError as exc:
            problem = str(exc)
            # Say what was wrong: a model corrects a named mistake more often than it avoids a repeated one.
            messages += [{"role": "assistant", "content": reply.content or ""},
                         {"role": "user", "content": f"That reply cannot be used: {problem}. Reply again, JSON only, as specified."}]
    return None, usage, f"malformed model reply after {attempts} attempts: {problem[:200]}"


# -- replies -----------------------------------------------------------------------------------------

class ActionsReply(BaseModel):
    actions: list[str] = Field(min_length=1, description="The representative workflow's actions in order.")


class InstructionsReply(BaseModel):
    tools: list[str] = Field(default_factory=list, description="Catalogue tools the agent used or should have used.")
    instructions: list[str] = Field(min_length=1, description="The agent's instructions for this kind of call, in order.")


class StepReply(BaseModel):
    kind: Literal["collect", "lookup", "act", "inform"] = Field(description="What the step does.")
    text: str = Field(min_length=1, description="The instruction.")
    tool: str | None = Field(None, description="lookup/act: the catalogue tool.")
    facts: list[str] = Field(default_factory=list, description="collect: the caller facts asked for.")


class MergedSkill(BaseModel):
    name: str = Field(min_length=1, description="Skill name.")
    capability: str = Field(min_length=1, description="One sentence: what the skill does.")
    steps: list[StepReply] = Field(min_length=1, description="The workflow between verification and confirmation.")
    guardrails: list[str] = Field(default_factory=list, description="Skill-specific guardrails.")
    success: list[str] = Field(default_factory=list, description="Success criteria.")


class JudgeReply(BaseModel):
    keep: bool = Field(description="Whether the skill goes into the benchmark.")
    quality: int = Field(ge=1, le=5, description="1 (unusable) to 5 (ready as is).")
    reason: str = Field(min_length=1, description="Why, in one sentence.")
    fixes: list[str] = Field(default_factory=list, description="What the judge corrected.")
    steps: list[StepReply] | None = Field(None, description="The corrected steps, or null when they stand.")
    guardrails: list[str] = Field(default_factory=list, description="Guardrails to add.")


class Instructions(BaseModel):
    """One sampled transcript's contribution to its cluster's skill (a stored item of the skills stage)."""

    conversation_id: str = Field(description="The transcript.")
    tools: list[str] = Field(default_factory=list, description="Catalogue tools predicted for it.")
    instructions: list[str] = Field(default_factory=list, description="Its per-transcript instructions.")
    dropped: str | None = Field(None, description="Why the model gave none.")
    usage: dict[str, float] = Field(default_factory=dict, description="Model calls, tokens, cost and seconds spent.")


# -- catalogue ---------------------------------------------------------------------------------------

def catalogue_text(servers: Sequence[ServerDef]) -> str:
    return "\n".join(f"- {tool.name}: {tool.description}" for server in servers for tool in server.tools)


def to_steps(replies: Sequence[StepReply], apis: Mapping[str, str], max_facts: int) -> list[StepSpec]:
    """Model steps as template steps; ValueError naming an unknown tool, a bad fact name or no tool step.

    The catalogue decides lookup vs act (a read-only tool is a lookup whatever the model called it);
    identity facts are left to the verification step the generator adds.
    """
    steps: list[StepSpec] = []
    facts_seen: list[str] = []
    for reply in replies:
        if reply.kind in {"lookup", "act"}:
            if reply.tool not in apis:
                raise ValueError(f"tool '{reply.tool}' is not in the catalogue")
            kind = "lookup" if reads_only(apis[reply.tool]) else "act"
            steps.append(StepSpec(kind=kind, tool=reply.tool, text=reply.text))
        elif reply.kind == "collect":
            bad = [f for f in reply.facts if not _SNAKE.match(f)]
            if bad:
                raise ValueError(f"fact names not in snake_case: {bad[:3]}")
            wanted = [f for f in reply.facts if f not in IDENTITY_FACTS and f not in facts_seen]
            wanted = wanted[:max(0, max_facts - len(facts_seen))]
            for i in range(0, len(wanted), 2):  # the house rule: at most two questions at a time
                steps.append(StepSpec(kind="collect", facts=tuple(wanted[i:i + 2]), text=reply.text))
            facts_seen += wanted
        else:
            steps.append(StepSpec(kind="inform", text=reply.text))
    if not any(s.kind in {"lookup", "act"} for s in steps):
        raise ValueError("no lookup or act step with a catalogue tool")
    return steps


# -- stages ------------------------------------------------------------------------------------------

def sequences_text(cluster: Cluster, by_id: Mapping[str, ActionSequence], limit: int) -> tuple[str, set[str]]:
    counts = Counter(tuple(collapse(by_id[m].actions)) for m in cluster.members)
    lines = [f"{n} x {', '.join(seq)}" for seq, n in counts.most_common(limit)]
    vocabulary = {a for m in cluster.members for a in by_id[m].actions}
    head = (f"Call purpose: {cluster.group}\n{len(cluster.members)} conversations; the {len(lines)} most common "
            f"action sequences (count x actions):\n")
    return head + "\n".join(lines), vocabulary


async def represent(client: ModelClient, cluster: Cluster, by_id: Mapping[str, ActionSequence], *, version: str,
                    attempts: int, samples: int, max_sequences: int) -> Workflow:
    """The cluster's workflow written by the model (samples and tools as for the medoid), or the drop."""
    base = representative(cluster, dict(by_id), samples)
    text, vocabulary = sequences_text(cluster, by_id, max_sequences)

    def parse(reply: str | None) -> list[str]:
        actions = load_json(reply, ActionsReply).actions
        unknown = [a for a in actions if a not in vocabulary]
        if unknown:
            raise ValueError(f"actions that occur in no sequence: {unknown[:3]}")
        return collapse(actions)

    actions, usage, problem = await ask(client, prompt("represent", version), text, parse, attempts)
    if actions is None:
        return base.model_copy(update={"actions": [], "dropped": problem, "usage": usage})
    return base.model_copy(update={"actions": actions, "usage": usage})


def transcript_text(conversation: Conversation) -> str:
    lines = []
    for turn in conversation.turns:
        for call in turn.tool_calls:
            lines.append(f"[tool call] {call.name}({json.dumps(call.arguments, ensure_ascii=False)})")
        if turn.text:
            lines.append(f"{turn.speaker.upper()}: {turn.text}")
    return "\n".join(lines)


async def instructions(client: ModelClient, conversation: Conversation, catalogue: str, tools: set[str], *,
                       version: str, attempts: int) -> Instructions:
    def parse(reply: str | None) -> InstructionsReply:
        parsed = load_json(reply, InstructionsReply)
        unknown = [t for t in parsed.tools if t not in tools]
        if unknown:
            raise ValueError(f"tools not in the catalogue: {unknown[:3]}")
        return parsed

    user = f"Tool catalogue:\n{catalogue}\n\nTranscript:\n{transcript_text(conversation)}"
    parsed, usage, problem = await ask(client, prompt("instructions", version), user, parse, attempts)
    if parsed is None:
        return Instructions(conversation_id=conversation.id, dropped=problem, usage=usage)
    return Instructions(conversation_id=conversation.id, tools=parsed.tools, instructions=parsed.instructions, usage=usage)


async def merge(client: ModelClient, workflow: Workflow, notes: Sequence[Instructions], catalogue: str,
                apis: Mapping[str, str], *, version: str, attempts: int,
                max_facts: int) -> tuple[tuple[MergedSkill, list[StepSpec]] | None, dict[str, float], str | None]:
    def parse(reply: str | None) -> tuple[MergedSkill, list[StepSpec]]:
        merged = load_json(reply, MergedSkill)
        return merged, to_steps(merged.steps, apis, max_facts)

    per = "\n".join(f"{i}. tools: {', '.join(n.tools) or '-'}; steps: " + " | ".join(n.instructions)
                    for i, n in enumerate(notes, start=1))
    user = (f"Call purpose: {workflow.group}\nRepresentative workflow: {', '.join(workflow.actions)}\n\n"
            f"Tool catalogue:\n{catalogue}\n\nInstructions from {len(notes)} transcripts:\n{per}")
    return await ask(client, prompt("merge", version), user, parse, attempts)


async def judge(client: ModelClient, skill: dict[str, object], catalogue: str, apis: Mapping[str, str], *, version: str,
                attempts: int, max_facts: int) -> tuple[tuple[JudgeReply, list[StepSpec] | None] | None, dict[str, float], str | None]:
    def parse(reply: str | None) -> tuple[JudgeReply, list[StepSpec] | None]:
        verdict = load_json(reply, JudgeReply)
        return verdict, (to_steps(verdict.steps, apis, max_facts) if verdict.steps else None)

    user = f"Tool catalogue:\n{catalogue}\n\nSkill:\n{json.dumps(skill, indent=1, ensure_ascii=False)}"
    return await ask(client, prompt("judge", version), user, parse, attempts)
