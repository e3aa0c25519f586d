"""Agent programs from config: ``agent.program`` names a class or factory with Hydra's ``_target_`` (or a
plug-in's registered ``package/name``) and its parameters; its identity goes into the rollout key."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
from collections.abc import Iterator, Mapping
from functools import cache
from importlib.metadata import Distribution, distributions
from pathlib import Path
from types import ModuleType
from typing import Any

from skillbench.agents.llm import LLMAgent
from skillbench.agents.protocol import MAIN_MODEL, Agent, unknown_model_message
from skillbench.config.schema import PROGRAM_TARGET, AgentConfig, RunConfig
from skillbench.core.errors import ConfigError
from skillbench.core.guest import fault_of
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
    target = agent.program[PROGRAM_TARGET]
    try:  # the parameters checked against the signature first: a bug inside __init__ is not blamed on them
        inspect.signature(factory).bind(**params)
    except TypeError as exc:
        raise ConfigError(f"config error at 'agent.program': {target} does not take these parameters ({exc}). "
                          "Fix: pass only the parameters it accepts.") from None
    except ValueError:  # no signature to read (a builtin): the call below says what is wrong
        pass
    try:
        program = factory(**params)
    except BaseException as exc:  # the program's own code: SystemExit and KeyboardInterrupt raised by it included
        fault = fault_of(exc)
        raise ConfigError(f"config error at 'agent.program': building {target} raised {fault.line()}. Fix: correct "
                          "the program or the files and parameters it needs; it is built once before the run to "
                          "find exactly this.") from None
    if not callable(getattr(program, "reply", None)) or not inspect.iscoroutinefunction(program.reply):
        raise ConfigError(f"config error at 'agent.program._target_': {target} built a "
                          f"{type(program).__name__}, which has no 'async def reply(self, state)'. Fix: implement "
                          "skillbench.agents.Agent (docs/agents.md).")
    _check_model_names(program, agent)
    return program


# -- The program's source hash: which code a program's objects come from ---------------------------------------------
#
# The code of a program is the code of its objects: the target, every class it inherits from, and every nested
# ``_target_`` of its parameters (and their classes' bases). Each object's module stands for a *unit* of code:
#   - a module of an installed distribution (a wheel in site-packages, a plug-in installed with pip): the
#     distribution's name, version and RECORD (the installer's list of its files with their hashes), so an
#     upgrade or a reinstall of changed code is a new key, and reading its files is never needed;
#   - a module on the path (a folder on PYTHONPATH, an editable install, the working tree): every ``.py`` file of
#     its top-level package's folder (the outermost regular package; a top-level single-file module: that file),
#     so a base class, a prompts module or a helper one package up is covered;
#   - the standard library: not hashed (it changes with the Python version, which is not part of any key).
# Each unit's hash is cached by its files' modification times, so a job pays a stat per file.


def _program_objects(program: Mapping[str, Any]) -> list[Any]:
    """The program's target and its nested ``_target_`` objects, each with the classes it inherits from."""
    found = [resolve_target(program[PROGRAM_TARGET])]
    for target in _nested_targets({key: value for key, value in program.items() if key != PROGRAM_TARGET}):
        nested = _import_object(target)
        if nested is not None:  # one that does not import is build_program's to report
            found.append(nested)
    objects: list[Any] = []
    for obj in found:
        objects.extend(inspect.getmro(obj) if inspect.isclass(obj) else (obj,))
    return objects


def _import_object(path: str) -> Any:
    """The object a dotted path names (``pkg.module.Class`` or ``pkg.module.Class.method``), as Hydra's
    ``_target_`` finds it; None when it does not import."""
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:split]))
            for attribute in parts[split:]:
                obj = getattr(obj, attribute)
            return obj
        except (ImportError, AttributeError):
            continue
    return None


def _nested_targets(params: Any) -> Iterator[str]:
    if isinstance(params, Mapping):
        if isinstance(params.get("_target_"), str):
            yield params["_target_"]
        for value in params.values():
            yield from _nested_targets(value)
    elif isinstance(params, list | tuple):
        for value in params:
            yield from _nested_targets(value)


def _check_model_names(program: Any, agent: AgentConfig) -> None:
    """The models a program says it will ask for (its optional ``model_names()``) are configured."""
    declared = getattr(program, "model_names", None)
    if not callable(declared):
        return
    try:
        names = [name for name in declared() if isinstance(name, str)]
    except BaseException as exc:
        raise ConfigError(f"config error at 'agent.program': {agent.program[PROGRAM_TARGET]}.model_names() raised "  # type: ignore[index]
                          f"{fault_of(exc).line()}. Fix: correct the program.") from None
    configured = [MAIN_MODEL, *agent.models]
    for name in names:
        if name not in configured:
            raise ConfigError(unknown_model_message(str(name), configured))


