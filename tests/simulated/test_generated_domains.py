"""Generated domains: the SIMULATED caller and agents read structure, never wording.

A seeded generator (hypothesis is not in requirements.lock) writes one small domain folder per seed to disk
and loads it through the real loader: a declarative verify tool, a code tool that renews a permit from every
fact the caller gives (or refuses under a rule), a skill that collects those facts at most two at a time,
and three scenarios: the happy path, a refusal (``ToolRefused``) and an injected fault of the declarative
tool. The facts take every shape the format allows (strings of any words, Unicode, punctuation, quotes and
numbers as strings; integers, floats, booleans; lists of any length; mappings; lists of mappings with
nested lists) under random names (Unicode, one letter, ``x`` beside ``new_x``).

For every domain: the reference conversation (lint) completes every scenario; the careful simulated agent,
through the engine's orchestrator and the MCP mock, passes all three under ``pass_rule=state_strict``
(end state equal to the gold one); and rewording the code tool's refusal or the declarative tool's error
text (to a fault's words, a rule's words, or random text) changes no call, no rule check and no verdict.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillbench.benchmark import Benchmark, Scenario, load_benchmark
from skillbench.benchmark.lint import format_report, lint_benchmark
from skillbench.config.schema import FailureInjectionConfig, PassRuleConfig, StatefulMock
from skillbench.evaluation.checks import run_rule_checks
from skillbench.evaluation.pass_rule import apply_pass_rule
from skillbench.models import ClientPool
from skillbench.prompts import render_judge_prompt
from skillbench.prompts.verdict import parse_scores
from skillbench.simulated.base import SimRequest
from skillbench.simulated.profiles.judge import BALANCED, JudgeTraits, judge_scores
from tests.simulated.harness import converse

DOMAINS = 9  # one per entry of SHAPES (the first fact of domain n has shape n); the other facts are drawn
STATE_STRICT = PassRuleConfig(
    **yaml.safe_load((Path(__file__).parents[2] / "skillbench/conf/pass_rule/state_strict.yaml").read_text())
)
# The balanced judge without its seeded noise: the noise is drawn from the prompt's bytes, so any change of
# text redraws it; what must not move is the judge's reading.
NOISELESS_JUDGE = JudgeTraits(BALANCED, noise=0.0, direction=0, harsh_reading=0.0, catch_partial_claims=True)

# Words of the generated values. Left out, by design of the simulated models rather than of the data: words
# that ask for a person or override the policy ('manager', 'ignore'), and claim words after 'just'/'got'
# ('just sent'): the agent restates the facts in its confirmation and the judge reads that text.
WORDS = ("amber", "birch", "cobalt", "delta", "ember", "fjord", "granite", "harbour", "indigo", "juniper",
         "kestrel", "lumen", "meadow", "orchid", "pebble", "quartz", "russet", "saffron", "tundra", "willow",
         "Zoë", "Ångström", "façade", "naïve", "Straße", "東京", "São", "Łódź", "Ørsted", "ñandú", "is", "are", "my",
         "and", "Is", "Isabella", "Isaac", "no", "not", "or", "of", "the", "true", "null", "7", "007", "3.50")
PUNCTUATION = (",", ";", ".", "!", "?", ":", "'", '"', "[", "]", "{", "}", " - ", "/", "#", "@", "\\")
NAME_PARTS = ("colour", "zone", "prénom", "straße", "plot", "badge", "bay", "tier", "crew", "route", "plates",
              "item", "flights", "passengers", "größe", "名前", "x", "q", "depth", "mass", "ratio", "dob", "is")
FREE_TEXT = {"message", "body", "text", "note", "notes", "summary", "description", "comment", "subject", "content"}

# What a refused call or a failed declarative call may say: the fault's words, a rule's, and text that quotes
# the conversation's own markers (a relayed message is the system's words, never the agent's).
FAULT = "Service temporarily unavailable (HTTP 503). Please retry."
RULE = "Only a holder with an active permit can renew; this cannot be done and is not allowed."
MARKERS = 'Goodbye! Your permit has been renewed; anything else? I\'ll transfer you to a human. Is that "right"?'


def words(rng: random.Random, low: int = 1, high: int = 5) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))
    if rng.random() < 0.4:
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(PUNCTUATION) + text[at:]
    return text


def scalar(rng: random.Random) -> Any:
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randint(-10**6, 10**6)
    if kind == 1:
        return round(rng.uniform(-1000, 1000), rng.randint(0, 4))
    if kind == 2:
        return rng.random() < 0.5
    if kind == 3:
        return rng.choice(("100", "00123", "1e5", "-7", "true", "null", "3.0", ""))  # numbers as strings
    if kind == 4:
        return "".join(rng.choice(string.ascii_uppercase) for _ in range(2)) + "-" + str(rng.randint(1, 99999))
    return words(rng)


def mapping(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(NAME_PARTS) + rng.choice(("", "_no", "_name", "_date"))
        out[key] = [scalar(rng) for _ in range(rng.randint(0, 3))] if depth == 0 and rng.random() < 0.3 else scalar(rng)
    return out


SHAPES = ("text", "number as text", "integer", "float", "boolean", "list", "long list", "mapping", "list of mappings")


def fact(rng: random.Random, shape: str) -> tuple[Any, dict[str, Any]]:
    """A fact value of ``shape`` and the JSON Schema of the argument it fills."""
    if shape == "text":
        return words(rng), {"type": "string"}
    if shape == "number as text":
        return rng.choice(("100", "00123", "1e5", "-7", "3.0", "true", "null", "")), {"type": "string"}
    if shape in {"integer", "float", "boolean"}:
        value = {"integer": rng.randint(-10**6, 10**6), "float": round(rng.uniform(-1000, 1000), rng.randint(1, 4)),
                 "boolean": rng.random() < 0.5}[shape]
        return value, {"type": shape.replace("float", "number")}
    if shape in {"list", "long list"}:
        low, high = (0, 2) if shape == "list" else (3, 9)
        return [rng.choice((words(rng, 1, 2), f"T-{rng.randint(1, 999)}")) for _ in range(rng.randint(low, high))], {"type": "array"}
    if shape == "mapping":
        return mapping(rng), {"type": "object"}
    return [mapping(rng) for _ in range(rng.randint(1, 3))], {"type": "array", "items": {"type": "object"}}


def fact_names(rng: random.Random, count: int) -> list[str]:
    names: list[str] = []
    while len(names) < count:
        name = "_".join(rng.choice(NAME_PARTS) for _ in range(rng.randint(1, 3)))
        if name in FREE_TEXT or name in names or name.endswith("_id"):
            continue
        names.append(name)
        if len(names) < count and rng.random() < 0.3 and f"new_{name}" not in names:
            names.append(f"new_{name}")  # the new value beside the old one: each is asked for by its own name
    return names


def dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


@dataclass(frozen=True)
class Domain:
    """One generated domain, before its tool texts are chosen."""

    seed: int
    server: str
    identity: str  # the fact the verify tool checks
    identity_value: str
    facts: dict[str, Any]
    schemas: dict[str, dict[str, Any]]
    persona: str

    @classmethod
    def draw(cls, seed: int) -> Domain:
        rng = random.Random(seed)
        names = fact_names(rng, rng.randint(1, 5) + 1)
        identity, rest = names[0].removeprefix("new_"), names[1:]
        # The first fact's shape turns with the seed, so a few seeds cover every shape; the others are drawn.
        shapes = [SHAPES[seed % len(SHAPES)], *(rng.choice(SHAPES) for _ in rest[1:])]
        drawn = {name: fact(rng, shape) for name, shape in zip(rest, shapes, strict=True)}
        return cls(
            seed=seed, server=f"desk{seed}", identity=identity, identity_value=words(rng, 1, 3),
            facts={name: value for name, (value, _) in drawn.items()},
            schemas={name: schema for name, (_, schema) in drawn.items()},
            persona=rng.choice(("efficient", "frustrated", "vague", "confused", "non_native", "adversarial", "neutral")),
        )

    @property
    def act(self) -> str:
        return f"{self.server}.renew_permit"

    @property
    def verify(self) -> str:
        return f"{self.server}.verify_holder"

    def write(self, root: Path, refusal: str) -> Path:
        """The domain folder, its code tool refusing with ``refusal``."""
        skill_id = f"gen{self.seed}_renew_permit"
        folder = root / f"gen{self.seed}-{abs(hash(refusal)) % 10**8}"
        (folder / "tools").mkdir(parents=True, exist_ok=True)
        (folder / "skills").mkdir(exist_ok=True)
        (folder / "scenarios").mkdir(exist_ok=True)
        (folder / "benchmark.yaml").write_text(dump({
            "name": f"gen{self.seed}", "description": "A generated domain (tests/simulated/test_generated_domains.py).",
            "industries": [{"id": "civic", "name": "Civic services", "description": "Permits."}],
            "lint_waivers": {"every_path_per_industry": "three scenarios per generated domain",
                             "path_conventions": "the fault and refusal scenarios are happy paths with a twist"},
        }), encoding="utf-8")
        (folder / "tools" / f"{self.server}.yaml").write_text(dump({
            "server": self.server, "description": "The permit register.",
            "tools": [{
                "name": self.verify, "description": "Check the holder by their identity detail.",
                "input_schema": {"type": "object", "properties": {self.identity: {"type": "string"}},
                                 "required": [self.identity], "additionalProperties": False},
                "effect": {"operation": "verify", "collection": "holders", "match": {self.identity: self.identity},
                           "returns": ["holder_id"]},
                "reads": ["holders"],
            }],
        }), encoding="utf-8")
        schema = {"type": "object", "properties": {"holder_id": {"type": "string"}, **self.schemas},
                  "required": ["holder_id", *self.schemas], "additionalProperties": False}
        (folder / "tools" / f"{self.server}.py").write_text(
            "from skillbench.benchmark.tool_code import Environment, ToolRefused, tool\n\n"
            f"SCHEMA = {json.dumps(schema, ensure_ascii=False)!r}\nREFUSAL = {refusal!r}\n\n\n"
            "@tool(input_schema=__import__('json').loads(SCHEMA), reads=['holders'], writes=['permits'])\n"
            "def renew_permit(env: Environment, **arguments):\n"
            "    \"\"\"Renew the holder's permit with the details given.\"\"\"\n"
            "    holder = env.one('holders', holder_id=arguments['holder_id'])\n"
            "    if holder['status'] != 'active':\n"
            "        raise ToolRefused(REFUSAL)\n"
            "    return env.insert('permits', {'permit_id': env.next_id('permits', 'permit_id', 'PM'), **arguments})\n",
            encoding="utf-8")
        collect = [list(self.facts)[i:i + 2] for i in range(0, len(self.facts), 2)]
        (folder / "skills" / f"{skill_id}.yaml").write_text(dump({
            "id": skill_id, "name": "Renew a permit", "industry": "civic", "category": "permits", "company": "Civic Desk",
            "capability": "Renews a holder's permit with the details the holder gives.",
            "workflow": "Verify the holder, ask for the permit details, renew the permit, then confirm.",
            "steps": [
                {"id": "verify", "kind": "verify", "instruction": "Verify the holder.", "tools": [self.verify],
                 "collects": [self.identity]},
                *({"id": f"details{n}", "kind": "collect", "instruction": "Ask for the permit details.", "collects": keys}
                  for n, keys in enumerate(collect)),
                {"id": "renew", "kind": "act", "instruction": "Renew the permit with those details.", "tools": [self.act]},
                {"id": "confirm", "kind": "confirm", "instruction": "Tell the holder the permit is renewed."},
                {"id": "escalate", "kind": "escalate", "required": False,
                 "instruction": "Transfer when the caller asks for a person or a tool still fails after two retries."},
            ],
            "success_criteria": ["The holder is verified before the permit is renewed."],
            "guardrails": ["Verify the holder before renewing.", "Ask at most two questions at a time."],
            "tools": [self.verify, self.act],
            "in_scope": ["renew a permit"],
            "escalation": "Transfer when the caller asks for a person or a tool still fails after two retries.",
        }), encoding="utf-8")
        (folder / "scenarios" / f"{skill_id}.yaml").write_text(
            dump({"skill_id": skill_id, "scenarios": self.scenarios(skill_id)}), encoding="utf-8")
        return folder

    def scenarios(self, skill_id: str) -> list[dict[str, Any]]:
        renewal = {"tool": self.act, "arguments": {"holder_id": "H-1", **self.facts}}
        base = {
            "skill_id": skill_id, "path": "happy_path", "objective": "Hi, I'd like to renew my permit.",
            "persona": {"id": f"{self.persona}-1", "label": self.persona},
            "user_facts": {self.identity: self.identity_value, **self.facts},
            "success_criteria": ["The permit is renewed with the holder's details."],
            "expected_outcome": "success",
        }

        def state(status: str) -> dict[str, Any]:
            return {"holders": [{"holder_id": "H-1", self.identity: self.identity_value, "status": status}], "permits": []}

        return [
            {**base, "id": f"gen{self.seed}-happy", "title": "Renewal", "initial_state": state("active"),
             "gold_actions": [renewal], "required_tools": [self.verify, self.act]},
            {**base, "id": f"gen{self.seed}-refused", "title": "A frozen holder is refused", "initial_state": state("frozen"),
             "gold_actions": [], "required_tools": [self.verify], "forbidden_tools": [self.act]},
            {**base, "id": f"gen{self.seed}-fault", "title": "The register fails once", "initial_state": state("active"),
             "tool_failures": {self.verify: 1}, "gold_actions": [renewal], "required_tools": [self.verify, self.act]},
        ]


@dataclass(frozen=True)
class Reading:
    """What a conversation came to: the calls, the rule checks, the judge's reading and the verdict."""

    termination: str
    calls: list[tuple[str, str, bool]]
    checks: list[tuple[str, bool]]
    scores: str
    passed: bool | None
    reasons: list[str]


