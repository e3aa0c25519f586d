"""Every job of a run or sweep, composed up front from the sweep overrides, the way the launcher will."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf, open_dict
from omegaconf.errors import OmegaConfBaseException

from skillbench.benchmark import load_benchmark, select_scenarios
from skillbench.benchmark.loader import Benchmark
from skillbench.config import RunConfig, validate_config
from skillbench.config.origin import ConfigOrigin
from skillbench.core.errors import BenchmarkDataError, ConfigError
from skillbench.engine.names import check_registered_names
from skillbench.models.prompt_size import TYPICAL_SCENARIO_TOKENS, scenario_tokens
from skillbench.plan.hydra_errors import one_line
from skillbench.plan.hydra_internals import apply_overrides, group_exists, load_option, split_sweep


@dataclass
class PlannedJob:
    """One job of the plan: its overrides, its validated config and its scenario count (None: refused)."""

    overrides: list[str]
    cfg: RunConfig | None = None
    choices: dict[str, str | None] = field(default_factory=dict)
    scenarios: int = 0
    # Mean estimated tokens the selected scenarios bring into each prompt beyond a typical scenario (dry-run sizes).
    extra_prompt_tokens: float = 0.0
    problem: str | None = None
    # The roles whose models the job calls (None: every role). The judge lab's judge configs call only their judge.
    roles: tuple[str, ...] | None = None


def sweep_overrides(master: DictConfig) -> list[list[str]]:
    """The override list of each job, as Hydra's basic sweeper expands them (params, then the command line).

    Raises ConfigError when a sweep value expands to nothing (``'agent=glob(nomatch*)'``): Hydra would launch 0
    jobs, leave an empty sweep folder and exit 0.
    """
    params = OmegaConf.select(master, "hydra.sweeper.params") or {}
    arguments = [f"{key}={value}" for key, value in params.items()]
    arguments += list(OmegaConf.select(master, "hydra.overrides.task") or [])
    loader = GlobalHydra.instance().config_loader()
    parser = OverridesParser.create(config_loader=loader)
    overrides = parser.parse_overrides(arguments)
    for override in overrides:
        if override.is_sweep_override() and override.is_discrete_sweep() and not list(override.sweep_string_iterator()):
            key = override.get_key_element()
            options = loader.get_group_options(key) if group_exists(loader, key) else []
            known = f" one of: {', '.join(options)}" if options else " at least one value"
            raise ConfigError(
                f"sweep value '{override.input_line}' gives no value, so the sweep has no job. "
                f"Fix: make it match{known} (or list them: {key}=a,b)."
            )
    return split_sweep(overrides)


# The jobs compose_jobs composed last, with the sweep config they were composed from: the checked sweeper
# (hydra_plugins/skillbench_plugins/checked_sweeper.py) does not compose them again.
_last_composed: tuple[DictConfig, frozenset[tuple[str, ...]]] | None = None


def composed_overrides(master: DictConfig) -> frozenset[tuple[str, ...]]:
    """The override lists of the jobs ``compose_jobs`` composed without a problem from this very sweep config."""
    if _last_composed is None or _last_composed[0] is not master:
        return frozenset()
    return _last_composed[1]


@dataclass
class ComposedJob:
    """One job's composed config, without the ``hydra`` node (the task function never sees it either)."""

    overrides: list[str]
    cfg: DictConfig | None  # None: Hydra could not compose the job (``problem`` says why)
    choices: dict[str, str | None] = field(default_factory=dict)
    problem: str | None = None
    origin: ConfigOrigin | None = None  # where its values were set (None: named by ``choices`` alone)


def _body(cfg: DictConfig) -> DictConfig:
    # The hydra node is most of a composed config; its job-only values would not resolve here anyway.
    return OmegaConf.masked_copy(cfg, [key for key in cfg if key != "hydra"])


def _choices(cfg: DictConfig) -> dict[str, str | None]:
    return dict(OmegaConf.select(cfg, "hydra.runtime.choices") or {})


def composition_problem(exc: BaseException) -> str:
    """One line for a job Hydra cannot compose (an unknown option or key in one value of a sweep list)."""
    return one_line(exc) or " ".join(str(exc).split())


