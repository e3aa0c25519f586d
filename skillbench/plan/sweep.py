"""Every job of a run or sweep, composed up front from the sweep overrides, the way the launcher will."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from omegaconf import DictConfig, OmegaConf, open_dict

from skillbench.benchmark import load_benchmark, select_scenarios
from skillbench.benchmark.loader import Benchmark
from skillbench.config import RunConfig, validate_config
from skillbench.core.errors import BenchmarkDataError, ConfigError
from skillbench.engine.names import check_registered_names


@dataclass
class PlannedJob:
    """One job of the plan: its overrides, its validated config and its scenario count (None: refused)."""

    overrides: list[str]
    cfg: RunConfig | None = None
    choices: dict[str, str | None] = field(default_factory=dict)
    scenarios: int = 0
    problem: str | None = None


def sweep_overrides(master: DictConfig) -> list[list[str]]:
    """The override list of each job, as Hydra's basic sweeper expands them (params, then the command line)."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.override_parser.overrides_parser import OverridesParser

    params = OmegaConf.select(master, "hydra.sweeper.params") or {}
    arguments = [f"{key}={value}" for key, value in params.items()]
    arguments += list(OmegaConf.select(master, "hydra.overrides.task") or [])
    parser = OverridesParser.create(config_loader=GlobalHydra.instance().config_loader())
    batches = BasicSweeper.split_arguments(parser.parse_overrides(arguments), None)
    return [list(job) for batch in batches for job in batch]


def compose_jobs(master: DictConfig) -> list[tuple[list[str], DictConfig]]:
    """Each job's composed config (as the launcher will compose it); a single run is its own only job."""
    from hydra.core.global_hydra import GlobalHydra

    if "MULTIRUN" not in str(OmegaConf.select(master, "hydra.mode")):
        return [(list(OmegaConf.select(master, "hydra.overrides.task") or []), master)]
    loader = GlobalHydra.instance().config_loader()
    jobs = sweep_overrides(master)
    if not jobs:
        return []
    base = loader.load_sweep_config(master, jobs[0])
    composed = [(jobs[0], base)]
    for job in jobs[1:]:
        # Hydra composes a job in ~0.3 s; 85 of them would delay the first call by half a minute. A job
        # that differs from the first only in plain config groups is the first with those nodes swapped.
        quick = _swap_groups(loader, base, jobs[0], job)
        composed.append((job, quick if quick is not None else loader.load_sweep_config(master, job)))
    return composed


def _swap_groups(loader: Any, base: DictConfig, base_job: list[str], job: list[str]) -> DictConfig | None:
    """``base`` with the config-group nodes that ``job`` picks differently; None when that is not exact."""
    before = dict(item.split("=", 1) for item in base_job)
    cfg: DictConfig | None = None
    for item in job:
        key, value = item.split("=", 1)
        if before.get(key) == value:
            continue
        if key.startswith(("+", "~", "hydra")) or not loader.repository.group_exists(key) or key not in base:
            return None
        option = loader.repository.load_config(f"{key}/{value}")
        if option is None or option.header.get("package") not in (None, "", "_group_") or "defaults" in option.config:
            return None  # a package directive or a defaults list: only Hydra composes that exactly
        if cfg is None:
            cfg = copy.deepcopy(base)
        primary = loader.repository.load_config(str(base.hydra.job.config_name))
        node = OmegaConf.merge(primary.config.get(key) or {}, option.config) if primary else option.config
        with open_dict(cfg):
            cfg[key] = node  # the primary config's base for the group (it comes first), then the option
            cfg.hydra.runtime.choices[key] = value
    return cfg if cfg is not None else base


def plan_jobs(composed: list[tuple[list[str], DictConfig]]) -> list[PlannedJob]:
    """Validate each job and count its scenarios; each benchmark is loaded once however many jobs use it."""
    benchmarks: dict[str, Benchmark | BenchmarkDataError] = {}
    selected: dict[str, int | str] = {}  # benchmark settings -> scenario count, or the problem
    jobs: list[PlannedJob] = []
    for overrides, cfg in composed:
        job = PlannedJob(overrides=overrides)
        jobs.append(job)
        job.choices = dict(OmegaConf.select(cfg, "hydra.runtime.choices") or {})
        # The task function never sees the hydra node (its job-only values would not resolve here).
        body = OmegaConf.masked_copy(cfg, [key for key in cfg if key != "hydra"])
        try:
            job.cfg = validate_config(body, choices=job.choices)
            check_registered_names(job.cfg, job.choices)
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
                selected[selection] = len(select_scenarios(loaded, job.cfg.benchmark))
            except (ConfigError, BenchmarkDataError) as exc:
                selected[selection] = str(exc)
        count = selected[selection]
        if isinstance(count, str):
            job.problem = count
        else:
            job.scenarios = count
    return jobs
