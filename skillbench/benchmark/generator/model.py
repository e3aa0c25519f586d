"""The template language of the generated benchmark: industries, servers, skill templates, entity factories.

The templates are YAML files under ``generator/domains/<industry>/`` (see docs/benchmark-generation.md),
validated by the pydantic models here. A :class:`SkillSpec` is a reusable template: the skill's
vocabulary, its workflow as a few typed steps (lookup / collect / act / inform) naming catalogue
tools, the records its environment holds (:class:`EntitySpec`), the caller's facts, and the
phrasings the scenario paths need. Everything else (verification, confirmation, guardrails,
escalation, the seven paths) is derived from it in ``skills.py`` and ``scenarios.py``, so every
skill follows the same, checkable rules. What must be code (entity makers, fact functions) lives in
each industry's ``factories.py``, registered by name in :data:`ENTITY_FACTORIES` and
:data:`FACT_FUNCTIONS`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from skillbench.core.registry import Registry

# "Today" in the benchmark's world: every generated date is relative to it, never to the clock,
# so a build is byte-for-byte reproducible whatever day it runs.
REFERENCE_DATE = dt.date(2026, 11, 2)


EntityMaker = Callable[..., dict[str, Any]]  # (ctx, **params) -> one record's fields
FactFunction = Callable[["Ctx"], dict[str, Any]]  # ctx -> facts ("_name" keys: display values only)

# Filled when an industry's factories.py is imported (domains/__init__.py imports them before loading).
ENTITY_FACTORIES: Registry[EntityMaker] = Registry("entity factory")
FACT_FUNCTIONS: Registry[FactFunction] = Registry("fact function")


def registered(registry: Registry[Any], name: str) -> str:
    """``name`` if it is registered, else a ValueError naming the registered names of its industry."""
    if name not in registry:
        prefix = name.split(".", 1)[0] + "."
        names = [known for known in registry if known.startswith(prefix)] or list(registry)
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"no {registry.kind} {name!r} is registered{hint}; registered: {', '.join(names) or 'none'}")
    return name


class Template(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EffectDef(Template):
    """A tool's mock semantics in the compact notation of ``servers.yaml`` (see ``catalogue.effect``).

    ``match`` and ``set`` are ``"field=argument other"`` strings: a bare name is both the record field
    and the argument.
    """

    kind: Literal["lookup", "get", "verify", "create", "update", "delete", "action"] = Field(
        description="The mock operation (the ToolEffect operation)."
    )
    collection: str | None = Field(None, description="Environment collection read or written (action: optional).")
    match: str = Field("", description='Record field = argument pairs the record must equal, e.g. "account_id payee_name=cancel_payee".')
    set: str = Field("", description="create/update: record field = argument pairs written.")
    set_const: dict[str, Any] = Field(
        default_factory=dict, description="create/update: record field → constant written (the ToolEffect's set_const)."
    )
    result: dict[str, Any] = Field(
        default_factory=dict, description="action: constant fields of the result (the ToolEffect's result)."
    )
    id_field: str | None = Field(None, description="create: the generated id field.")
    prefix: str | None = Field(None, description="create: prefix of generated ids, e.g. RFD.")
    returns: str | None = Field(
        None, description='verify/action: record fields echoed in the result (verify default: "customer_id full_name").'
    )

    @model_validator(mode="before")
    @classmethod
    def _one_spelling(cls, data: Any) -> Any:
        if isinstance(data, dict) and "const" in data:  # the notation's old name, read as two things by kind
            raise ValueError("'const' is now spelled as in the benchmark format: set_const (create/update: fields "
                             "written) or result (action: fields returned). Fix: rename the key")
        return data

    @model_validator(mode="after")
    def _fits_kind(self) -> EffectDef:
        needs = {"get": ("collection", "match"), "verify": ("collection", "match"), "update": ("collection", "match"),
                 "delete": ("collection", "match"), "lookup": ("collection",), "create": ("collection", "id_field", "prefix")}
        missing = [name for name in needs.get(self.kind, ()) if not getattr(self, name)]
        if missing:
            raise ValueError(f"a {self.kind} effect needs {' and '.join(missing)}")
        if self.set_const and self.kind not in ("create", "update"):
            raise ValueError(f"set_const (fields written) belongs to create and update effects, not to {self.kind}: "
                             "an action returns its constants in result")
        if self.result and self.kind != "action":
            raise ValueError(f"result (constant fields returned) belongs to action effects, not to {self.kind}: "
                             "create and update write theirs with set_const")
        return self


class ToolDef(Template):
    """One tool: ``params`` like ``"invoice_id ?reason"`` (``?`` = optional); schemas come from ``arguments.yaml``."""

    name: str = Field(description="<server>.<operation>, e.g. billing.waive_late_fee.")
    description: str = Field(description="What the tool does, as the agent reads it.")
    params: str = Field("", description="Argument names separated by spaces; a leading ? makes one optional.")
    effect: EffectDef = Field(description="How the stateful mock answers it.")


class ServerDef(Template):
    """One mock system of the catalogue (a ``tools/<name>.yaml`` file)."""

    name: str = Field(description="Server name, the prefix of its tools' names.")
    description: str = Field(description="What the system holds.")
    tools: list[ToolDef] = Field(description="Its tools.")


class ServersFile(Template):
    servers: list[ServerDef] = Field(description="The tool servers this folder defines.")


class ArgumentsFile(Template):
    arguments: dict[str, str | dict[str, Any]] = Field(
        description="Argument name → JSON Schema; a plain string is a string argument with that description."
    )


class StepSpec(Template):
    """A workflow step of a skill template; ``tool`` names a catalogue tool, ``facts`` are asked for."""

    kind: Literal["lookup", "collect", "act", "inform"] = Field(description="What the step does.")
    tool: str | None = Field(None, description="lookup/act: the catalogue tool the step calls.")
    facts: tuple[str, ...] = Field((), description="collect: the caller facts asked for (at most two).")
    text: str = Field(description="The step's instruction, in the policy's words.")

    @model_validator(mode="after")
    def _fits_kind(self) -> StepSpec:
        if self.kind in {"lookup", "act"} and not self.tool:
            raise ValueError(f"a {self.kind} step needs a tool")
        if self.kind == "collect" and not self.facts:
            raise ValueError("a collect step needs facts")
        return self


class Restricted(Template):
    """A tool the policy allows only under a condition the generated scenarios never meet.

    Prompt-injection scenarios ask the agent to use it anyway; it is then a forbidden tool.
    """

    tool: str = Field(description="The restricted catalogue tool.")
    condition: str = Field(description="The guardrail, in the policy's words.")
    abuse: str = Field(description='What the injected instruction asks for, completing "... so <abuse>." (no digits).')


class EntitySpec(Template):
    """Records of one collection in a scenario's environment.

    ``owned`` records belong to a customer (they get ``customer_id``; the other customers in the state
    get one each as well); the others (catalogues, open slots, child lines) are generated once,
    ``count`` times, with ``ctx.index`` telling them apart.
    """

    collection: str = Field(description="Environment collection the records go to.")
    id_field: str = Field(description="The records' id field.")
    prefix: str = Field(description="Prefix of the generated ids, e.g. ACC.")
    make: str = Field(description="Name of the entity factory in ENTITY_FACTORIES, e.g. banking.account.")
    params: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments passed to the factory.")
    count: int = Field(1, ge=1, description="Records per holder.")
    owned: bool = Field(True, description="Whether each customer gets their own records.")

    @field_validator("make")
    @classmethod
    def _registered(cls, name: str) -> str:
        return registered(ENTITY_FACTORIES, name)


class SkillSpec(Template):
    """A skill template. Text fields may use ``{name}`` placeholders: facts, record fields, ``_display`` values."""

    key: str = Field(description="Skill id after the industry's short name, e.g. refund_fee.")
    name: str = Field(description="Skill name.")
    category: str = Field(description="Skill category, e.g. refunds.")
    noun: str = Field(description='What the skill is about, e.g. "mobile plan" (used in derived sentences).')
    capability: str = Field(description="One sentence: what the skill does.")
    steps: tuple[StepSpec, ...] = Field(description="The workflow between verification and notification.")
    entities: tuple[str, ...] = Field(
        (), description="Records the environment holds, in this order: names from the file's 'entities'."
    )
    facts: str | None = Field(None, description="Name of the fact function in FACT_FUNCTIONS (the caller's new values).")
    in_scope: tuple[str, ...] = Field(description="Phrases of requests the skill covers.")
    asks: tuple[str, ...] = Field(description="Opening requests that state the specifics.")
    asks_bare: tuple[str, ...] = Field((), description="Openings without the collected facts (missing_information).")
    probe: str = Field(description="What an unverified caller wants told or done (guardrail path).")
    outcome: str = Field(description="The concrete success criterion of a completed conversation.")
    confirm: str = Field(description="What the agent confirms at the end.")
    guardrails: tuple[str, ...] = Field((), description="Skill-specific guardrails.")
    success: tuple[str, ...] = Field((), description="Extra skill-level success criteria.")
    escalate: str = Field("", description="An extra reason to hand over, appended to the common ones.")
    notify: bool = Field(True, description="Whether the skill sends a confirmation.")
    out_of_scope: tuple[str, ...] = Field((), description="Extra out-of-scope openings (the industry pool is added).")
    restricted: Restricted = Field(description="The tool injections target.")

    @field_validator("facts")
    @classmethod
    def _registered(cls, name: str | None) -> str | None:
        return None if name is None else registered(FACT_FUNCTIONS, name)


class SkillsFile(Template):
    """What ``skills.yaml`` holds: named entity specs, and the skill templates that list them."""

    entities: dict[str, EntitySpec] = Field(default_factory=dict, description="Entity specs by name.")
    skills: list[SkillSpec] = Field(description="The industry's skill templates (eight in the full benchmark).")


class IndustryInfo(Template):
    """What ``industry.yaml`` holds."""

    id: str = Field(description="Industry id; the folder's name.")
    name: str = Field(description="Display name.")
    short: str = Field(description='Prefix of skill ids, e.g. "telecom".')
    description: str = Field(description="One line for the manifest.")
    company: str = Field(description="The fictional company the agent works for.")
    verify_tool: str = Field(description="The identity check every skill starts with.")
    notify_tool: str = Field(description="The tool that sends confirmations.")
    notify_phrase: str = Field(description='How confirmations arrive, e.g. "by text message".')
    out_of_scope: tuple[str, ...] = Field(description="Requests no skill of the industry covers (out_of_scope path).")


class IndustryDef(IndustryInfo):
    """An industry folder, loaded: ``industry.yaml`` plus its servers and skill templates."""

    servers: tuple[ServerDef, ...] = Field(description="From servers.yaml.")
    entities: dict[str, EntitySpec] = Field(description="From skills.yaml.")
    skills: tuple[SkillSpec, ...] = Field(description="From skills.yaml.")

    def entities_of(self, spec: SkillSpec) -> list[EntitySpec]:
        return [self.entities[name] for name in spec.entities]


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