def compose_jobs(master: DictConfig) -> list[ComposedJob]:
    """Each job's composed config (as the launcher will compose it); a single run is its own only job.

    A job Hydra cannot compose (``agent=sim_careful,sim_carefull``) is kept with its problem, so the
    preflight lists it with every other job's problems instead of giving up on the whole sweep.
    """
    if "MULTIRUN" not in str(OmegaConf.select(master, "hydra.mode")):
        run = ComposedJob(list(OmegaConf.select(master, "hydra.overrides.task") or []), _body(master), _choices(master))
        return _with_origins(master, [run])
    loader = GlobalHydra.instance().config_loader()
    composed: list[ComposedJob] = []
    swapper: _GroupSwapper | None = None  # built from the first job Hydra composes
    for job in sweep_overrides(master):
        # Hydra composes a job in ~0.3 s; 85 of them would delay the first call by half a minute. A job
        # that differs from the first only in plain config groups is the first with those nodes swapped.
        quick = swapper.swap(job) if swapper is not None else None
        if quick is None:
            try:
                full = loader.load_sweep_config(master, job)
            except (HydraException, OmegaConfBaseException) as exc:
                composed.append(ComposedJob(job, None, problem=composition_problem(exc)))
                continue
            quick = ComposedJob(job, _body(full), _choices(full))
            if swapper is None:
                swapper = _GroupSwapper(loader, quick, str(full.hydra.job.config_name))
        composed.append(quick)
    global _last_composed
    _last_composed = (master, frozenset(tuple(job.overrides) for job in composed if job.problem is None))
    return _with_origins(master, composed)


def _with_origins(master: DictConfig, composed: list[ComposedJob]) -> list[ComposedJob]:
    """Each job with where its values were set: the master's command line and search path, its own overrides."""
    hydra = master.get("hydra")
    for job in composed:
        job.origin = ConfigOrigin.of(hydra, job.overrides, job.choices)
    return composed


class _GroupSwapper:
    """The first job with other config-group options swapped in. Each option file and the primary config
    are read once (a paper grid picks 22 options for 85 jobs).

    Exact by construction: an override inside a swapped group (``judge.timeout_s=60``) is applied to the new
    node as Hydra applies it, and a group whose node in the first job is not what its option file and those
    overrides give (an experiment file that edits it, say) is never swapped: Hydra composes those jobs.
    """

    def __init__(self, loader: Any, base: ComposedJob, config_name: str) -> None:
        self.loader, self.base = loader, base
        self.parser = OverridesParser.create(config_loader=loader)
        self.before = dict(item.split("=", 1) for item in base.overrides)
        primary = load_option(loader, config_name)
        self.primary = primary.config if primary is not None else None
        self.nodes: dict[tuple[str, str], DictConfig | None] = {}
        self.exact: dict[str, bool] = {}

    def option(self, key: str, value: str) -> DictConfig | None:
        """The group's node for option ``value``: the primary config's base for the group, then the option."""
        if (key, value) not in self.nodes:
            option = load_option(self.loader, f"{key}/{value}")
            if option is None or option.package not in (None, "", "_group_") or option.has_defaults:
                self.nodes[key, value] = None  # a package directive or a defaults list: only Hydra composes that exactly
            else:
                start = (self.primary.get(key) if self.primary is not None else None) or {}
                self.nodes[key, value] = OmegaConf.merge(start, option.config)
        return self.nodes[key, value]

    def node(self, job: list[str], key: str, value: str) -> DictConfig | None:
        """The option's node with the job's overrides of keys inside the group applied."""
        option = self.option(key, value)
        inside = [item for item in job if item.split("=", 1)[0].lstrip("+~").startswith(f"{key}.")]
        if option is None or not inside:
            return option
        holder = OmegaConf.create({key: option})
        apply_overrides(self.parser.parse_overrides(inside), holder)
        return holder[key]

    def swappable(self, key: str) -> bool:
        """Whether the first job's node for group ``key`` is exactly its option plus the group's overrides."""
        if key not in self.exact:
            chosen = self.base.choices.get(key)
            node = self.node(self.base.overrides, key, chosen) if chosen else None
            base = self.base.cfg
            self.exact[key] = (node is not None and base is not None
                               and OmegaConf.to_container(node) == OmegaConf.to_container(base[key]))
        return self.exact[key]

    def swap(self, job: list[str]) -> ComposedJob | None:
        """``job`` as the first job with its differing groups swapped; None when that would not be exact."""
        assert self.base.cfg is not None
        changes: dict[str, DictConfig] = {}
        for item in job:
            key, value = item.split("=", 1)
            if self.before.get(key) == value:
                continue
            if (key.startswith(("+", "~", "hydra")) or not group_exists(self.loader, key)
                    or key not in self.base.cfg or not self.swappable(key)):
                return None
            node = self.node(job, key, value)
            if node is None:
                return None
            changes[key] = node
        if not changes:
            return ComposedJob(job, self.base.cfg, self.base.choices)
        cfg = copy.deepcopy(self.base.cfg)
        with open_dict(cfg):
            for key, node in changes.items():
                cfg[key] = node  # assigned nodes are copied, so the cached one stays untouched
        choices = dict(self.base.choices)
        for item in job:
            key, value = item.split("=", 1)
            if key in changes:
                choices[key] = value
        return ComposedJob(job, cfg, choices)


