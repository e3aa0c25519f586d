"""Pydantic models of benchmark data: tools (MCP definitions), skills and scenarios.

Conventions the engine relies on (``skillbench benchmark lint`` checks them):

* tool argument names and record fields are snake_case and shared: an argument ``customer_id`` is
  filled from the caller's fact ``customer_id`` or from the field ``customer_id`` of an earlier
  tool result;
* every tool says how the stateful mock answers it (``effect``) from the scenario's environment
  state, a dict of collections (``customers``, ``appointments`` ...) holding records (dicts).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from skillbench.core.records import ExpectedOutcome, ScenarioPath

State = dict[str, list[dict[str, Any]]]

# A caller's fact or a tool argument: what JSON can hold (a string, number, boolean, list or mapping).
Fact = str | int | float | bool | list[Any] | dict[str, Any]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# Fields added after the first benchmarks were published are left out of a dump while they hold their default
# (``exclude_if``), so the dumps, and the rollout keys hashed from them, of benchmarks that do not use them stay
# byte-identical. Declared per field: pydantic decides in its own serializer, with no Python hook on every record.
def _unset(value: Any) -> bool:
    return value is None


def _empty(value: Any) -> bool:
    return not value


class ToolEffect(Record):
    """How the stateful mock answers a tool from the scenario's environment state."""

    operation: Literal["lookup", "get", "verify", "create", "update", "delete", "action", "code"] = Field(
        description=(
            "code: a Python function of the domain's tools/<server>.py answers (skillbench.benchmark.tool_code); "
            "lookup: records of `collection` matching `match` → {records, count}; "
            "get: the one matching record or a not-found error; "
            "verify: {verified: bool, ...`returns` fields of the matching record}; "
            "create: a new record from `set`/`set_const` with a fresh `id_field`; "
            "update: changes `set`/`set_const` on the one matching record; "
            "delete: removes the matching record; "
            "action: a side effect (message sent, transfer) logged in `collection` if given."
        )
    )
    collection: str | None = Field(None, description="Environment collection read or written.")
    match: dict[str, str] = Field(default_factory=dict, description="Record field → argument whose value it must equal.")
    set: dict[str, str] = Field(default_factory=dict, description="Record field → argument whose value is written.")
    set_const: dict[str, Any] = Field(default_factory=dict, description="Record field → constant written (e.g. status).")
    id_field: str | None = Field(None, description="create: name of the generated id field.")
    id_prefix: str = Field("ID", description="create: prefix of generated ids.")
    returns: list[str] = Field(default_factory=list, description="verify/action: record fields echoed in the result.")
    result: dict[str, Any] = Field(default_factory=dict, description="action: constant fields of the result.")


