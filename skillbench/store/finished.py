"""Whether a run or sweep folder's finished results may be written again by a new run.

Rule: finished results are never overwritten. Rerunning the *same* configuration into a folder resumes it (every
finished conversation comes back from the store for free); a *different* configuration is refused, naming what
differs, unless the user asks to move the old results aside (``run.overwrite=true``), which renames the folder and
never deletes. "Same" means the same :func:`~skillbench.store.keys.result_settings` (the settings that change a
result; budget, concurrency, endpoints and keys do not), compared job by job (a sweep's job by its number).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from skillbench.store.keys import result_settings

CONFIG_FILE = "config.json"
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
MULTIRUN_FILE = "multirun.yaml"


def holds_results(job_dir: Path) -> bool:
    """A job folder with a summary or at least one result row."""
    if (job_dir / SUMMARY_FILE).exists():
        return True
    try:
        return (job_dir / RESULTS_FILE).stat().st_size > 0
    except OSError:
        return False


def _settings(config: Mapping[str, Any] | BaseModel, model: type[BaseModel] | None) -> dict[str, Any]:
    """result_settings of a config, defaults filled in by ``model`` when the stored one still validates."""
    if model is not None and not isinstance(config, BaseModel):
        with contextlib.suppress(ValidationError):  # written by another version: compared as stored
            config = model.model_validate(config)
    return result_settings(config)


def _flat(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, Mapping):
        out: dict[str, Any] = {}
        for key, value in data.items():
            out.update(_flat(value, f"{prefix}{key}."))
        return out
    return {prefix.rstrip("."): data}


def differences(stored: Mapping[str, Any], new: BaseModel) -> list[str]:
    """Dotted names of the result-changing settings in which ``stored`` (a config.json) and ``new`` differ."""
    before, after = _flat(_settings(stored, type(new))), _flat(_settings(new, None))
    return sorted(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))


def _stored_config(job_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((job_dir / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _job_conflict(job_dir: Path, new: BaseModel | None, name: str) -> str | None:
    if not holds_results(job_dir):
        return None
    stored = _stored_config(job_dir)
    if stored is None or new is None:
        return f"{name} holds results whose configuration cannot be compared"
    changed = differences(stored, new)
    if not changed:
        return None
    shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
    return f"{name} holds results of another configuration (differing: {shown})"


def _job_dirs(sweep_dir: Path) -> list[Path]:
    return sorted(p for p in sweep_dir.iterdir() if p.is_dir() and (p / ".hydra").is_dir())


def _job_num(job_dir: Path) -> int | None:
    try:
        data = yaml.safe_load((job_dir / ".hydra" / "hydra.yaml").read_text(encoding="utf-8"))
        return int(data["hydra"]["job"]["num"])
    except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError):
        return None


def run_conflict(folder: Path, new: BaseModel | None) -> str | None:
    """Why a single run must not write into ``folder`` (None: empty, or the same configuration: it resumes)."""
    if not folder.is_dir():
        return None
    if (folder / MULTIRUN_FILE).exists() or any(holds_results(job) for job in _job_dirs(folder)):
        return f"{folder} holds a sweep"
    return _job_conflict(folder, new, str(folder))


def sweep_conflict(sweep_dir: Path, planned: Sequence[BaseModel | None]) -> str | None:
    """Why a sweep of jobs ``planned`` (in job-number order) must not write into ``sweep_dir`` (None: it may)."""
    if not sweep_dir.is_dir():
        return None
    if holds_results(sweep_dir):
        return f"{sweep_dir} holds a single run"
    for job_dir in _job_dirs(sweep_dir):
        if not holds_results(job_dir):
            continue
        num = _job_num(job_dir)
        if num is None or num >= len(planned):
            return f"{job_dir} holds results of a job this sweep does not have"
        problem = _job_conflict(job_dir, planned[num], str(job_dir))
        if problem:
            return problem
    return None


def refusal(problem: str, *, option: str) -> str:
    return (f"{problem}; finished results are never overwritten. Fix: choose a new folder ({option}=<new folder>), "
            "rerun the same configuration to resume, or add run.overwrite=true to move the old results aside "
            "(nothing is deleted).")


def move_aside(folder: Path) -> Path:
    """Rename ``folder`` to ``<folder>.replaced-<UTC time>`` (a new name, never an existing one)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = folder.with_name(f"{folder.name}.replaced-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = folder.with_name(f"{folder.name}.replaced-{stamp}-{n}")
    os.rename(folder, target)
    return target
