"""Find and read job folders (config.json, results.jsonl, summary.json) from runs and sweeps."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from skillbench.config.schema import RunConfig
from skillbench.core.collector import paused_gc
from skillbench.core.errors import SkillbenchError, first_error
from skillbench.core.jsonl import json_lines
from skillbench.core.records import RuleCheck, Usage
from skillbench.engine.results import (
    CONFIG_FILE,
    JOB_ERROR_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    JobSummary,
    ResultRow,
)
from skillbench.store.ownership import live_owner

JOB_MARKERS = (CONFIG_FILE, RESULTS_FILE, SUMMARY_FILE)
HYDRA_DIR = ".hydra"
LOG_FILE = "skillbench.log"
# libyaml's loader when PyYAML was built with it: the same data for these plain files, ~10× faster.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml(path: Path) -> Any:
    return yaml.load(path.read_text(), Loader=_YAML_LOADER)  # a safe loader: C or pure-Python SafeLoader


class ReportError(SkillbenchError):
    """The given folders hold nothing a report can be built from, or an argument is wrong."""


@dataclass
class Job:
    """One job folder as found on disk. ``finished`` is True only when summary.json exists and is valid."""

    path: Path
    config: dict[str, Any]
    rows: list[ResultRow]
    summary: JobSummary | None
    status: str  # finished | unfinished | unreadable
    problems: list[str] = field(default_factory=list)
    hydra_overrides: list[str] = field(default_factory=list)
    launch_cwd: Path | None = None
    error_hint: str | None = None
    # Lines of results.jsonl that are not result rows: skipped (every good row is kept), each named file:line.
    damaged: list[str] = field(default_factory=list)
    # Where the rows disagree with the job's own summary.json (an emptied or cut results.jsonl): damaged input too.
    disagreements: list[str] = field(default_factory=list)
    running: str | None = None  # the live process still writing this job's run or sweep (its owner), if any

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def _name(self, role: str) -> str:
        # config.json, else Hydra's saved config, else the rows; the folder name only as a last resort.
        section = self.config.get(role)
        if isinstance(section, dict) and section.get("name"):
            return str(section["name"])
        if self.rows:
            return str(getattr(self.rows[0], role))
        return f"?{self.path.name}" if role == "agent" else "?"

    @property
    def agent(self) -> str:
        return self._name("agent")

    @property
    def judge(self) -> str:
        return self._name("judge")

    @property
    def finished_at(self) -> str:
        return self.summary.finished_at if self.summary is not None else ""


PANEL_KEY = "panel"  # config.json judge.panel of a panel job: {"vote": ..., "members": [...]}


def is_panel(job: Job) -> bool:
    """A panel column's job (skillbench/report/panel_verdicts.py): its judge is the vote of other judges."""
    judge = job.config.get("judge")
    return isinstance(judge, dict) and isinstance(judge.get(PANEL_KEY), dict)


def panel_labels(jobs: Iterable[Job], labels: dict[Path, tuple[str, str]]) -> set[str]:
    """The judge labels that are panel columns, not judges."""
    return {labels[job.path][1] for job in jobs if is_panel(job) and job.path in labels}


def is_job_dir(path: Path) -> bool:
    return path.is_dir() and any((path / marker).exists() for marker in JOB_MARKERS)


def _is_hydra_job_dir(path: Path) -> bool:
    # A job that crashed before writing anything still has Hydra's own files: list it as unfinished.
    return (
        path.is_dir()
        and (path / HYDRA_DIR / "config.yaml").exists()
        and not (path / "multirun.yaml").exists()
    )