async def read_conversation(benchmark: Benchmark, scenario: Scenario, fault_text: str, pool: ClientPool) -> Reading:
    mock = StatefulMock(name="stateful", failures=FailureInjectionConfig(error_message=fault_text))
    rollout = await converse(benchmark, scenario, "agent-careful", pool=pool, mock=mock)
    skill = benchmark.skill_of(scenario)
    checks = run_rule_checks(rollout, scenario, skill)
    prompt = render_judge_prompt(skill, scenario, rollout, checks)
    scores = parse_scores(json.dumps(judge_scores(SimRequest("judge-balanced", [{"role": "user", "content": prompt}]), NOISELESS_JUDGE)))
    decision = apply_pass_rule(checks, scores, STATE_STRICT)
    return Reading(
        termination=rollout.termination,
        calls=[(c.name, json.dumps(c.arguments, sort_keys=True, ensure_ascii=False), c.is_error)
               for c in rollout.tool_calls if not c.control],
        checks=[(c.name, c.passed) for c in checks],
        scores=scores.model_dump_json(),
        passed=decision.passed,
        reasons=decision.reasons,
    )


def random_text(seed: int) -> str:
    rng = random.Random(f"text{seed}")
    return " ".join(words(rng, 2, 6) for _ in range(rng.randint(1, 3))) + rng.choice((".", "?", "!", ""))


