"""End to end: a benchmark built from the MINED workflows against one built from the GOLD workflows.

Both go through the same skill writer, filter, scenario writer and selection (the mining run's ``skills``
and ``scenarios`` stages, run on a ``04_workflows.jsonl`` written here), then through the engine with
the same agents, user simulator and judge. What differs is only the workflow each task's skill is
written from, so the pass rates side by side say whether the mined benchmark tells good agents from
poor ones as the gold one does (careful > sloppy > reckless).

Each task gets one skill in each benchmark, with the same id (``e2e_<task>``) and topic words (from the
task name), and both benchmarks have the same name and selection seed: where a mined workflow equals
the gold one, the two skills, their scenarios and hence the stored conversations are identical, so
every difference in the table comes from the workflows alone.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from hydra import compose, initialize_config_module
from pydantic import BaseModel, Field

from skillbench.config import validate_config
from skillbench.core.errors import ConfigError
from skillbench.core.jsonl import json_lines
from skillbench.engine.job import run_job_async
from skillbench.engine.results import RESULTS_FILE, ResultRow
from skillbench.mining.config import load_config
from skillbench.mining.pipeline import FILES, MiningRun
from skillbench.mining.records import Workflow
from skillbench.mining.represent import collapse, similarity
from skillbench.store import write_json_atomic

log = logging.getLogger("skillbench.mining")
AGENTS = ("sim_careful", "sim_sloppy", "sim_reckless")
SIDES = ("gold", "mined")
NAME = "e2e"  # both benchmarks' name: skill ids and the selection seed do not depend on the side


class TaskRates(BaseModel):
    """One task's pass rates per agent on both benchmarks."""

    task: str = Field(description="The gold task (call purpose).")
    gold: dict[str, float | None] = Field(description="Pass rate per agent on the gold-workflow skill (None: no skill).")
    mined: dict[str, float | None] = Field(description="Pass rate per agent on the mined-workflow skill (None: no skill).")
    scenarios: dict[str, int] = Field(description="Scenarios run per side (gold, mined).")
    dropped: dict[str, str] = Field(default_factory=dict, description="Why a side has no skill for this task.")
    similarity: float = Field(description="Normalised edit similarity of the mined workflow to the gold one (1: the same).")


class Comparison(BaseModel):
    """The end-to-end comparison: per task and overall pass rates, and whether each side separates the agents."""

    agents: list[str] = Field(description="Agents in the expected order, best first.")
    judge: str = Field(description="The judge every job used.")
    user_sim: str = Field(description="The user simulator every job used.")
    tasks: list[TaskRates] = Field(description="Per task, in name order.")
    overall: dict[str, dict[str, float | None]] = Field(description="Side → agent → pass rate over all its scenarios.")
    separates: dict[str, bool] = Field(description="Side → whether the overall pass rates are strictly in agent order.")
    orders_agree: int = Field(description="Tasks whose agent ordering on the mined side equals the gold side's.")


def order(rates: Mapping[str, float | None], agents: Sequence[str]) -> str:
    """'careful>sloppy>reckless' style, with '=' for ties and '?' when a rate is missing."""
    if any(rates.get(a) is None for a in agents):
        return "?"
    ranked = sorted(agents, key=lambda a: -float(rates[a] or 0.0))
    text = ranked[0].removeprefix("sim_")
    for before, after in itertools.pairwise(ranked):
        text += ("=" if rates[before] == rates[after] else ">") + after.removeprefix("sim_")
    return text


def strictly_ordered(rates: Mapping[str, float | None], agents: Sequence[str]) -> bool:
    values = [rates.get(a) for a in agents]
    return all(v is not None for v in values) and all(float(x) > float(y) for x, y in itertools.pairwise(values))  # type: ignore[arg-type]


def build_side(folder: Path, name: str, workflows: Sequence[Workflow], *, per_task: int, seed: int) -> tuple[dict[str, str], bool]:
    """Write ``workflows`` as the represent stage's file, run the skills and scenarios stages.

    Returns task → drop reason, and whether a benchmark was written (no skill: none, and no stale one is left).
    """
    work = folder / "_mining"
    work.mkdir(parents=True, exist_ok=True)
    (work / FILES["represent"]).write_text("".join(w.model_dump_json() + "\n" for w in workflows), encoding="utf-8")
    cfg = load_config([f"out={folder}", f"benchmark_name={name}", "stage=skills", "filter.min_support=1",
                       f"selection.per_skill={per_task}", "selection.independent=true", f"scenario_writer.seed={seed}"])
    run = MiningRun(cfg)
    written = run.skills()
    drops = {w.cluster_id: w.dropped for w in written if w.dropped}
    if not any(w.spec for w in written):
        (folder / "benchmark.yaml").unlink(missing_ok=True)  # a kept --work folder may hold an earlier run's
        return drops, False
    run.scenarios()
    return drops, True


def run_config(agent: str, source: Path, store: Path, judge: str, user_sim: str, seed: int):  # type: ignore[no-untyped-def]
    """The engine's config for one job, composed by Hydra from the package's configs like `python -m skillbench`."""
    overrides = [f"agent={agent}", f"judge={judge}", f"user_sim={user_sim}", f"benchmark.source={source}",
                 f"store.root={store}", f"run.seed={seed}", "run.progress_interval_s=3600"]
    try:
        with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
            cfg = compose("config", overrides=overrides)
    except Exception as exc:  # Hydra's own errors (unknown option ...): one line
        raise ConfigError(f"cannot compose the engine config: {str(exc).splitlines()[0]}. "
                          f"Fix: name agents, judge and user simulator that exist in skillbench/conf/.") from None
    return validate_config(cfg)