def find_job_dirs(paths: list[Path | str]) -> list[Path]:
    """Job folders under each path: the path itself, its children (a sweep), or grandchildren (sweeps).

    Deeper folders are not searched, so a rescore written inside a sweep is not mistaken for its jobs.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise ReportError(
                f"{path}: no such folder. Fix: pass a job folder or a sweep folder (outputs/multirun/<stamp>)."
            )
        if is_job_dir(path) or _is_hydra_job_dir(path):
            found.append(path)
            continue
        children = sorted(p for p in path.iterdir() if p.is_dir())
        jobs = [p for p in children if is_job_dir(p) or _is_hydra_job_dir(p)]
        if not jobs:
            jobs = [g for c in children for g in sorted(c.iterdir()) if is_job_dir(g) or _is_hydra_job_dir(g)]
        if not jobs:
            raise ReportError(
                f"{path}: no job folders found (a job folder holds {CONFIG_FILE} and {RESULTS_FILE}). "
                "Fix: pass a run folder, a sweep folder, or a folder of sweeps."
            )
        found.extend(jobs)
    unique: dict[Path, None] = {}
    for job in found:
        unique.setdefault(job.resolve(), None)
    return list(unique)


def _read_hydra(path: Path, *, config_needed: bool) -> tuple[dict[str, Any], list[str], Path | None]:
    """The composed config Hydra saved (only when ``config_needed``: config.json is missing or
    unreadable), the job's overrides and the launch directory (for relative paths)."""
    hydra_dir = path / HYDRA_DIR
    config: dict[str, Any] = {}
    overrides: list[str] = []
    cwd: Path | None = None
    try:
        if config_needed and (hydra_dir / "config.yaml").exists():
            config = _yaml(hydra_dir / "config.yaml") or {}
        if (hydra_dir / "overrides.yaml").exists():
            overrides = [str(o) for o in _yaml(hydra_dir / "overrides.yaml") or []]
        if (hydra_dir / "hydra.yaml").exists():
            hydra_cfg = _yaml(hydra_dir / "hydra.yaml") or {}
            runtime_cwd = ((hydra_cfg.get("hydra") or {}).get("runtime") or {}).get("cwd")
            cwd = Path(runtime_cwd) if runtime_cwd else None
    except (OSError, yaml.YAMLError):
        pass  # Hydra's files are a fallback only; a damaged one must not hide the job's own files
    return config, overrides, cwd


def _error_hint(path: Path) -> str | None:
    """Why an unfinished job stopped, shown next to its missing cell: the engine's job_error.json,
    else the last ERROR line of the job log."""
    try:
        error = json.loads((path / JOB_ERROR_FILE).read_text())
        return f"{error.get('type', 'error')}: {error.get('error', '')}"[:300]
    except (OSError, json.JSONDecodeError, AttributeError):
        pass
    log = path / LOG_FILE
    if not log.exists():
        return None
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if "[ERROR]" in line or "[CRITICAL]" in line or line.startswith("Traceback"):
            return line.strip()[:300]
    return None


def _normalise(config: dict[str, Any]) -> dict[str, Any]:
    """Hydra's saved config with RunConfig defaults filled in, so it compares equal to a config.json dump."""
    try:
        return RunConfig.model_validate(config).model_dump(mode="json")
    except ValidationError:
        return config


def write_job(job: Job) -> None:
    """Write a job folder :func:`load_job` reads back: config.json, results.jsonl and summary.json (when it has one)."""
    job.path.mkdir(parents=True, exist_ok=True)
    (job.path / CONFIG_FILE).write_text(json.dumps(job.config, indent=2))
    (job.path / RESULTS_FILE).write_text("".join(row.model_dump_json() + "\n" for row in job.rows))
    if job.summary is not None:
        (job.path / SUMMARY_FILE).write_text(job.summary.model_dump_json(indent=2))


