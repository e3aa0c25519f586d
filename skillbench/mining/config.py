"""The mining pipeline's configuration (composed by Hydra from ``skillbench/conf/mining/``), validated by pydantic."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from hydra import compose, initialize_config_dir
from hydra.errors import HydraException
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from skillbench.config.schema import ModelConfig
from skillbench.core.errors import ConfigError, first_error
from skillbench.core.plugins import load_plugins
from skillbench.mining.ingest import READERS

STAGES = ("ingest", "extract", "cluster", "represent", "skills", "scenarios")


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class IngestConfig(Part):
    name: str = Field(description="Option name (the YAML file).")
    format: str = Field(description="Registered ingest reader (skillbench/mining/ingest.py READERS): jsonl, star, abcd, "
                                    "or one a plug-in registers.")
    path: str | None = Field(None, description="The transcripts' file or folder (required: no data ships with skillbench).")
    per_purpose: int | None = Field(None, ge=1, description="Keep the first N conversations of each call purpose (a fast subset).")
    single_task_only: bool = Field(True, description="STAR: only complete dialogues whose wizard had one task.")
    options: dict[str, Any] = Field(default_factory=dict, description="Settings of a plug-in reader, passed to it as they are.")

    @field_validator("format")
    @classmethod
    def _registered(cls, value: str) -> str:
        if value not in READERS:
            load_plugins()  # a plug-in's reader ('<namespace>/<name>')
        if value not in READERS:
            raise ValueError(f"unknown ingest format {value!r}; registered: {', '.join(READERS.names())}")
        return value

    def missing_path(self) -> str:
        """The one line said when ``path`` is unset and the ingest stage must read it."""
        return (f"ingest.path is not set: skillbench ships no transcripts, so the {self.format} reader needs them named. "
                f"Fix: add ingest.path=<{READERS.get(self.format).files}>.")

    def reader_options(self) -> dict[str, Any]:
        """What the reader receives: the common settings, then ``options``."""
        return {**self.model_dump(exclude={"options"}), **self.options}


class ExtractorConfig(Part):
    name: str = Field(description="Option name.")
    kind: Literal["annotated", "text", "llm"] = Field(description="annotated labels/tool calls, offline text-only, or a model.")
    n_types: int = Field(40, ge=2, description="text: number of action types learnt from agent turns.")
    predict_tools: bool = Field(True, description="text, llm: predict the catalogue tools a conversation used from its "
                                                  "words (text: always; llm: where the model named none), as query:<tool>.")
    catalogue: str | None = Field(None, description="text, llm: a JSON/YAML list of {name, description} tools, for "
                                                    "transcripts that record no tool calls (the recorded ones are always in it).")
    min_tool_similarity: float = Field(0.05, ge=0, le=1, description="text, llm: least TF-IDF cosine similarity of a "
                                                                     "conversation to a tool for it to count as used.")
    attempts: int = Field(3, ge=1, description="llm: attempts per conversation before it is dropped.")
    model: ModelConfig | None = Field(None, description="llm: the model, configured like the engine's models.")

    @model_validator(mode="after")
    def _model_for_llm(self) -> ExtractorConfig:
        if self.kind == "llm" and self.model is None:
            raise ValueError("extractor.model is required when extractor.kind is llm")
        return self


class ClustererConfig(Part):
    name: str = Field(description="Option name.")
    group_by_purpose: bool = Field(True, description="Cluster within each call-purpose group (else globally).")
    k: int | None = Field(None, ge=1, description="Fixed clusters per group; null: chosen by silhouette in [k_min, k_max].")
    k_min: int = Field(2, ge=1, description="Smallest k tried.")
    k_max: int = Field(4, ge=1, description="Largest k tried.")
    min_silhouette: float = Field(0.25, description="Below this best silhouette a group stays one cluster.")
    n_max: int = Field(2, ge=1, le=4, description="Longest action n-gram in the TF-IDF representation.")
    seed: int = Field(0, description="K-Means seed.")


class ModelStage(Part):
    """What every model-backed option has: the model (shaped like the engine's model configs) and its retries."""

    attempts: int = Field(3, ge=1, description="llm: replies asked for per item before it is dropped as malformed.")
    model: ModelConfig | None = Field(None, description="llm: the model, configured like the engine's models; "
                                                        "model.prompt_template picks the prompt version.")

    stage: ClassVar[str]  # the option group's name, for messages
    model_kinds: ClassVar[frozenset[str]]  # the kinds that call a model, so need one

    @model_validator(mode="after")
    def _needs_model(self) -> Self:
        kind = self.kind  # type: ignore[attr-defined]  # every stage declares its kinds
        if kind in self.model_kinds and self.model is None:
            raise ValueError(f"{self.stage}.model is required when {self.stage}.kind is {kind}")
        return self


class RepresentativeConfig(ModelStage):
    stage = "representative"
    model_kinds = frozenset({"llm"})

    name: str = Field(description="Option name.")
    kind: Literal["medoid", "llm"] = Field("medoid", description="medoid: the member closest on average to the others; "
                                                                 "llm: a model writes it from the members' sequences.")
    samples: int = Field(10, ge=1, description="Member transcripts kept per cluster for skill writing.")
    medoid_pool: int = Field(60, ge=1, description="medoid: each member is compared with the cluster's first N members "
                                                   "(conversation order), not all: n x N edit distances instead of n squared.")
    max_sequences: int = Field(20, ge=1, description="llm: the most common member sequences shown to the model.")


class SkillWriterConfig(ModelStage):
    stage = "skill_writer"
    model_kinds = frozenset({"llm"})

    name: str = Field(description="Option name.")
    kind: Literal["deterministic", "llm"] = Field("deterministic", description="Offline writer from workflow + catalogue, "
                                                                               "or a model (per-transcript, then merged).")
    max_facts: int = Field(4, ge=0, description="Most caller facts a skill collects.")
    samples: int = Field(10, ge=1, description="llm: transcripts per cluster the model writes instructions from.")


class FilterConfig(ModelStage):
    stage = "filter"
    model_kinds = frozenset({"llm_judge"})

    name: str = Field(description="Option name.")
    kind: Literal["basic", "llm_judge"] = Field("basic", description="basic: support and tool steps; llm_judge: also a "
                                                                     "model that fixes logic/compliance errors and drops poor skills.")
    min_support: int = Field(3, ge=1, description="Drop clusters with fewer transcripts.")
    min_tool_steps: int = Field(1, ge=0, description="Drop skills with fewer lookup/act steps.")
    min_quality: int = Field(3, ge=1, le=5, description="llm_judge: drop skills the judge rates lower (1-5).")


class ScenarioWriterConfig(Part):
    name: str = Field(description="Option name.")
    seed: int = Field(0, description="Seed of identities, personas and selection.")


class SelectionConfig(Part):
    name: str = Field(description="Option name.")
    kind: Literal["balanced", "rated"] = Field("balanced", description="balanced: by path and persona; rated: a model writes "
                                                                       "a conversation per candidate, another rates it, the best are kept.")
    per_skill: int = Field(7, ge=1, description="Scenarios kept per skill (balanced by path and persona).")
    max_skills: int | None = Field(None, ge=1, description="Keep the N best-supported skills.")
    independent: bool = Field(False, description="Choose each skill's scenarios on their own (seeded by its id), so "
                                                 "adding or dropping a skill never changes another's scenarios.")
    pool: int = Field(2, ge=1, description="rated: candidates written and rated per kept scenario (balanced pick first).")
    min_score: float = Field(0.0, ge=0, le=5, description="rated: candidates rated lower (mean of the rubric, 1-5) are dropped.")
    attempts: int = Field(3, ge=1, description="rated: replies asked for per conversation or rating before the candidate is dropped.")
    writer: ModelConfig | None = Field(None, description="rated: the model that writes the conversations.")
    rater: ModelConfig | None = Field(None, description="rated: the model that rates them (another model, ideally).")

    @model_validator(mode="after")
    def _models(self) -> SelectionConfig:
        if self.kind == "rated" and (self.writer is None or self.rater is None):
            raise ValueError("selection.writer and selection.rater are required when selection.kind is rated")
        return self


class MiningConfig(Part):
    out: str = Field(description="Folder the benchmark (and _mining/ with the stage files) is written to.")
    benchmark_name: str = Field("mined", description="Name of the written benchmark (also its one industry id).")
    stage: str = Field("all", description=f"Run every stage ('all'), or one of {', '.join(STAGES)} (reading the "
                                          f"previous stage's file).")
    store: str | None = Field(None, description="Content-addressed item cache; default <out>/_mining/store.")
    preflight: bool = Field(True, description="Before any stage runs: every key of the model stages to run set, every "
                                              "self-hosted endpoint answering with its model (the engine's preflight).")
    ingest: IngestConfig
    extractor: ExtractorConfig
    clusterer: ClustererConfig
    representative: RepresentativeConfig
    skill_writer: SkillWriterConfig
    filter: FilterConfig
    scenario_writer: ScenarioWriterConfig
    selection: SelectionConfig

    @field_validator("stage")
    @classmethod
    def _known_stage(cls, value: str) -> str:
        if value != "all" and value not in STAGES:
            raise ValueError(f"unknown stage {value!r}; one of: all, {', '.join(STAGES)}")
        return value

    def store_root(self) -> Path:
        return Path(self.store) if self.store else Path(self.out) / "_mining" / "store"


def model_roles(cfg: MiningConfig, stages: tuple[str, ...] = STAGES) -> list[tuple[str, ModelConfig]]:
    """The models the given stages will call, with the option that calls each (e.g. ``skill_writer``)."""
    roles: list[tuple[str, ModelConfig | None]] = []
    if "extract" in stages and cfg.extractor.kind == "llm":
        roles.append(("extractor", cfg.extractor.model))
    if "represent" in stages and cfg.representative.kind == "llm":
        roles.append(("representative", cfg.representative.model))
    if "skills" in stages and cfg.skill_writer.kind == "llm":
        roles.append(("skill_writer", cfg.skill_writer.model))
    if "skills" in stages and cfg.filter.kind == "llm_judge":
        roles.append(("filter", cfg.filter.model))
    if "scenarios" in stages and cfg.selection.kind == "rated":
        roles += [("selection.writer", cfg.selection.writer), ("selection.rater", cfg.selection.rater)]
    return [(role, model) for role, model in roles if model is not None]


def stage_settings(cfg: MiningConfig, part: str) -> dict[str, Any]:
    """What determines a stage's items (endpoints, keys and concurrency of a model do not)."""
    data = getattr(cfg, part).model_dump(mode="json")
    data.pop("name", None)
    if not data.get("options", True):  # no plug-in settings: the keys stay those of runs before the field existed
        data.pop("options")
    models = [k for k in ("model", "writer", "rater") if k in data]
    for key in models:
        if data[key]:
            data[key] = {k: data[key][k] for k in ("model", "params", "prompt_template")}
    if models and not any(data[k] for k in models):  # an offline option: settings of models it does not call change nothing
        for key in (*models, "attempts", "pool", "min_score"):
            data.pop(key, None)
    return data


CONF_DIR = Path(__file__).resolve().parents[1] / "conf" / "mining"


def load_config(overrides: list[str]) -> MiningConfig:
    """The mining configuration composed from ``conf/mining/`` with these overrides, validated; one ConfigError
    (what, and the fix) for a bad option, key or value."""
    try:
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
            raw = OmegaConf.to_container(compose("mining", overrides=overrides), resolve=True, throw_on_missing=True)
    except (HydraException, OmegaConfBaseException) as exc:
        first = str(exc).splitlines()[0].rstrip(".")
        raise ConfigError(f"{first}. Fix: see the options in {CONF_DIR} (e.g. skillbench mine ingest=star ingest.path=DATA out=DIR).") from None
    try:
        return MiningConfig.model_validate(raw)
    except ValidationError as exc:
        where, message = first_error(exc)
        raise ConfigError(f"mine config: field '{where}': {message}. Fix: correct it on the command line "
                          f"or in {CONF_DIR}.") from None
