"""The template language of the generated benchmark: industries, skill templates, entity factories.

A :class:`SkillSpec` is a reusable template: the skill's vocabulary, its workflow as a few typed steps
(lookup / collect / act / inform) naming catalogue tools, the records its environment holds
(:class:`EntitySpec`), the caller's facts, and the phrasings the scenario paths need. Everything
else (verification, confirmation, guardrails, escalation, the seven paths) is derived from it in
``skills.py`` and ``scenarios.py``, so every skill follows the same, checkable rules.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillbench.benchmark.schema import ToolSpec

# "Today" in the benchmark's world: every generated date is relative to it, never to the clock,
# so a build is byte-for-byte reproducible whatever day it runs.
REFERENCE_DATE = dt.date(2026, 11, 2)


@dataclass(frozen=True)
class ServerDef:
    """One mock system of the catalogue (a ``tools/<name>.yaml`` file)."""

    name: str
    description: str
    tools: tuple[ToolSpec, ...]


@dataclass(frozen=True)
class StepSpec:
    """A workflow step of a skill template; ``tool`` names a catalogue tool, ``facts`` are asked for."""

    kind: str  # lookup | collect | act | inform
    text: str
    tool: str | None = None
    facts: tuple[str, ...] = ()


def lookup(tool: str, text: str) -> StepSpec:
    return StepSpec("lookup", text, tool=tool)


def collect(facts: str, text: str) -> StepSpec:
    return StepSpec("collect", text, facts=tuple(facts.split()))


def act(tool: str, text: str) -> StepSpec:
    return StepSpec("act", text, tool=tool)


def inform(text: str) -> StepSpec:
    return StepSpec("inform", text)


@dataclass(frozen=True)
class Restricted:
    """A tool the policy allows only under a condition the generated scenarios never meet.

    Prompt-injection scenarios ask the agent to use it anyway; it is then a forbidden tool.
    """

    tool: str
    condition: str  # the guardrail, in the policy's words
    abuse: str  # what the injected instruction asks for, completing "... so <abuse>."


Make = Callable[["Ctx"], dict[str, Any]]


@dataclass(frozen=True)
class EntitySpec:
    """Records of one collection in a scenario's environment.

    ``owned`` records belong to a customer (they get ``customer_id``; the other customers in the state
    get one each as well); the others (catalogues, open slots, child lines) are generated once,
    ``count`` times, with ``ctx.index`` telling them apart.
    """

    collection: str
    id_field: str
    prefix: str
    make: Make
    count: int = 1
    owned: bool = True


@dataclass(frozen=True)
class SkillSpec:
    """A skill template. Text fields may use ``{name}`` placeholders: facts, record fields, ``_display`` values."""

    key: str
    name: str
    category: str
    capability: str
    noun: str  # what the skill is about, e.g. "mobile plan" (used in derived sentences)
    steps: tuple[StepSpec, ...]
    entities: tuple[EntitySpec, ...]
    in_scope: tuple[str, ...]
    asks: tuple[str, ...]  # opening requests that state the specifics
    probe: str  # what an unverified caller wants told or done (guardrail path)
    outcome: str  # the concrete success criterion of a completed conversation
    restricted: Restricted
    confirm: str
    asks_bare: tuple[str, ...] = ()  # openings without the collected facts (missing_information)
    facts: Callable[[Ctx], dict[str, str]] | None = None
    guardrails: tuple[str, ...] = ()
    escalate: str = ""  # an extra reason to hand over, appended to the common ones
    success: tuple[str, ...] = ()  # extra skill-level success criteria
    notify: bool = True
    out_of_scope: tuple[str, ...] = ()  # extra out-of-scope openings (the industry pool is added)


@dataclass(frozen=True)
class IndustryDef:
    id: str
    name: str
    description: str
    company: str
    verify_tool: str
    notify_tool: str
    notify_phrase: str  # e.g. "by text message"
    servers: tuple[ServerDef, ...]
    skills: tuple[SkillSpec, ...]
    out_of_scope: tuple[str, ...]
    short: str  # prefix of skill ids, e.g. "telecom"


@dataclass
class Ctx:
    """What an entity factory sees while one scenario's environment is generated."""

    rng: random.Random
    customer: dict[str, str]
    owned: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)  # customer → collection → records
    shared: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    index: int = 0  # which of an entity's ``count`` records is being made
    rotation: int = 0  # per-entity random offset, so catalogue records vary between scenarios

    # -- values -----------------------------------------------------------------------------------

    def id(self, prefix: str, digits: int = 5) -> str:
        """A fresh id unique in this scenario, e.g. ``INV-40213``."""
        while True:
            value = f"{prefix}-{self.rng.randint(10 ** (digits - 1), 10**digits - 1)}"
            if value not in self.taken:
                self.taken.add(value)
                return value

    def date(self, low: int, high: int) -> str:
        """A date ``low``..``high`` days after the reference date (negative: before), ``YYYY-MM-DD``."""
        return (REFERENCE_DATE + dt.timedelta(days=self.rng.randint(low, high))).isoformat()

    def when(self, low: int, high: int) -> str:
        """A business-hours time on a weekday ``low``..``high`` days out, ``YYYY-MM-DDTHH:MM``."""
        day = REFERENCE_DATE + dt.timedelta(days=self.rng.randint(low, high))
        while day.weekday() >= 5:
            day += dt.timedelta(days=1)
        hour, half = self.rng.randint(8, 16), self.rng.choice((0, 30))
        return f"{day.isoformat()}T{hour:02d}:{half:02d}"

    def times(self, count: int, low: int, high: int, avoid: Sequence[str] = ()) -> list[str]:
        """``count`` distinct times (sorted), none equal to ``avoid``."""
        found: set[str] = set()
        while len(found) < count:
            value = self.when(low, high)
            if value not in avoid:
                found.add(value)
        return sorted(found)

    def money(self, low: float, high: float) -> str:
        return f"{self.rng.uniform(low, high):.2f}"

    def digits(self, count: int) -> str:
        return "".join(str(self.rng.randint(0, 9)) for _ in range(count))

    def phone(self) -> str:
        return f"+1-555-{self.rng.randint(100, 999)}-{self.rng.randint(1000, 9999)}"

    def nth(self, options: Sequence[Any]) -> Any:
        """The ``index``-th of ``options`` after this entity's rotation: distinct while count <= len(options)."""
        return options[(self.rotation + self.index) % len(options)]

    def pick(self, options: Sequence[Any]) -> Any:
        return options[self.rng.randrange(len(options))]

    def sample(self, options: Sequence[Any], count: int) -> list[Any]:
        return self.rng.sample(list(options), count)

    # -- records generated so far ------------------------------------------------------------------

    def all(self, collection: str) -> list[dict[str, Any]]:
        mine = self.owned.get(self.customer["customer_id"], {})
        return mine.get(collection) or self.shared.get(collection, [])

    def one(self, collection: str) -> dict[str, Any]:
        """The current customer's first record of ``collection`` (or the first shared one)."""
        records = self.all(collection)
        if not records:
            raise KeyError(f"no {collection!r} record generated yet; list its EntitySpec earlier")
        return records[0]

    def other(self, collection: str, name: str, avoid: Any) -> dict[str, Any]:
        """A record of ``collection`` whose ``name`` differs from ``avoid`` (e.g. another plan)."""
        choices = [record for record in self.all(collection) if record.get(name) != avoid]
        return self.pick(choices)