def oversized_problem(cfg: RunConfig, benchmark: Benchmark, tokens: list[int]) -> str | None:
    """A scenario whose content alone is over a role's prompt cap: refused before any call (not 45 M tokens later)."""
    caps = {role: getattr(cfg, key).max_prompt_tokens for role, key in (("agent", "agent"), ("user_sim", "user_sim"),
                                                                         ("judge", "judge"))}
    capped = {role: cap for role, cap in caps.items() if cap is not None}
    if not capped or not tokens:
        return None
    role, cap = min(capped.items(), key=lambda item: item[1])
    largest = max(tokens)
    if largest <= cap:
        return None
    ids = [s.id for s in select_scenarios(benchmark, cfg.benchmark)]
    name = ids[tokens.index(largest)] if len(ids) == len(tokens) else "a scenario"
    return (f"scenario '{name}' is about {largest:,} tokens (characters / 4), over {role}.max_prompt_tokens={cap:,}: "
            f"every prompt of its conversation would carry it. Fix: shorten it, leave it out (benchmark.scenarios=...), "
            f"or raise {role}.max_prompt_tokens (null: no cap)")


def plan_jobs(composed: list[ComposedJob]) -> list[PlannedJob]:
    """Validate each job and count its scenarios; each benchmark is loaded once however many jobs use it."""
    benchmarks: dict[str, Benchmark | BenchmarkDataError] = {}
    selected: dict[str, int | str] = {}  # benchmark settings -> scenario count, or the problem
    sizes: dict[str, list[int]] = {}  # benchmark settings -> each selected scenario's estimated tokens
    jobs: list[PlannedJob] = []
    for item in composed:
        job = PlannedJob(overrides=item.overrides, choices=item.choices)
        jobs.append(job)
        if item.cfg is None:
            job.problem = item.problem
            continue
        try:
            origin = item.origin or ConfigOrigin(choices=job.choices)
            job.cfg = validate_config(item.cfg, origin=origin)
            check_registered_names(job.cfg, origin=origin)
        except ConfigError as exc:
            job.cfg, job.problem = None, str(exc)
            continue
        source = job.cfg.benchmark.source
        if source not in benchmarks:
            try:
                benchmarks[source] = load_benchmark(source)
            except BenchmarkDataError as exc:
                benchmarks[source] = exc
        loaded = benchmarks[source]
        if isinstance(loaded, BenchmarkDataError):
            job.problem = str(loaded)
            continue
        selection = job.cfg.benchmark.model_dump_json()
        if selection not in selected:
            try:
                chosen = select_scenarios(loaded, job.cfg.benchmark)
                sizes[selection] = [scenario_tokens(s, loaded.skill_of(s)) for s in chosen]
                selected[selection] = len(chosen)
            except (ConfigError, BenchmarkDataError) as exc:
                selected[selection] = str(exc)
        count = selected[selection]
        if isinstance(count, str):
            job.problem = count
            continue
        job.scenarios = count
        tokens = sizes[selection]
        job.extra_prompt_tokens = sum(max(0, t - TYPICAL_SCENARIO_TOKENS) for t in tokens) / max(1, len(tokens))
        job.problem = oversized_problem(job.cfg, loaded, tokens)
    return jobs