class ToolSpec(Record):
    """One MCP tool: name, description, JSON Schema of its arguments, and its mock semantics."""

    name: str = Field(description="Dotted name '<server>.<operation>', e.g. 'scheduling.update_event'.")
    description: str = Field(description="What the tool does, as an API reference would say it.")
    input_schema: dict[str, Any] = Field(description="JSON Schema (object) of the arguments.")
    effect: ToolEffect = Field(description="How the stateful mock answers this tool.")
    reads: list[str] = Field(default_factory=list, description="Environment collections this tool reads.")
    writes: list[str] = Field(default_factory=list, description="Environment collections this tool changes.")
    code_version: str | None = Field(
        None, exclude_if=_unset,
        description="code tools: hash of the module that implements it (set at load), so a changed function changes every key.",
    )

    # The Python function of a code tool (set by the loader); None for declarative effects.
    _implementation: Callable[..., Any] | None = PrivateAttr(None)

    @property
    def server(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def implementation(self) -> Callable[..., Any] | None:
        """The function that answers a code tool (``effect.operation == "code"``), else None."""
        return self._implementation

    @field_validator("name")
    @classmethod
    def _dotted(cls, value: str) -> str:
        if "." not in value or not all(part.replace("_", "").isalnum() for part in value.split(".")):
            raise ValueError("tool names are '<server>.<operation>' in snake_case, e.g. 'crm.search_contacts'")
        return value

    @field_validator("input_schema")
    @classmethod
    def _object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("type") != "object":
            raise ValueError("input_schema must be a JSON Schema with type: object")
        return value


class ToolServer(Record):
    """A file of the tool catalogue: the tools of one system (CRM, scheduling, ...)."""

    server: str = Field(description="Server name, the prefix of its tools' names.")
    description: str = Field("", description="The kind of system this server mocks.")
    tools: list[ToolSpec]


WorkflowStepKind = Literal["verify", "collect", "lookup", "act", "confirm", "inform", "escalate"]


# A value a way's condition accepts: shown in the agent's prompt ('when status is printed or shipped').
ConditionValue = str | int | float | bool
_CONDITION_UNSAFE = re.compile(r"[,;()]| or | and | is ")


class StepAlternative(Record):
    """Another way to complete a step: its own tools and the facts they need, and when it applies.

    A way of facts only (no tools) is an either-or of a collect step (the reason, or the items and the
    payment method). A way with ``when`` applies only while the record the request is about has those
    field values (exchange a delivered order's items, modify a pending one's: same arguments, told apart
    by the order's status).
    """

    tools: list[str] = Field(
        default_factory=list,
        description="Tools this way uses (from the skill's toolkit); none for a way of facts only (a collect step's either-or).",
    )
    collects: list[str] = Field(default_factory=list, description="Facts the agent must obtain from the caller this way.")
    when: dict[str, ConditionValue | list[ConditionValue]] = Field(
        default_factory=dict, exclude_if=_empty,
        description=(
            "Record field → the value (or list of values, any of which) it must have for this way to apply: the "
            "latest value an earlier tool of the conversation returned for that field (the record the request is "
            "about), compared as strings. Empty: the way always applies."
        ),
    )

    @model_validator(mode="after")
    def _says_something(self) -> StepAlternative:
        if not self.tools and not self.collects:
            raise ValueError("an alternative needs tools or facts to collect (or both)")
        return self

    @field_validator("when")
    @classmethod
    def _speakable(cls, value: dict[str, Any]) -> dict[str, Any]:
        for name, accepted in value.items():
            if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
                raise ValueError(f"when: {name!r} is not a record field name (snake_case)")
            for item in accepted if isinstance(accepted, list) else [accepted]:
                if _CONDITION_UNSAFE.search(str(item)) or not str(item).strip():
                    raise ValueError(
                        f"when: {name} value {item!r} is shown to the agent as 'when {name} is ...'; it cannot be empty or "
                        "hold ',', ';', '(', ')', ' or ', ' and ', ' is '"
                    )
        return value


class WorkflowStep(Record):
    """One step of a skill's structured workflow, used by the rule checks and the offline agents."""

    id: str
    kind: WorkflowStepKind = Field(description="What the step does; 'verify' gates any disclosure.")
    instruction: str = Field(description="The step as the agent reads it in its policy.")
    tools: list[str] = Field(default_factory=list, description="Tools this step uses (from the skill's toolkit).")
    collects: list[str] = Field(default_factory=list, description="Facts the agent must obtain from the caller.")
    required: bool = Field(True, description="False for steps that only apply in some conversations.")
    alternatives: list[StepAlternative] = Field(
        default_factory=list, exclude_if=_empty,
        description=(
            "Other ways to complete the step (e.g. verify by e-mail, or by name and zip code): the step is done "
            "when its own tools, or one alternative's, succeed with the facts that way collects."
        ),
    )

    def ways(self) -> list[StepAlternative]:
        """Every way to complete the step, its own tools and collects first (when it has either)."""
        own = [StepAlternative(tools=self.tools, collects=self.collects)] if self.tools or self.collects else []
        return own + list(self.alternatives)

    def all_tools(self) -> list[str]:
        """The tools of every way, in order, once each."""
        return list(dict.fromkeys(name for way in self.ways() for name in way.tools))


class Skill(Record):
    """A deployable skill: the paper's parts as prose for the agent, plus structured steps for checks."""

    id: str
    name: str
    industry: str
    category: str = Field(description="e.g. appointment_scheduling, billing, refunds, account_management.")
    company: str = Field(description="The (fictional) company whose support line runs this skill.")
    capability: str = Field(description="What the skill does and for whom.")
    workflow: str = Field(description="The procedure in prose.")
    steps: list[WorkflowStep] = Field(min_length=1)
    success_criteria: list[str] = Field(min_length=1)
    guardrails: list[str] = Field(min_length=1)
    tools: list[str] = Field(min_length=1, description="The toolkit offered to the agent.")
    in_scope: list[str] = Field(default_factory=list, description="Requests this skill handles, in short phrases.")
    escalation: str = Field("", description="When and how to hand the caller to a human.")


class Persona(Record):
    """A behavioural persona of the simulated caller."""

    id: str
    label: str = Field(description="efficient, frustrated, vague, confused, non_native, adversarial, ...")
    traits: list[str] = Field(default_factory=list)
    style: str = Field("", description="How the caller talks.")
    motivation: str = Field("", description="Why the caller behaves this way.")
    example_utterances: list[str] = Field(default_factory=list)


class StateExpectation(Record):
    """A condition on the environment state at the end of a conversation."""

    collection: str
    match: dict[str, Any] = Field(description="Fields identifying the record.")
    expect: dict[str, Any] = Field(default_factory=dict, description="Fields the record must have.")
    absent: bool = Field(False, description="True if no record may match.")

    def is_met(self, state: State) -> bool:
        """Whether ``state`` meets this condition. Values compare as strings, like the mock's matching."""
        found = [record for record in state.get(self.collection, []) if _has_fields(record, self.match)]
        if self.absent:
            return not found
        return any(_has_fields(record, self.expect) for record in found)


def _has_fields(record: dict[str, Any], fields: dict[str, Any]) -> bool:
    return all(key in record and _same(record[key], value) for key, value in fields.items())


def _same(stored: Any, expected: Any) -> bool:
    """Scalars compare as strings (like the mock's matching); lists as the same items in any order."""
    if isinstance(stored, list) and isinstance(expected, list):
        return sorted(map(str, stored)) == sorted(map(str, expected))
    return str(stored) == str(expected)


# The error kinds a gold action may be expected to be refused with: a business rule, or a record that is not there.
RefusalKind = Literal["precondition", "not_found"]


class GoldAction(Record):
    """One write a correct conversation makes: the tool and the arguments that bind it."""

    tool: str = Field(description="Tool name, e.g. 'shop.cancel_order'.")
    arguments: dict[str, Fact] = Field(
        default_factory=dict,
        description="The arguments that decide the effect (free text the agent composes may be left out).",
    )
    refused: RefusalKind | None = Field(
        None, exclude_if=_unset,
        description=(
            "The error kind this call is expected to be refused with (a correct conversation asks, the system says "
            "no, nothing changes); replayed at load, which stops if it is not refused that way. None: it must succeed."
        ),
    )


class CallerRequest(Record):
    """One of several requests a caller makes in one conversation, with the facts that bind it."""

    goal: str = Field(description="The request in the caller's own voice (the first is usually the objective).")
    facts: dict[str, Fact] = Field(
        default_factory=dict, description="Facts for this request only (e.g. its order_id); they win over user_facts."
    )


class Scenario(Record):
    """One test case: a caller with a goal, facts and persona, against a skill and an environment."""

    id: str
    skill_id: str
    path: ScenarioPath = Field(description="The path through the skill this scenario tests.")
    title: str = Field(description="One line a person can scan in a report.")
    objective: str = Field(description="What the caller wants, in the caller's own voice.")
    persona: Persona
    user_facts: dict[str, Fact] = Field(
        default_factory=dict,
        description="What the caller knows, keyed like tool arguments: strings, numbers, booleans, lists or mappings.",
    )
    withheld_facts: list[str] = Field(default_factory=list, description="Facts the caller does not have or will not give.")
    user_instructions: list[str] = Field(default_factory=list, description="Path-specific behaviour for the simulator.")
    initial_state: State = Field(default_factory=dict, description="Environment collections at the start.")
    target_state: list[StateExpectation] = Field(default_factory=list, description="Conditions that success requires.")
    required_tools: list[str] = Field(default_factory=list, description="Tools a correct conversation must call.")
    forbidden_tools: list[str] = Field(default_factory=list, description="Tools a correct conversation must not call successfully.")
    success_criteria: list[str] = Field(min_length=1)
    expected_outcome: ExpectedOutcome = "success"
    tool_failures: dict[str, int] = Field(default_factory=dict, description="Tool → its first N calls fail (tool_failure path).")
    requests: list[CallerRequest] = Field(
        default_factory=list, exclude_if=_empty,
        description=(
            "Several requests in one conversation, handled one after another, each with its own facts "
            "(cancel order A, then return items of order B). Empty: the objective is the one request."
        ),
    )
    gold_actions: list[GoldAction] | None = Field(
        None, exclude_if=_unset,
        description=(
            "The writes a correct conversation makes, in order. The expected end state is these replayed on "
            "initial_state through the same tools; [] means nothing may change; null: not given."
        ),
    )

    # Set by the loader when gold_actions are given: the expected end state and the fields it ignores.
    _gold: GoldBasis | None = PrivateAttr(None)

    @property
    def gold(self) -> GoldBasis | None:
        """The expected end state computed from ``gold_actions`` at load (None without gold actions)."""
        return self._gold

    def facts_for(self, request: int | None) -> dict[str, Fact]:
        """The caller's facts while making request ``request`` (its own facts win); all shared facts for None."""
        if request is None or not self.requests:
            return dict(self.user_facts)
        return {**self.user_facts, **self.requests[request].facts}


class StateComparison(Record):
    """How the whole-state verdict (and gold-action matching) compares two values. The defaults are skillbench's
    rule since gold actions exist; another benchmark's may differ (a typed, ordered database hash), so a port
    can choose its own here (docs/adding-a-domain.md, 'How it is scored')."""

    scalars: Literal["strings", "json"] = Field(
        "strings",
        description=(
            "strings: every scalar compared as its string, like the mock's matching (100 = '100', 100 != 100.0, "
            "True != 'true'); json: typed like JSON values (100 = 100.0, 100 != '100', True != 'True')."
        ),
    )
    decimals: int | None = Field(
        None, ge=0, le=12,
        description="json only: numbers rounded to this many decimal places before comparing (a tolerance); None: exact.",
    )
    lists: Literal["unordered", "ordered"] = Field(
        "unordered",
        description="unordered: a list of scalars is a multiset (order ignored), a list of records keeps its order; "
                    "ordered: every list keeps its order.",
    )
    unicode: Literal["exact", "NFC", "NFKC"] = Field(
        "exact", description="exact: strings compared code point by code point; NFC/NFKC: normalised first.",
    )

    @model_validator(mode="after")
    def _decimals_need_json(self) -> StateComparison:
        if self.decimals is not None and self.scalars != "json":
            raise ValueError("decimals applies to numbers compared as numbers: set scalars: json too")
        return self


def _default_comparison(value: StateComparison) -> bool:
    return value == StateComparison()  # the manifest's, once per benchmark: not on a hot path


class GoldBasis(BaseModel):
    """What the whole-state verdict compares a final state with."""

    model_config = ConfigDict(frozen=True)

    expected_state: State
    volatile: dict[str, list[str]] = Field(default_factory=dict, description="Collection ('*': any) → fields ignored.")
    comparison: StateComparison = Field(default_factory=StateComparison, description="How values compare.")


class ScenarioFile(Record):
    skill_id: str
    scenarios: list[Scenario]


class Industry(Record):
    id: str
    name: str
    description: str = ""


class BenchmarkManifest(Record):
    name: str
    version: str = "1"
    description: str = ""
    industries: list[Industry]
    volatile_fields: dict[str, list[str]] = Field(
        default_factory=dict,
        description=(
            "Collection → fields the whole-state verdict ignores (generated ids, timestamps); '*' applies to "
            "every collection."
        ),
    )
    lint_waivers: dict[str, str] = Field(
        default_factory=dict,
        description="Lint convention rule → why it does not apply to this benchmark (skillbench benchmark lint --rules).",
    )
    references: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "'<collection>.<field>' → '<collection>.<key field>' it points at, for references the naming "
            "convention does not show (a field named '<singular of a collection>_id' points at that collection); "
            "a path walks into nested records: 'orders.items[].product_id' (each record of the list items)."
        ),
    )
    comparison: StateComparison = Field(
        default_factory=StateComparison, exclude_if=_default_comparison,
        description="How the whole-state verdict compares values (strings or JSON types, list order, Unicode).",
    )