@cache
def _installed_at(root: Path, _mtime_ns: int) -> tuple[tuple[Distribution, str], ...]:
    """The distributions installed in this ``sys.path`` folder, each with its RECORD (the installer's list of
    its files and their hashes). Read once per folder and process, again when an install changes the folder."""
    return tuple((dist, dist.read_text("RECORD") or "") for dist in distributions(path=[str(root)]))


def _installed_distribution(module: ModuleType, file: Path) -> tuple[Distribution, str] | None:
    """The distribution installed beside the module's top-level package whose RECORD lists ``file``, with that
    RECORD (an editable install lists none of its sources: its code counts as code on the path)."""
    depth = module.__name__.count(".") + (1 if file.name == "__init__.py" else 0)
    if depth >= len(file.parents):
        return None
    root = file.parents[depth]
    line = file.relative_to(root).as_posix() + ","
    for dist, record in _installed_at(root, root.stat().st_mtime_ns):
        if record.startswith(line) or f"\n{line}" in record:
            return dist, record
    return None


def _package_root(module: ModuleType, file: Path) -> tuple[str, Path, list[Path]]:
    """The name and folder of the module's outermost regular package, and its ``.py`` files; for a top-level
    single-file module (or one in a namespace package only): its name, its folder and that file."""
    parts = module.__name__.split(".")
    for depth in range(1, len(parts) + 1):
        name = ".".join(parts[:depth])
        init = getattr(sys.modules.get(name), "__file__", None)
        if init is not None and Path(init).name == "__init__.py":
            folder = Path(init).parent
            return name, folder, sorted(path for path in folder.rglob("*.py") if "__pycache__" not in path.parts)
    return module.__name__, file.parent, [file]


def _code_unit(module: ModuleType) -> tuple[str, Path | None, list[Path]] | None:
    """``(label, folder, files)`` of the unit of code a module belongs to: an installed distribution's has no
    folder and its label holds its identity; a unit on the path is labelled by its package's (or module's) name.
    None for the standard library."""
    if module.__name__.split(".")[0] in sys.stdlib_module_names:
        return None
    file = Path(inspect.getsourcefile(module) or getattr(module, "__file__", None) or "")
    if not file.is_file():
        raise OSError(f"no source file for module {module.__name__}")
    installed = _installed_distribution(module, file)
    if installed is not None:
        dist, record = installed
        return (f"{dist.metadata['Name']}=={dist.version} record:{hashlib.sha256(record.encode()).hexdigest()}",
                None, [])
    return _package_root(module, file)


@cache
def _hash_unit(folder: Path, mtimes: tuple[tuple[str, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _mtime in mtimes:
        path = Path(name)
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def program_source_hash(program: Mapping[str, Any]) -> str:
    """A hash of the code the program's objects come from (see the rules above this function)."""
    target = program[PROGRAM_TARGET]
    units: dict[str, str] = {}
    try:
        for obj in _program_objects(program):
            module = inspect.getmodule(obj)
            if module is None:
                raise OSError(f"{obj!r} of {target} has no module")
            unit = _code_unit(module)
            if unit is None or unit[0] in units:
                continue
            label, folder, files = unit
            units[label] = "" if folder is None else _hash_unit(
                folder, tuple((str(path), path.stat().st_mtime_ns) for path in files))
    except OSError as exc:
        raise ConfigError(f"config error at 'agent.program': cannot read the source of {target} ({exc}). Fix: set "
                          "agent.hash_source=false and version the program yourself with agent.program_version.") from None
    digest = hashlib.sha256("\n".join(f"{label}\0{units[label]}" for label in sorted(units)).encode())
    return "sha256:" + digest.hexdigest()[:16]


def with_program_identity(cfg: RunConfig) -> RunConfig:
    """``cfg`` with ``agent.program_source`` filled in (the program's source hash), so the rollout key, the
    config.json of the job and the report's labels all say which code ran. Unchanged for a plain model."""
    agent = cfg.agent
    if agent.program is None or not agent.hash_source or agent.program_source is not None:
        return cfg
    source = program_source_hash(agent.program)
    return cfg.model_copy(update={"agent": agent.model_copy(update={"program_source": source})})
