"""Agent programs from config: ``agent.program`` names a class or factory with Hydra's ``_target_`` (or a
plug-in's registered ``package/name``) and its parameters; its identity goes into the rollout key."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from skillbench.agents.llm import LLMAgent
from skillbench.agents.protocol import Agent
from skillbench.config.schema import PROGRAM_TARGET, AgentConfig, RunConfig
from skillbench.core.errors import ConfigError
from skillbench.core.registry import Registry

AGENTS: Registry[Any] = Registry("agent program")
"""Agent programs registered by name (plug-ins: ``package/name``); ``agent.program._target_`` may name one."""



def register_agent(name: str) -> Any:
    """Register an agent class or factory under ``name`` (a plug-in's: ``<namespace>/<name>``), so that
    ``agent.program._target_: <namespace>/<name>`` builds it."""

    def decorator(factory: Any) -> Any:
        AGENTS.register(name)(factory)
        return factory

    return decorator


_FIX = "Fix: set agent.program._target_ to an importable class or factory (package.module.Name) or a registered name"


def resolve_target(target: str) -> Any:
    """The class or factory ``target`` names: a registered agent (``package/name``) or a Python import path."""
    if "/" in target:
        if target not in AGENTS:
            from skillbench.core.plugins import load_plugins  # plug-ins register their agents when loaded

            load_plugins()
        if target not in AGENTS:
            registered = ", ".join(AGENTS.names()) or "none"
            raise ConfigError(f"config error at 'agent.program._target_': no agent program {target!r} is registered "
                              f"(registered: {registered}). {_FIX}.")
        return AGENTS.get(target)
    module_name, _, attribute = target.rpartition(".")
    try:
        module = importlib.import_module(module_name) if module_name else None
        found = getattr(module, attribute) if module is not None else None
    except ImportError as exc:
        raise ConfigError(f"config error at 'agent.program._target_': cannot import {target!r} ({exc}). {_FIX}.") from None
    except AttributeError:
        found = None
    if found is None:
        raise ConfigError(f"config error at 'agent.program._target_': {target!r} names nothing importable. {_FIX}.")
    return found


def build_program(agent: AgentConfig) -> Agent:
    """The agent of a job: the program built with its parameters, or :class:`LLMAgent` when there is none."""
    if agent.program is None:
        return LLMAgent()
    params = {key: value for key, value in agent.program.items() if key != PROGRAM_TARGET}
    factory = resolve_target(agent.program[PROGRAM_TARGET])
    if "_target_" in repr(params):  # nested objects (a retriever, a tokenizer), built as Hydra builds them
        from hydra.errors import InstantiationException
        from hydra.utils import instantiate

        try:
            params = instantiate(params, _convert_="all")
        except InstantiationException as exc:
            first = str(exc).strip().splitlines()[0]
            raise ConfigError(f"config error at 'agent.program': a nested _target_ could not be built ({first}). "
                              "Fix: correct that parameter's _target_ or its arguments.") from None
    try:
        program = factory(**params)
    except TypeError as exc:
        raise ConfigError(f"config error at 'agent.program': {agent.program[PROGRAM_TARGET]} does not take these "
                          f"parameters ({exc}). Fix: pass only the parameters it accepts.") from None
    if not callable(getattr(program, "reply", None)) or not inspect.iscoroutinefunction(program.reply):
        raise ConfigError(f"config error at 'agent.program._target_': {agent.program[PROGRAM_TARGET]} built a "
                          f"{type(program).__name__}, which has no 'async def reply(self, state)'. Fix: implement "
                          "skillbench.agents.Agent (docs/agents.md).")
    return program


def _source_files(module: ModuleType) -> tuple[Path, list[Path]]:
    """The folder and the .py files whose text is the program's source: the package of the defining module
    (its folder, recursively), or the module's own file when it is not in a package."""
    file = Path(inspect.getsourcefile(module) or "")
    if not file.is_file():
        raise OSError(f"no source file for module {module.__name__}")
    if not module.__name__.count(".") and file.name != "__init__.py":
        return file.parent, [file]
    folder = file.parent
    return folder, sorted(path for path in folder.rglob("*.py") if "__pycache__" not in path.parts)


@cache
def _hash_folder(module_name: str, mtimes: tuple[tuple[str, int], ...]) -> str:
    module = sys.modules[module_name]
    folder, files = _source_files(module)
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()[:16]


def program_source_hash(target: str) -> str:
    """A hash of the source of the program ``target`` names (see :func:`_source_files`)."""
    obj = resolve_target(target)
    module = inspect.getmodule(obj)
    try:
        if module is None:
            raise OSError(f"{target} has no module")
        _folder, files = _source_files(module)
        mtimes = tuple((str(path), path.stat().st_mtime_ns) for path in files)
        return _hash_folder(module.__name__, mtimes)
    except OSError as exc:
        raise ConfigError(f"config error at 'agent.program': cannot read the source of {target} ({exc}). Fix: set "
                          "agent.hash_source=false and version the program yourself with agent.program_version.") from None


def with_program_identity(cfg: RunConfig) -> RunConfig:
    """``cfg`` with ``agent.program_source`` filled in (the program's source hash), so the rollout key, the
    config.json of the job and the report's labels all say which code ran. Unchanged for a plain model."""
    agent = cfg.agent
    if agent.program is None or not agent.hash_source or agent.program_source is not None:
        return cfg
    source = program_source_hash(agent.program[PROGRAM_TARGET])
    return cfg.model_copy(update={"agent": agent.model_copy(update={"program_source": source})})
