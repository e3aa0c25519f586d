"""Compare two runs or sweeps: config changes, per-cell pass-rate deltas with McNemar, flipped verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.engine.results import ResultRow
from skillbench.report import stats
from skillbench.report.frame import group_value, job_labels
from skillbench.report.jobs import Job, benchmark_versions, damage_lines, left_out_lines, load_jobs
from skillbench.report.tables import markdown_table, md_escape, pct

# Config groups whose change can change results (the rest is plumbing: concurrency, timeouts, logs).
COMPARED_GROUPS: tuple[str, ...] = ("agent", "judge", "user_sim", "mock", "pass_rule", "benchmark", "run")


class DiffRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConfigChange(DiffRecord):
    group: str
    a: list[str] = Field(description="Names of this group's configs in A.")
    b: list[str]
    fields: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="'<name>.<field>' (or '<a>→<b>.<field>') → {a, b} for changed fields.",
    )


class CellDelta(DiffRecord):
    agent: str
    judge: str
    presence: str = Field(description="both | only_a | only_b")
    pass_rate_a: float | None = None
    pass_rate_b: float | None = None
    delta: float | None = Field(None, description="B − A (fraction).")
    shared: int = Field(0, description="Scenarios (× trials) with a verdict in both.")
    a_pass_b_fail: int = 0
    a_fail_b_pass: int = 0
    mcnemar_p: float | None = Field(None, description="Exact McNemar two-sided p on the shared scenarios.")
    verdicts_appeared: int = Field(
        0, description="Scenarios unscored in A (error or absent) and scored in B."
    )
    verdicts_lost: int = Field(0, description="Scenarios scored in A and unscored in B.")


class Flip(DiffRecord):
    agent: str
    judge: str
    scenario_id: str
    trial: int = Field(0, description="The scenario's trial (run.trials); 0 in runs without trials.")
    a: bool | None
    b: bool | None
    why: list[str]


class RunDiff(DiffRecord):
    a: list[str]
    b: list[str]
    config_changes: list[ConfigChange]
    cells: list[CellDelta]
    flips: list[Flip] = Field(
        description="Pass ↔ fail changes on shared scenarios, each with its explanation."
    )
    availability: list[Flip] = Field(description="Verdict ↔ no verdict changes (judge or infra errors).")
    identical: bool = Field(description="No config change, no flip, no availability change, same cells.")
    warnings: list[str] = Field(default_factory=list, description="Reasons the two sides may not be comparable.")


def input_warnings(jobs: list[Job], side: str) -> list[str]:
    """What is partial or damaged on one side: unfinished or running jobs (left out of the comparison), skipped lines,
    rows that disagree with their own summary."""
    running = [f"{side}: {job.path} is still running ({job.running}); its results are partial"
               for job in jobs if job.finished and job.running]
    return running + [f"{side}: {line}" for line in left_out_lines(jobs)] + [
        f"{side}: damaged input: {line}" for line in damage_lines(jobs)
    ]


def version_warnings(a_jobs: list[Job], b_jobs: list[Job]) -> list[str]:
    """A warning per benchmark that A and B ran in different versions (same name, other content)."""
    a, b = benchmark_versions(a_jobs), benchmark_versions(b_jobs)
    return [
        f"benchmark '{name}' differs between the runs (A: {', '.join(sorted(a[name]))}; B: {', '.join(sorted(b[name]))}): "
        f"scenarios with the same id may have different content, so verdict changes may come from the data"
        for name in sorted(set(a) & set(b))
        if a[name] != b[name]
    ]


def _group_dumps(jobs: list[Job], group: str) -> dict[str, dict[str, Any]]:
    dumps: dict[str, dict[str, Any]] = {}
    for job in jobs:
        value = group_value(job.config, group)
        if value is not None:
            dumps.setdefault(str(value.get("name", group)), value)
    return dumps


def _field_changes(prefix: str, a: dict[str, Any], b: dict[str, Any]) -> dict[str, dict[str, Any]]:
    keys = sorted(set(a) | set(b))
    return {
        f"{prefix}.{k}": {"a": a.get(k), "b": b.get(k)}
        for k in keys
        if k != "name" and json.dumps(a.get(k), sort_keys=True) != json.dumps(b.get(k), sort_keys=True)
    }


def config_changes(a_jobs: list[Job], b_jobs: list[Job]) -> list[ConfigChange]:
    changes = []
    for group in COMPARED_GROUPS:
        a, b = _group_dumps(a_jobs, group), _group_dumps(b_jobs, group)
        fields: dict[str, dict[str, Any]] = {}
        for name in sorted(set(a) & set(b)):
            fields.update(_field_changes(name, a[name], b[name]))
        if len(a) == 1 and len(b) == 1 and set(a) != set(b):
            (name_a, value_a), (name_b, value_b) = next(iter(a.items())), next(iter(b.items()))
            fields.update(_field_changes(f"{name_a}→{name_b}", value_a, value_b))
        if set(a) != set(b) or fields:
            changes.append(ConfigChange(group=group, a=sorted(a), b=sorted(b), fields=fields))
    return changes


Unit = tuple[str, int]  # (scenario id, trial): what a verdict is about


def _rows_by_cell(jobs: list[Job]) -> dict[tuple[str, str], dict[Unit, ResultRow]]:
    labels = job_labels(jobs)
    cells: dict[tuple[str, str], dict[Unit, ResultRow]] = {}
    for job in sorted(jobs, key=lambda j: j.finished_at):  # later finished jobs win duplicates
        if job.finished:
            cells.setdefault(labels[job.path], {}).update({(row.scenario_id, row.trial): row for row in job.rows})
    return cells


def _pair_agents(
    a_cells: dict[tuple[str, str], dict[Unit, ResultRow]], b_cells: dict[tuple[str, str], dict[Unit, ResultRow]]
) -> tuple[dict[tuple[str, str], dict[Unit, ResultRow]], dict[tuple[str, str], dict[Unit, ResultRow]], list[str]]:
    """When A holds one agent and B another, their cells are paired by judge (agent shown as "A → B"), so the
    same scenarios are compared verdict by verdict; with several agents a side, a note points to compare."""
    a_agents, b_agents = {agent for agent, _ in a_cells}, {agent for agent, _ in b_cells}
    if a_agents == b_agents or a_agents & b_agents or not a_agents or not b_agents:
        return a_cells, b_cells, []
    if len(a_agents) == 1 and len(b_agents) == 1:
        (a_agent,), (b_agent,) = a_agents, b_agents
        paired = f"{a_agent} → {b_agent}"
        note = (
            f"A and B hold different agents ({a_agent}, {b_agent}): cells are paired by judge and scenario. For a "
            f"verdict per pair across judges, a bootstrap CI and a ranking, run `skillbench compare A B`"
        )
        return (
            {(paired, judge): rows for (_, judge), rows in a_cells.items()},
            {(paired, judge): rows for (_, judge), rows in b_cells.items()},
            [note],
        )
    return a_cells, b_cells, [
        "A and B hold different agents, so no cell is shared: compare agents on the same scenarios with "
        "`skillbench compare A B`"
    ]


def explain(a: ResultRow, b: ResultRow) -> list[str]:
    """Why the verdict of a scenario differs between two rows: the checks, scores and reasons that changed."""
    why: list[str] = []
    if a.rollout_key != b.rollout_key:
        why.append(
            f"different transcript (rollout {a.rollout_key} → {b.rollout_key}; ended {a.termination} → {b.termination})"
        )
    checks_a = {c.name: c for c in a.rule_checks}
    checks_b = {c.name: c for c in b.rule_checks}
    for name in sorted(set(checks_a) | set(checks_b)):
        ca, cb = checks_a.get(name), checks_b.get(name)
        if ca is None or cb is None or ca.passed != cb.passed:
            state = {True: "passed", False: "FAILED", None: "absent"}
            kind = " (hard)" if (cb or ca) and (cb or ca).hard else ""  # type: ignore[union-attr]
            why.append(
                f"rule check {name}{kind}: {state[ca.passed if ca else None]} → {state[cb.passed if cb else None]}"
            )
    if a.scores is not None and b.scores is not None:
        if a.scores.task_completion != b.scores.task_completion:
            why.append(f"task_completion: {a.scores.task_completion} → {b.scores.task_completion}")
        for dimension in DIMENSION_NAMES:
            va, vb = getattr(a.scores, dimension), getattr(b.scores, dimension)
            if va != vb:
                why.append(f"{dimension}: {va} → {vb}")
        if a.scores.hallucinated_action != b.scores.hallucinated_action:
            why.append(
                f"hallucinated_action: {a.scores.hallucinated_action} → {b.scores.hallucinated_action}"
            )
    if a.judge_error != b.judge_error:
        why.append(f"judge error: {a.judge_error or 'none'} → {b.judge_error or 'none'}")
    if a.infra_error != b.infra_error:
        why.append(f"infra error: {a.infra_error or 'none'} → {b.infra_error or 'none'}")
    if a.pass_rule != b.pass_rule:
        why.append(f"pass rule: {a.pass_rule} → {b.pass_rule}")
    added = [r for r in b.fail_reasons if r not in a.fail_reasons]
    removed = [r for r in a.fail_reasons if r not in b.fail_reasons]
    if added:
        why.append("B fails on: " + "; ".join(added))
    if removed:
        why.append("A failed on (not in B): " + "; ".join(removed))
    if not why:
        why.append(
            "no stored check, score or reason differs: the pass-rule configs differ (see config changes)"
        )
    return why


def diff_jobs(a_jobs: list[Job], b_jobs: list[Job], a_paths: list[str], b_paths: list[str]) -> RunDiff:
    changes = config_changes(a_jobs, b_jobs)
    a_cells, b_cells, pairing = _pair_agents(_rows_by_cell(a_jobs), _rows_by_cell(b_jobs))
    cells: list[CellDelta] = []
    flips: list[Flip] = []
    availability: list[Flip] = []
    for key in sorted(set(a_cells) | set(b_cells)):
        agent, judge = key
        if key not in b_cells or key not in a_cells:
            rows = a_cells.get(key) or b_cells.get(key) or {}
            rate = _rate(list(rows.values()))
            presence = "only_a" if key in a_cells else "only_b"
            cells.append(
                CellDelta(
                    agent=agent,
                    judge=judge,
                    presence=presence,
                    pass_rate_a=rate if presence == "only_a" else None,
                    pass_rate_b=rate if presence == "only_b" else None,
                )
            )
            continue
        a_rows, b_rows = a_cells[key], b_cells[key]
        b_count = c_count = appeared = lost = shared = 0
        for unit in sorted(set(a_rows) | set(b_rows)):
            ra, rb = a_rows.get(unit), b_rows.get(unit)
            scenario, trial = unit
            pa = ra.passed if ra is not None else None
            pb = rb.passed if rb is not None else None
            if pa is not None and pb is not None:
                shared += 1
                if pa != pb:
                    b_count += pa and not pb
                    c_count += pb and not pa
                    flips.append(
                        Flip(agent=agent, judge=judge, scenario_id=scenario, trial=trial, a=pa, b=pb, why=explain(ra, rb))
                    )  # type: ignore[arg-type]
            elif (pa is None) != (pb is None):
                appeared += pa is None
                lost += pb is None
                why = (
                    explain(ra, rb)
                    if ra is not None and rb is not None
                    else ["scenario only in " + ("B" if ra is None else "A")]
                )
                availability.append(
                    Flip(agent=agent, judge=judge, scenario_id=scenario, trial=trial, a=pa, b=pb, why=why)
                )
        rate_a, rate_b = _rate(list(a_rows.values())), _rate(list(b_rows.values()))
        cells.append(
            CellDelta(
                agent=agent,
                judge=judge,
                presence="both",
                pass_rate_a=rate_a,
                pass_rate_b=rate_b,
                delta=None if rate_a is None or rate_b is None else rate_b - rate_a,
                shared=shared,
                a_pass_b_fail=b_count,
                a_fail_b_pass=c_count,
                mcnemar_p=stats.mcnemar_exact(b_count, c_count) if shared else None,
                verdicts_appeared=appeared,
                verdicts_lost=lost,
            )
        )
    identical = not changes and not flips and not availability and all(c.presence == "both" for c in cells)
    return RunDiff(
        a=a_paths,
        b=b_paths,
        config_changes=changes,
        cells=cells,
        flips=flips,
        availability=availability,
        identical=identical,
        warnings=[
            *version_warnings(a_jobs, b_jobs), *input_warnings(a_jobs, "A"), *input_warnings(b_jobs, "B"), *pairing
        ],
    )


def _rate(rows: list[ResultRow]) -> float | None:
    scored = [r.passed for r in rows if r.passed is not None]
    return sum(scored) / len(scored) if scored else None


def diff_runs(a: Path | str | list[Path | str], b: Path | str | list[Path | str]) -> RunDiff:
    """Compare run/sweep folder(s) A with B."""
    a_list = a if isinstance(a, list) else [a]
    b_list = b if isinstance(b, list) else [b]
    return diff_jobs(load_jobs(a_list), load_jobs(b_list), [str(p) for p in a_list], [str(p) for p in b_list])


def _unit(flip: Flip) -> str:
    return f"{flip.scenario_id} (trial {flip.trial})" if flip.trial else flip.scenario_id


def diff_markdown(diff: RunDiff, max_flips: int = 50) -> str:
    lines = [f"# skillbench diff\n\nA: {', '.join(diff.a)}  \nB: {', '.join(diff.b)}", ""]
    lines += [f"**Warning**: {md_escape(warning)}." for warning in diff.warnings] + ([""] if diff.warnings else [])
    if diff.identical:
        lines += ["**No changes**: same configs, same cells, same verdicts.", ""]
    lines.append("## Config changes\n")
    if not diff.config_changes:
        lines.append(
            "None (agent, judge, user_sim, mock, pass_rule, benchmark and run settings are the same)."
        )
    for change in diff.config_changes:
        names = f"{', '.join(change.a) or '—'} → {', '.join(change.b) or '—'}"
        lines.append(f"- **{change.group}**: {names}")
        for field, values in change.fields.items():
            lines.append(f"  - `{field}`: {json.dumps(values['a'])} → {json.dumps(values['b'])}")
    lines += ["", "## Pass rate per cell (B − A)", ""]
    rows = [
        [
            c.agent,
            c.judge,
            c.presence,
            pct(c.pass_rate_a),
            pct(c.pass_rate_b),
            "—" if c.delta is None else f"{c.delta * 100:+.1f}",
            c.shared,
            c.a_pass_b_fail,
            c.a_fail_b_pass,
            "—" if c.mcnemar_p is None else f"{c.mcnemar_p:.3g}",
        ]
        for c in diff.cells
    ]
    headers = [
        "Agent",
        "Judge",
        "In",
        "A %",
        "B %",
        "Δ points",
        "Shared",
        "A pass→B fail",
        "A fail→B pass",
        "McNemar p",
    ]
    lines.append(markdown_table([[str(v) for v in r] for r in rows], headers))
    lines += ["", f"## Flipped verdicts ({len(diff.flips)})", ""]
    for flip in diff.flips[:max_flips]:
        verdict = f"{'pass' if flip.a else 'fail'} → {'pass' if flip.b else 'fail'}"
        lines.append(md_escape(f"- {flip.agent} × {flip.judge} · {_unit(flip)}: {verdict}; " + "; ".join(flip.why)))
    if len(diff.flips) > max_flips:
        lines.append(f"- … {len(diff.flips) - max_flips} more in the JSON file")
    if diff.availability:
        lines += ["", f"## Verdicts gained or lost ({len(diff.availability)})", ""]
        for flip in diff.availability[:max_flips]:
            state = {True: "pass", False: "fail", None: "no verdict"}
            lines.append(md_escape(
                f"- {flip.agent} × {flip.judge} · {_unit(flip)}: {state[flip.a]} → {state[flip.b]}; "
                + "; ".join(flip.why)
            ))
    return "\n".join(lines) + "\n"