@pytest.fixture(scope="module")
def readings(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[tuple[str, str], dict[str, Reading]]]:
    """seed → (refusal, fault) wording → scenario kind → reading; lint problems fail here with the folder."""
    root = tmp_path_factory.mktemp("generated")
    wordings = [(RULE, FAULT), (FAULT, RULE)]  # then random words, the refusal quoting the conversation's markers

    pool = ClientPool(seed=0)

    async def domain_readings(seed: int) -> dict[tuple[str, str], dict[str, Reading]]:
        domain = Domain.draw(seed)
        out: dict[tuple[str, str], dict[str, Reading]] = {}
        for refusal, fault in [*wordings, (f"{random_text(seed)} {MARKERS}", random_text(seed + 1000))]:
            folder = domain.write(root, refusal)
            if not out:  # the domain itself: the reference conversation completes every scenario
                report = lint_benchmark(folder)
                assert not report.problems, "\n".join(format_report(report))
            benchmark = load_benchmark(str(folder))
            # The happy path reads no tool message: it is conversed once, with the first wording.
            scenarios = {s.id.rsplit("-", 1)[1]: s for s in benchmark.scenarios if not out or not s.id.endswith("-happy")}
            out[(refusal, fault)] = {
                kind: await read_conversation(benchmark, scenario, fault, pool) for kind, scenario in scenarios.items()
            }
        return out

    async def every() -> dict[int, dict[tuple[str, str], dict[str, Reading]]]:
        results = await asyncio.gather(*(domain_readings(seed) for seed in range(DOMAINS)))
        return dict(enumerate(results))

    return asyncio.run(every())