def load_job(path: Path) -> Job:
    """Read one job folder. Never raises for damaged content: problems are recorded on the Job."""
    problems: list[str] = []
    config: dict[str, Any] = {}
    if (path / CONFIG_FILE).exists():
        try:
            config = json.loads((path / CONFIG_FILE).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            problems.append(f"{path / CONFIG_FILE}: unreadable ({exc})")
    hydra_config, overrides, cwd = _read_hydra(path, config_needed=not config)
    if not config and hydra_config:
        config = _normalise({k: v for k, v in hydra_config.items() if k != "hydra"})

    summary: JobSummary | None = None
    if (path / SUMMARY_FILE).exists():
        try:
            summary = JobSummary.model_validate_json((path / SUMMARY_FILE).read_text())
        except (OSError, ValidationError) as exc:
            problems.append(f"{path / SUMMARY_FILE}: invalid ({_first_error(exc)})")

    rows: list[ResultRow] = []
    damaged: list[str] = []
    shared = _Shared()
    results = path / RESULTS_FILE
    if results.exists():
        lines = json_lines(results.read_bytes())  # bytes: validated as they are, never decoded twice
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                rows.append(_compact(ResultRow.model_validate_json(line), shared))
            except ValidationError as exc:
                # The last line of an interrupted job may be cut short; any other bad line is damage: skipped,
                # counted and named, while every good row of the file is kept.
                if not (summary is None and number == len(lines)):
                    damage = f"{results}:{number}: not a result row, skipped ({_first_error(exc)})"
                    damaged.append(damage)
                    problems.append(damage)
    owner = live_owner(path)
    if owner and owner[1] and owner[1].is_this_process():
        owner = None  # this process owns it: the sweep's own report, written once every job has ended
    running = owner[1].describe() if owner and owner[1] else ("another process" if owner else None)
    disagreements: list[str] = []
    if summary is None:
        status = "unreadable" if (path / SUMMARY_FILE).exists() else "unfinished"
    else:
        status = "finished"
        disagreements = _check_summary(path, rows, summary)
        problems.extend(disagreements)
    return Job(
        path=path,
        config=config,
        rows=rows,
        summary=summary,
        status=status,
        problems=problems,
        hydra_overrides=overrides,
        launch_cwd=cwd,
        error_hint=None if status == "finished" else (f"still running ({running})" if running else _error_hint(path)),
        damaged=damaged,
        disagreements=disagreements,
        running=running,
    )


class _Shared:
    """What the rows of one results.jsonl share once loaded: each set of explicitly given field names, and each
    rule check and usage record of the same values (most rows pass the same checks with the same empty detail)."""

    def __init__(self) -> None:
        self.field_sets: dict[frozenset[str], set[str]] = {}
        self.records: dict[tuple[Any, ...], BaseModel] = {}

    def field_set(self, model: BaseModel) -> set[str]:
        """The loaded set equal to ``model``'s set of given field names, now also ``model``'s."""
        names = model.__pydantic_fields_set__
        names = self.field_sets.setdefault(frozenset(names), names)
        object.__setattr__(model, "__pydantic_fields_set__", names)
        return names

    def record(self, model: _Part) -> _Part:
        """The first loaded record equal to ``model`` (same type, values and given fields), or ``model``."""
        fields = model.__dict__
        for name in _FLOAT_FIELDS[type(model)]:
            if fields[name] == 0.0 and math.copysign(1.0, fields[name]) < 0:
                return model  # -0.0 == 0.0, but it is written differently: kept apart
        values = tuple(fields.values())
        key = (type(model), id(self.field_set(model)), values)  # the field sets are shared first: one per content
        return self.records.setdefault(key, model)  # type: ignore[return-value]  (same type: part of the key)


_Part = TypeVar("_Part", RuleCheck, Usage)
_FLOAT_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {
    record: tuple(name for name, info in record.model_fields.items() if info.annotation is float)
    for record in (RuleCheck, Usage)
}


def _compact(row: ResultRow, shared: _Shared) -> ResultRow:
    """The row holding what other rows of its file hold too once: its (and its nested models') set of explicitly
    given field names, and its rule checks and usage records where an equal one was loaded before.

    Pydantic keeps one field-name set per model instance, and every check and usage record is a model of its own:
    together more than half of a loaded row's memory (a 17 × 5 × 500 report holds 42,500 rows). Nothing in
    skillbench reads the set (no ``exclude_unset``) or changes a loaded row in place: ``model_copy(update=...)``
    builds a new row, so sharing is invisible to the report, rescore and diff. Only assigning an attribute of a
    loaded row, check or usage record would change what other rows share.
    """
    row.rule_checks[:] = [shared.record(check) for check in row.rule_checks]
    for role, usage in row.usage.items():
        row.usage[role] = shared.record(usage)
    shared.field_set(row)
    if row.scores is not None:
        shared.field_set(row.scores)
    return row


def _check_summary(path: Path, rows: list[ResultRow], summary: JobSummary) -> list[str]:
    """The report recomputes counts from rows; a disagreement with summary.json is shown, not hidden."""
    scored = sum(row.passed is not None for row in rows)
    passed = sum(row.passed is True for row in rows)
    problems = []
    if len(rows) != summary.scenarios:
        problems.append(
            f"{path}: results.jsonl has {len(rows)} rows but summary.json says {summary.scenarios} scenarios"
        )
    if scored != summary.scored or passed != summary.passed:
        problems.append(
            f"{path}: rows give {passed}/{scored} passed/scored but summary.json says {summary.passed}/{summary.scored}"
        )
    return problems


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        field, message = first_error(exc)
        return f"field '{field}': {message}"
    return str(exc)


def damage_lines(jobs: list[Job]) -> list[str]:
    """Every skipped line of every job, named file:line, then every job whose rows disagree with its own
    summary.json (what a reader prints on stderr; either is damaged input)."""
    return [line for job in jobs for line in job.damaged] + [line for job in jobs for line in job.disagreements]


def left_out_lines(jobs: list[Job]) -> list[str]:
    """One line per job a reader of finished results leaves out (still running, unfinished, unreadable summary)."""
    lines = []
    for job in jobs:
        if job.finished:
            continue
        why = f"still running ({job.running})" if job.running else (
            "did not finish" if job.status == "unfinished" else "has an unreadable summary.json")
        lines.append(f"{job.path} {why} ({len(job.rows)} whole row(s) kept): left out until it finishes")
    return lines


def benchmark_versions(jobs: Iterable[Job]) -> dict[str, set[str]]:
    """Benchmark name → content versions its rows were produced on (runs before versions record none)."""
    versions: dict[str, set[str]] = {}
    for job in jobs:
        for row in job.rows:
            if row.benchmark_version:
                versions.setdefault(row.benchmark, set()).add(row.benchmark_version)
    return versions


def running_lines(jobs: list[Job]) -> list[str]:
    """One line per run or sweep still being written (its results are partial)."""
    seen: dict[str, None] = {}
    for job in jobs:
        if job.running:
            seen.setdefault(f"{job.path.parent if job.path.parent.joinpath('multirun.yaml').exists() else job.path} "
                            f"is still being written by {job.running}: its results are partial", None)
    return list(seen)


def load_jobs(paths: list[Path | str]) -> list[Job]:
    """Every job under the given run, sweep or folder-of-sweeps paths."""
    with paused_gc():
        return [load_job(path) for path in find_job_dirs(paths)]


EXIT_DAMAGED_INPUT = 4  # a reader skipped damaged input (docs/outcomes.md)


def input_state(prog: str, jobs: list[Job], *, left_out: bool = False) -> int:
    """Say on stderr what a reader skipped and what is still running; the exit code: EXIT_DAMAGED_INPUT when a line
    was skipped or a job's rows disagree with its own summary.json, else 0. ``left_out``: also name each job that is
    not finished (readers that show finished jobs only; the report shows them as cells)."""
    for line in running_lines(jobs):
        print(f"{prog}: note: {line}", file=sys.stderr)
    for line in left_out_lines(jobs) if left_out else []:
        print(f"{prog}: left out: {line}", file=sys.stderr)
    skipped = [line for job in jobs for line in job.damaged]
    disagreeing = [job for job in jobs if job.disagreements]
    for line in damage_lines(jobs):
        print(f"{prog}: damaged input: {line}", file=sys.stderr)
    if not skipped and not disagreeing:
        return 0
    said = ([f"{len(skipped)} damaged line(s) skipped; every other row was used"] if skipped else []) + (
        [f"{len(disagreeing)} job(s) whose rows disagree with their summary.json; their rows were used as they are"]
        if disagreeing else [])
    print(f"{prog}: {'; '.join(said)} (exit {EXIT_DAMAGED_INPUT}). Fix: repair or remove the damaged lines or files, "
          "or rerun the job into a new folder.", file=sys.stderr)
    return EXIT_DAMAGED_INPUT
