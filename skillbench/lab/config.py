"""Hydra-composed configs for the lab: the command line's overrides, sweeps (``judge=glob(sim_*)``,
``judge=a,b``) expanded into one validated RunConfig per combination, as a ``-m`` run would, and the main
command's preflight over them (``skillbench.plan``: the same checks, not a copy)."""

from __future__ import annotations

import itertools
from importlib import resources

from hydra import compose, initialize_config_module
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Glob, Override

from skillbench.config import RunConfig
from skillbench.core.errors import ConfigError
from skillbench.plan.preflight import preflight_problems
from skillbench.plan.sweep import ComposedJob, PlannedJob, plan_jobs

CONF_MODULE = "skillbench.conf"


def group_options(group: str) -> list[str]:
    """The option names of a config group (its YAML files)."""
    folder = resources.files(CONF_MODULE).joinpath(group)
    if not folder.is_dir():
        return []
    return sorted(p.name.rsplit(".", 1)[0] for p in folder.iterdir() if p.name.endswith(".yaml"))


def _expand(override: Override) -> list[str]:
    key = override.get_key_element()
    if not override.is_sweep_override():
        return [override.input_line]
    value = override.value()
    if isinstance(value, Glob):
        names = value.filter(group_options(key))
        if not names:
            raise ConfigError(f"'{override.input_line}' matches no option of {key}; options: {', '.join(group_options(key))}")
        return [f"{key}={name}" for name in names]
    return [f"{key}={item}" for item in override.sweep_string_iterator()]


def _check_option(line: str) -> None:
    """An unknown option of a config group (``judge=nope``) as one line that lists the options."""
    key, _, value = line.lstrip("+~").partition("=")
    options = group_options(key)
    if options and value and value not in options:
        raise ConfigError(f"unknown {key} '{value}'. Fix: one of {', '.join(options)}")


def plan_runs(overrides: list[str], roles: tuple[str, ...] | None = None) -> list[PlannedJob]:
    """One planned job per point of the sweep the overrides describe, checked as the main command checks its jobs
    (``plan.sweep.plan_jobs``: config, registered names, benchmark and selection; a problem is kept on the job).
    ``roles``: the models of each job the lab will call, for the preflight."""
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except Exception as exc:  # Hydra's parser raises its own error types; one clear line is enough
        raise ConfigError(f"cannot parse overrides {overrides}: {exc}. Fix: use key=value, e.g. 'judge=glob(sim_*)'") from None
    composed: list[ComposedJob] = []
    with initialize_config_module(version_base="1.3", config_module=CONF_MODULE):
        for combination in itertools.product(*(_expand(o) for o in parsed)):
            for line in combination:
                _check_option(line)
            try:
                cfg = compose("config", overrides=list(combination))
            except Exception as exc:  # Hydra's message spans lines (options, search path): keep its first
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ConfigError(f"cannot compose the config with {list(combination)}: {first}") from None
            composed.append(ComposedJob(list(combination), cfg))
        jobs = plan_jobs(composed)
    for job in jobs:
        job.roles = roles
    return jobs


def configs(jobs: list[PlannedJob]) -> list[RunConfig]:
    """The validated config of every job; the first problem (invalid config, unknown name, bad selection) is raised."""
    for job in jobs:
        if job.problem:
            raise ConfigError(job.problem)
    return [job.cfg for job in jobs if job.cfg is not None]


def compose_runs(overrides: list[str]) -> list[RunConfig]:
    """One validated config per point of the sweep the overrides describe (a single one without sweeps)."""
    return configs(plan_runs(overrides))


# The models the lab calls: a judge config's judge; a source config's agent, user simulator and mock model
# (they produce the source rollouts the store does not hold yet).
JUDGE_ROLES = ("judge",)
SOURCE_ROLES = ("agent", "user_sim", "mock.llm")


def preflight(jobs: list[PlannedJob]) -> list[str]:
    """The main command's sweep-wide preflight (``plan.preflight.preflight_problems``) over every model the lab will
    call: each key set, each self-hosted endpoint answering with its model, every job's config problem. One line
    per problem; empty when all is well or with ``run.preflight=false`` (the first job's setting, as for a sweep)."""
    first = next((job.cfg for job in jobs if job.cfg is not None), None)
    if first is not None and not first.run.preflight:
        return []
    return preflight_problems(jobs, probe_timeout_s=first.run.probe_timeout_s if first is not None else 3.0)