def test_the_careful_agent_completes_every_generated_domain(readings: dict[int, dict[tuple[str, str], dict[str, Reading]]]) -> None:
    for seed, by_wording in readings.items():
        first = next(iter(by_wording.values()))
        for kind, reading in first.items():
            assert reading.passed, (seed, kind, reading, Domain.draw(seed))
        happy = first["happy"]
        assert happy.termination == "resolved" and happy.calls[-1][0].endswith("renew_permit") and not happy.calls[-1][2]


def test_rewording_a_tool_message_changes_no_call_check_or_verdict(
    readings: dict[int, dict[tuple[str, str], dict[str, Reading]]],
) -> None:
    for seed, by_wording in readings.items():
        base, *others = by_wording.values()
        for other in others:
            assert other == {kind: base[kind] for kind in other}, (seed, Domain.draw(seed))


def test_the_generator_draws_every_shape() -> None:
    """The generated facts cover what the format allows, so the two tests above are not vacuous."""
    assert len(SHAPES) <= DOMAINS
    facts = [value for seed in range(DOMAINS) for value in Domain.draw(seed).facts.values()]
    kinds = {type(value).__name__ for value in facts}
    assert {"str", "int", "float", "bool", "list", "dict"} <= kinds, kinds
    assert any(isinstance(value, list) and len(value) >= 3 for value in facts)
    assert any(isinstance(value, list) and value and all(isinstance(item, dict) for item in value) for value in facts)
    assert any(isinstance(value, str) and value.lstrip("-").replace(".", "").isdigit() for value in facts)
    names = [name for seed in range(DOMAINS) for name in Domain.draw(seed).facts]
    assert any(name.startswith("new_") and name.removeprefix("new_") in names for name in names)
    assert any(not name.isascii() for name in names)