def check_names(agents: Sequence[str], judge: str, user_sim: str) -> None:
    """ConfigError (one line) for an agent, judge or user simulator with no config, before any work starts."""
    if not agents:
        raise ConfigError("no agents given. Fix: e.g. --e2e-agents sim_careful,sim_sloppy,sim_reckless.")
    for agent in agents:
        run_config(agent, Path("unbuilt"), Path("unused-store"), judge, user_sim, 0)


def pass_rates(rows: Sequence[ResultRow], prefix: str) -> tuple[dict[str, float | None], dict[str, int]]:
    """Task → pass rate over its scored rows, and task → rows; skill ids are ``<prefix>_<task>``."""
    passed: dict[str, list[bool]] = defaultdict(list)
    counted: dict[str, int] = defaultdict(int)
    for row in rows:
        task = row.skill_id.removeprefix(f"{prefix}_")
        counted[task] += 1
        if row.passed is not None:
            passed[task].append(row.passed)
    return {t: (sum(passed[t]) / len(passed[t]) if passed[t] else None) for t in counted}, dict(counted)


def compare(mined: Mapping[str, Workflow], gold: Mapping[str, Workflow], work: Path, *, per_task: int = 4,
            agents: Sequence[str] = AGENTS, judge: str = "sim_balanced", user_sim: str = "sim_user",
            seed: int = 0, say: Callable[[str], None] | None = None) -> Comparison:
    """MiningRun both benchmarks under ``work`` and run every agent on each; the comparison is also written as JSON."""
    tasks = sorted(set(mined) & set(gold))
    if not tasks:
        raise ConfigError("no task has both a mined and a gold workflow. Fix: check the task labels of the data.")
    # Support only orders and filters skills (and is quoted in the capability); the gold's on both sides
    # keeps an identical workflow an identical skill.
    same = {t: {"cluster_id": t, "group": t, "support": gold[t].support} for t in tasks}
    sides = {"gold": [gold[t].model_copy(update=same[t]) for t in tasks],
             "mined": [mined[t].model_copy(update=same[t]) for t in tasks]}
    drops: dict[str, dict[str, str]] = {}
    rates: dict[str, dict[str, dict[str, float | None]]] = {side: {} for side in SIDES}  # side → agent → task → rate
    rows_per_task: dict[str, dict[str, int]] = {}
    overall: dict[str, dict[str, float | None]] = {side: {} for side in SIDES}
    # Every job's config first: a wrong agent, judge or user simulator name stops before anything is built.
    configs = {(side, agent): run_config(agent, work / side, work / "store", judge, user_sim, seed)
               for side in SIDES for agent in agents}
    for side in SIDES:
        drops[side], built = build_side(work / side, NAME, sides[side], per_task=per_task, seed=seed)
        if not built:
            overall[side] = {a: None for a in agents}
            continue
        for agent in agents:
            cfg = configs[(side, agent)]
            job = work / "jobs" / f"{side}_{agent}"
            if say:
                say(f"e2e: {side} benchmark, agent {agent} -> {job}")
            asyncio.run(run_job_async(cfg, job, label=f"{side} {agent}: "))
            rows = [ResultRow.model_validate_json(line) for line in json_lines((job / RESULTS_FILE).read_bytes()) if line.strip()]
            rates[side][agent], rows_per_task[side] = pass_rates(rows, NAME)
            scored = [r.passed for r in rows if r.passed is not None]
            overall[side][agent] = sum(scored) / len(scored) if scored else None
    table = []
    for task in tasks:
        table.append(TaskRates(
            task=task, gold={a: rates["gold"].get(a, {}).get(task) for a in agents},
            mined={a: rates["mined"].get(a, {}).get(task) for a in agents},
            scenarios={side: rows_per_task.get(side, {}).get(task, 0) for side in SIDES},
            dropped={side: drops[side][task] for side in SIDES if task in drops[side]},
            similarity=round(similarity(collapse(mined[task].actions), collapse(gold[task].actions)), 4)))
    result = Comparison(
        agents=list(agents), judge=judge, user_sim=user_sim, tasks=table, overall=overall,
        separates={side: strictly_ordered(overall[side], agents) for side in SIDES},
        orders_agree=sum(order(t.gold, agents) == order(t.mined, agents) != "?" for t in table))
    write_json_atomic(work / "comparison.json", result.model_dump(mode="json"))
    return result


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def lines(result: Comparison) -> list[str]:
    """What `skillbench mine measure` prints: separation lines, overall rates, then the per-task table."""
    names = [a.removeprefix("sim_") for a in result.agents]
    wanted = ">".join(names)
    out = [f"separation_{side} {wanted} {'yes' if result.separates[side] else 'no'}" for side in SIDES]
    for side in SIDES:
        out.append(f"pass_rate_{side} " + " ".join(f"{n}={_rate(result.overall[side].get(a))}"
                                                   for n, a in zip(names, result.agents, strict=True)))
    out.append(f"task_orders_agree {result.orders_agree}/{len(result.tasks)}")
    mean = sum(t.similarity for t in result.tasks) / len(result.tasks)
    out.append(f"workflow_similarity_mined_gold {mean:.4f}")
    header = ["task", *(f"gold:{n}" for n in names), *(f"mined:{n}" for n in names), "gold order", "mined order", "n g/m",
              "workflow sim"]
    out.append("\t".join(header))
    for t in result.tasks:
        cells = [t.task, *(_rate(t.gold[a]) for a in result.agents), *(_rate(t.mined[a]) for a in result.agents),
                 order(t.gold, result.agents), order(t.mined, result.agents), f"{t.scenarios['gold']}/{t.scenarios['mined']}",
                 f"{t.similarity:.2f}"]
        if t.dropped:
            cells.append("dropped: " + "; ".join(f"{s}: {r}" for s, r in t.dropped.items()))
        out.append("\t".join(cells))
    return out
