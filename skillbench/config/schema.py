"""Pydantic models of the composed Hydra config. Every key is checked up front (``extra="forbid"``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    Tag,
    TypeAdapter,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from skillbench.core import paths
from skillbench.core.records import OUTCOMES, Outcome, RuleCheck, ScenarioPath
from skillbench.core.rubric import DEFAULT_RUBRIC_VERSION, DIMENSIONS, RUBRICS

MIN_PREFIX = "min_"  # pass_rule.min_<dimension>: the flat key of each rubric threshold


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# Flat prices a model config may give litellm in its params (``+agent.params.input_cost_per_token=3e-06``): litellm
# bills every call with them (its custom pricing); the estimate and the budget use them too (models/prices.py).
CUSTOM_PRICE_PARAMS = ("input_cost_per_token", "output_cost_per_token")


class ModelConfig(Strict):
    """One model endpoint reached through litellm."""

    name: str = Field(description="Short label used in folder names and reports, e.g. 'qwen3_5_9b'.")
    model: str = Field(description="litellm model string, e.g. 'gpt-5', 'gemini/gemini-2.5-flash', 'hosted_vllm/Qwen/Qwen3.5-9B'.")
    simulated: bool = Field(False, description="True for skillbench's offline simulated models (never a real model's result).")
    api_base: str | None = Field(None, description="Endpoint URL for self-hosted models (OpenAI-compatible).")
    api_key_env: str | None = Field(
        None, description="Name of the environment variable holding the API key. The key itself is never stored."
    )
    params: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="Request parameters passed to litellm (temperature, max_tokens, stop, logit_bias, ...): any JSON value.",
    )
    concurrency: int = Field(
        8, ge=1, description="Most requests in flight at once to this model's rate-limit scope (see rate_limit_group), "
        "over every job and launcher worker sharing the store: the ceiling of the adaptive limit (models/limiter.py).")
    adaptive_concurrency: bool = Field(
        True, description="Adapt the concurrency (AIMD: grow while calls succeed, halve on 429/503); false keeps it "
        "fixed at `concurrency`.")
    rate_limit_group: str | None = Field(
        None, description="Models with the same group name share one rate limit (its requests and tokens per minute, "
        "its pauses, its concurrency), e.g. several models behind one gateway key or a provider's model family. "
        "null: one limit per server for self-hosted endpoints (api_base), per model + key for hosted APIs "
        "(docs/paid-runs.md 'Rate limits').")
    requests_per_minute: float | None = Field(
        None, gt=0, description="The provider's request limit for your key, if known; else read from its "
        "x-ratelimit-limit-requests header when it sends one.")
    tokens_per_minute: float | None = Field(
        None, gt=0, description="The provider's token limit for your key, if known; else read from its "
        "x-ratelimit-limit-tokens header when it sends one.")
    rate_limit_patience_s: float = Field(
        1800.0, gt=0, description="How long one call keeps waiting out 429s (and 503s that give a reason) before "
        "its row is left unscored for a rerun; throttling never restarts a conversation.")
    timeout_s: float = Field(120.0, gt=0, description="Per-request timeout in seconds.")
    max_prompt_tokens: int | None = Field(
        200_000, ge=1, description="Refuse (before sending) a request whose prompt is estimated above this many "
        "tokens (characters / 4); null: no cap. Scenarios too big for it are refused before the run starts.",
    )
    max_retries: int = Field(3, ge=0, description="Retries with backoff on transient errors other than throttling.")
    prompt_template: str = Field("v1", description="Version of the prompt template this role renders.")
    gpu_usd_per_hour: float | None = Field(
        None, ge=0, description="Self-hosted only: what the server's GPUs cost per hour, for the cost estimate."
    )

    @field_validator("params")
    @classmethod
    def _prices_both_or_neither(cls, params: dict[str, JsonValue]) -> dict[str, JsonValue]:
        """One custom price alone is refused: litellm would bill with custom pricing and the missing price as
        unknown, while the estimate and the budget could not say what a call costs."""
        given = {name: params.get(name) for name in CUSTOM_PRICE_PARAMS if params.get(name) is not None}
        for name, value in given.items():
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise PydanticCustomError("custom_price", "{name} is a price in dollars per token, a number ≥ 0, not "
                                          "{value}", {"name": name, "value": repr(value)})
        if len(given) == 1:
            [(name, _)] = given.items()
            raise PydanticCustomError("custom_price", "{name} is given alone", {"name": name})
        return params

    @property
    def max_tokens(self) -> int | None:
        """The token cap every request of this model carries (``params.max_tokens``, or ``max_completion_tokens``);
        None when unset (the server's default). Recorded per role in summary.json and shown at the job's start."""
        for name in ("max_tokens", "max_completion_tokens"):
            value = self.params.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return int(value)
        return None


PROGRAM_TARGET = "_target_"


class AgentConfig(ModelConfig):
    """The agent under test: its model, and optionally the program that calls it (docs/agents.md)."""

    program: dict[str, Any] | None = Field(
        None,
        description="An agent program: `_target_` (a Python import path, or a plug-in's registered 'package/name') "
        "and its parameters, built once per job with those parameters. null: the model itself (skillbench's LLMAgent).",
    )
    models: dict[str, ModelConfig] = Field(
        default_factory=dict,
        description="Other models the program calls, by name (state.models.complete(..., model=<name>)); each is "
        "checked, priced and budgeted like the agent's own model.",
    )
    program_version: str | None = Field(
        None, description="Your version label of the program; part of the rollout key (bump it to redo rollouts)."
    )
    hash_source: bool = Field(
        True,
        description="Put a hash of the program's source (the .py files of the package that defines `_target_`) in "
        "the rollout key, so changed code never reuses stored rollouts.",
    )
    program_source: str | None = Field(
        None, description="Filled in by skillbench when the job starts: the hash of the program's source."
    )
    reply_limit_s: float = Field(
        300.0, gt=0, description="Most seconds of the agent program's own time in one reply (time inside model calls "
        "excluded: they have timeout_s and rate_limit_patience_s). Past it the reply is cancelled and the conversation "
        "ends as the agent's model_error.")
    conversation_limit_s: float = Field(
        1800.0, gt=0, description="Most seconds of the agent program's own time over one conversation (model calls "
        "excluded); past it the conversation ends as the agent's model_error.")
    service: bool = Field(
        False, description="The endpoint is the agent under test itself (an agent as a service, agent=service): a "
        "server error it gives on every try of a scenario, while it answers the job's other requests, is the agent's "
        "failure on that scenario (docs/outcomes.md), not infrastructure.")

    @field_validator("program")
    @classmethod
    def _names_a_target(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None and not (isinstance(value.get(PROGRAM_TARGET), str) and value[PROGRAM_TARGET].strip()):
            raise ValueError(
                f"an agent program needs '{PROGRAM_TARGET}': a Python import path (mypackage.module.MyAgent) or a "
                "plug-in's registered 'package/name'"
            )
        return value

    @field_validator("program_version", mode="before")
    @classmethod
    def _version_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value

    @model_validator(mode="after")
    def _models_need_a_program(self) -> AgentConfig:
        if self.models and self.program is None:
            raise ValueError("agent.models names models for an agent program, but agent.program is not set")
        return self


class JudgeConfig(ModelConfig):
    """An LLM judge scoring transcripts on the rubric."""

    rubric_version: str = Field(
        DEFAULT_RUBRIC_VERSION, description="Wording of the rubric (a key of core.rubric.RUBRICS); part of the verdict key."
    )
    samples: int = Field(1, ge=1, description="Judge samples per transcript; aggregated by `aggregation`.")
    aggregation: Literal["majority"] = Field(
        "majority", description="How samples combine: majority for categories and flags, median for 1-5 scores."
    )
    max_parse_retries: int = Field(2, ge=0, description="Re-asks after an unparseable reply before a judge error.")

    @field_validator("rubric_version")
    @classmethod
    def _known_rubric(cls, value: str) -> str:
        if value not in RUBRICS:
            raise ValueError(f"unknown rubric version {value!r}; known: {', '.join(RUBRICS)}")
        return value


class UserSimConfig(ModelConfig):
    """The fixed user simulator (persona, goal, facts; no tools)."""

    stop_marker: str = Field("###STOP###", description="Text the simulator emits to end the conversation.")


class FailureInjectionConfig(Strict):
    rate: float = Field(0.0, ge=0.0, le=1.0, description="Probability that any tool call fails (seeded).")
    fail_first: dict[str, int] = Field(
        default_factory=dict, description="Tool name → number of its first calls that fail."
    )
    timeout_tools: list[str] = Field(default_factory=list, description="Tools whose calls time out.")
    error_message: str = Field("Service temporarily unavailable (HTTP 503). Please retry.", description="Injected error text.")


class MockBase(Strict):
    """What every mock response mode shares: validation, failures, timeout and latency."""

    name: str
    validate_arguments: bool = Field(True, description="Validate arguments against each tool's JSON Schema.")
    honor_scenario_failures: bool = Field(True, description="Apply the failures a scenario itself declares.")
    failures: FailureInjectionConfig = Field(default_factory=FailureInjectionConfig)
    timeout_s: float = Field(2.0, gt=0, description="How long a timed-out call waits before failing.")
    latency_ms: float = Field(0.0, ge=0, description="Artificial latency added to every call.")
    code_tool_limit_s: float = Field(
        30.0, gt=0, description="Most seconds one call of a domain's code tool may take (it runs off the event loop); "
        "past it the conversation ends as a benchmark error naming the tool.")


class StatefulMock(MockBase):
    """Tools answer from, and write to, the scenario's environment state."""

    response_mode: Literal["stateful"] = "stateful"


class LlmMock(MockBase):
    """A model writes each tool result from the tool's definition, the arguments and the state."""

    response_mode: Literal["llm"] = "llm"
    llm: ModelConfig = Field(description="Model writing tool results.")


class StaticMock(MockBase):
    """Every tool returns a fixed result; no state."""

    response_mode: Literal["static"] = "static"
    static_responses: dict[str, dict] = Field(default_factory=dict, description="Tool name → fixed result.")


class PluginMock(MockBase):
    """A response mode registered outside skillbench; the app checks the name against RESPONSE_MODES."""

    response_mode: str = Field(description="Name of a registered response mode.")
    options: dict[str, Any] = Field(default_factory=dict, description="The mode's own settings (mock.options.<key>).")


BUILTIN_MOCKS: dict[str, type[MockBase]] = {"stateful": StatefulMock, "llm": LlmMock, "static": StaticMock}
_PLUGIN_TAG = "plugin"


def _mock_tag(value: Any) -> str:
    """The union member of a mock config: a built-in mode by name, else a plugin mode (stateful if unset)."""
    mode = value.get("response_mode", "stateful") if isinstance(value, dict) else getattr(value, "response_mode", None)
    return mode if mode in BUILTIN_MOCKS else _PLUGIN_TAG


# One member per response mode, chosen by `response_mode`, so each mode has only its own options.
MockConfig = Annotated[
    Annotated[StatefulMock, Tag("stateful")]
    | Annotated[LlmMock, Tag("llm")]
    | Annotated[StaticMock, Tag("static")]
    | Annotated[PluginMock, Tag(_PLUGIN_TAG)],
    Discriminator(_mock_tag),
]
# The tags pydantic inserts into error locations after ``mock`` (validation drops them from messages).
MOCK_TAGS = frozenset((*BUILTIN_MOCKS, _PLUGIN_TAG))
MOCK_ADAPTER: TypeAdapter[MockConfig] = TypeAdapter(MockConfig)
"""Validates a mock config on its own (``MOCK_ADAPTER.validate_python(data)``), e.g. a YAML file."""


EXPECTED = "expected"
"""In ``pass_rule.allowed_outcomes``: every outcome a scenario may expect (core/paths.py ``EXPECTED_OUTCOMES``)."""


class _PassRuleBase(Strict):
    """Turns rule checks and judge scores into a verdict. Thresholds are inclusive minimums on the rubric's scale."""

    name: str
    allowed_outcomes: list[Outcome] = Field(
        default_factory=lambda: list(paths.EXPECTED_OUTCOMES),
        description=f"Judge task_completion values that pass (default: the outcomes a scenario may expect). "
        f"'{EXPECTED}' stands for those (skillbench/core/paths.py EXPECTED_OUTCOMES), so a preset states only what it "
        f"adds: [{EXPECTED}, partial].",
    )
    fail_on_hallucinated_action: bool = True
    fail_on_hard_rule_failure: bool = True
    hard_checks: list[str] | None = Field(
        None,
        description="Rule checks that count as hard under this rule (registered names); null: each check's own default.",
    )
    sample_vote: Literal["majority", "unanimous"] | None = Field(
        None,
        description="With judge.samples=k: the rule decides each of the judge's k samples and they vote (majority: "
        "more than half pass; unanimous: all pass); null: the rule reads the samples' aggregate (median, majority).",
    )
    panel: Literal["majority", "unanimous"] | None = Field(
        None,
        description="Also give each agent a panel column whose verdict is the vote of its judges' verdicts under this "
        "rule (majority: more than half of those with a verdict pass, a tie fails; unanimous: every member has a "
        "verdict and passes). Built by `skillbench rescore` and a sweep's report, no model call; null: no panel.",
    )
    panel_judges: list[str] | None = Field(
        None, description="The panel's members (judge names, two or more, each once; every one must be a judge of the "
        "runs); null: every judge the agent has, at least two."
    )

    @field_validator("panel_judges")
    @classmethod
    def _panel_of_two(cls, members: list[str] | None, info: ValidationInfo) -> list[str] | None:
        """A panel's size is part of its meaning (2 of 3 is not 2 of 2): a list that cannot be what was meant is refused
        here; that each member is a judge of the runs is checked where the runs are known (engine/names.py
        panel_problems, report/panel_verdicts.py)."""
        if members is None:
            return None
        if info.data.get("panel") is None:
            raise PydanticCustomError("panel_judges", "names a panel's members, but pass_rule.panel is null, so no panel "
                                      "would be formed (set pass_rule.panel=majority or unanimous, or leave it out)")
        twice = sorted({name for name in members if members.count(name) > 1})
        if twice:
            raise PydanticCustomError("panel_judges", "names judge '{name}' twice; each member votes once",
                                      {"name": twice[0]})
        if len(members) < 2:
            raise PydanticCustomError("panel_judges", "a panel votes over two or more judges; this names {count}",
                                      {"count": len(members)})
        return members

    @field_validator("allowed_outcomes", mode="before")
    @classmethod
    def _expand_expected(cls, value: Any) -> Any:
        """``expected`` → the owner's outcomes (read at validation, so an edit of core/paths.py reaches every preset),
        the list put in the outcomes' own order; other unknown names are left for validation to name."""
        if not isinstance(value, list | tuple) or EXPECTED not in value:
            return value
        named = {o for item in value for o in (paths.EXPECTED_OUTCOMES if item == EXPECTED else (item,))}
        return [o for o in OUTCOMES if o in named] + [item for item in value if item != EXPECTED and item not in OUTCOMES]

    @field_validator("allowed_outcomes")
    @classmethod
    def _can_pass(cls, outcomes: list[Outcome]) -> list[Outcome]:
        if not outcomes:  # every verdict would fail: refused rather than published as a 0% pass rate
            raise ValueError(
                "a pass rule with no allowed outcome can never pass; list at least one, e.g. "
                f"allowed_outcomes=[{','.join(paths.EXPECTED_OUTCOMES)}] (or [{EXPECTED}])"
            )
        return outcomes

    def is_hard(self, check: RuleCheck) -> bool:
        """Hardness of a stored check under this rule (the stored ``hard`` is the check's default)."""
        return check.hard if self.hard_checks is None else check.name in self.hard_checks

    def minimum(self, dimension: str) -> int | None:
        """The threshold on one rubric dimension (None: no threshold)."""
        return getattr(self, MIN_PREFIX + dimension)


# One flat field per rubric dimension (min_workflow_adherence, ...), derived from the rubric, so that
# `pass_rule.min_workflow_adherence=3` is an ordinary override and a new dimension needs no edit here.
PassRuleConfig = create_model(
    "PassRuleConfig",
    __base__=_PassRuleBase,
    **{
        MIN_PREFIX + d.name: (
            int | None,
            Field(None, ge=d.low, le=d.high, description=f"Minimum {d.name} score ({d.low}-{d.high}); null: none."),
        )
        for d in DIMENSIONS
    },
)


class BenchmarkConfig(Strict):
    """Which scenarios a job runs."""

    name: str = Field(description="The label of rows and summaries; with a folder source under a shipped option's "
                                  "name (benchmark.source=<folder>), the folder's benchmark name (its benchmark.yaml).")
    source: str = Field(description="A packaged benchmark name (e.g. 'starter') or a path to a benchmark folder.")
    industries: list[str] = Field(default_factory=list, description="Keep only these industries (empty = all).")
    skills: list[str] = Field(default_factory=list, description="Keep only these skill ids (empty = all).")
    paths: list[ScenarioPath] = Field(default_factory=list, description="Keep only these scenario paths (empty = all).")
    scenarios: list[str] = Field(default_factory=list, description="Keep only these scenario ids (empty = all).")
    limit: int | None = Field(None, ge=1, description="Keep at most this many scenarios (balanced, seeded).")
    seed: int = Field(0, description="Seed of the limited selection.")

    @model_validator(mode="before")
    @classmethod
    def _label_a_folder(cls, data: Any) -> Any:
        """``benchmark.source=<folder>`` keeps the default option's name (starter), which is not what ran: the
        label becomes the folder's benchmark name. A name set to anything but a shipped option's stays."""
        if not isinstance(data, dict) or not isinstance(data.get("source"), str) or data.get("name") not in _shipped_options():
            return data
        if _packaged(data["source"]):
            return data
        manifest = Path(data["source"]).expanduser() / "benchmark.yaml"
        found = _manifest_name(manifest) if manifest.is_file() else None
        return {**data, "name": found} if found else data


_CONF = Path(__file__).resolve().parents[1] / "conf" / "benchmark"
_PACKAGED = Path(__file__).resolve().parents[1] / "benchmark" / "data"  # as skillbench.benchmark.loader resolves names


def _shipped_options() -> set[str]:
    return {p.stem for p in _CONF.glob("*.yaml")}


def _packaged(source: str) -> bool:
    return "/" not in source and (_PACKAGED / source).is_dir()


def _manifest_name(path: Path) -> str | None:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None  # the loader says what is wrong with the folder when the job reads it
    name = data.get("name") if isinstance(data, dict) else None
    return str(name) if name else None


class RunSettings(Strict):
    seed: int = Field(0, description="Seed of every simulated choice; part of the rollout key.")
    max_turns: int = Field(24, ge=2, description="Agent turns before a conversation ends with max_turns.")
    trials: int = Field(
        1, ge=1, description="Rollouts per scenario, each with its own seed and judged on its own (pass^k, pass@k)."
    )
    scenario_concurrency: int = Field(16, ge=1, description="Conversations in flight at once in one job.")
    infra_retries: int = Field(2, ge=0, description="Re-runs of a rollout that hit an infrastructure error.")
    progress_interval_s: float = Field(10.0, gt=0, description="Seconds between progress lines in the log.")
    preflight: bool = Field(
        True, description="Before the first job: check every job's keys, endpoints and benchmark; false skips it."
    )
    probe_timeout_s: float = Field(3.0, gt=0, description="Preflight: seconds to wait for a self-hosted endpoint.")
    dry_run: bool = Field(False, description="Print the plan (jobs, calls, tokens, dollars) and exit; call nothing.")
    budget_usd: float | None = Field(
        None, ge=0, description="A cap on dollars per job or sweep: conversations start only when their expected cost fits (reserved), and those in flight stop when it is reached (engine/budget.py)."
    )
    max_infra_error_share: float = Field(
        0.5, ge=0, le=1, description="A job whose share of infrastructure errors exceeds this fails the run."
    )
    overwrite: bool = Field(
        False, description="A run or sweep folder holding finished results of another configuration is refused; "
        "true moves those results aside to <folder>.replaced-<time> first (never deletes them).",
    )


class StoreConfig(Strict):
    root: str = Field("outputs/store", description="Artifact store folder shared by every job and sweep.")


class RunConfig(Strict):
    """The whole composed config of one job."""

    agent: AgentConfig
    judge: JudgeConfig
    user_sim: UserSimConfig
    mock: MockConfig
    pass_rule: PassRuleConfig
    benchmark: BenchmarkConfig
    run: RunSettings = Field(default_factory=RunSettings)
    store: StoreConfig = Field(default_factory=StoreConfig)
    checks: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Rule-check parameters: check name -> parameter -> value (e.g. checks.max_tool_calls.limit=6); "
        "they enter rule_checks_version.",
    )
    experiment: str | None = Field(None, description="Name of the experiment preset, if one was chosen.")
