"""Compute a report from loaded jobs: cells, Table 1, rubric, agreement, strictness, ranking and CIs
are cached properties of a ReportContext, each computed on first use."""

from __future__ import annotations

import itertools
import warnings
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict, Unpack

import numpy as np
import pandas as pd

from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.engine.results import HUMAN_JUDGE
from skillbench.report import stats
from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_SEED
from skillbench.report.frame import job_labels, jobs_frame
from skillbench.report.jobs import Job, ReportError, load_jobs, running_lines
from skillbench.report.model import (
    AdjacentDifference,
    BootstrapInfo,
    Cell,
    GroupRate,
    HumanAgreement,
    JobInfo,
    JudgePair,
    JudgeStrictness,
    ModelRow,
    ModelStrictness,
    PanelAgreement,
    RankingPair,
    RankingStability,
    Report,
    RubricRow,
    TrialRate,
)

DEFAULT_LEVEL = 0.95
_TIE = 1e-12


class _CellTallies(TypedDict):
    """Per agent × judge cell (in ``_cell_parts`` order): counts of the frame's rows."""

    scenarios: np.ndarray
    scored: np.ndarray
    passed: np.ndarray
    judge_errors: np.ndarray
    infra_errors: np.ndarray
    model_errors: np.ndarray
    redone: np.ndarray


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice is a legitimate "no data" here
        return np.nanmean(values, axis=axis)


def _share(values: pd.Series) -> float | None:
    """Share of True among known values; NA (judge or infra error) is neither a pass nor a fail."""
    known = values.dropna()
    return float(known.astype(bool).mean()) if len(known) else None


def unit_ids(frame: pd.DataFrame) -> pd.Series:
    """One id per transcript: agent label + scenario + rollout key (a missing key takes its group's key),
    joined by "\\x1f", so ``anchor("tr", unit_id)`` names the transcript in the HTML page."""
    first = frame.groupby(["agent_label", "scenario_id", "trial"])["rollout_key"].transform("first")
    keys = frame["rollout_key"].fillna(first).fillna("")
    return frame["agent_label"] + "\x1f" + frame["scenario_id"] + "\x1f" + keys.astype(str)


class _Link:
    """Report → the context that built it. Not part of the report's value: equal to any link (and
    to None), and dropped by copies and pickles, which must not drag the row frame along."""

    def __init__(self, context: ReportContext | None = None) -> None:
        self.context = context

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, _Link)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[type[_Link], tuple[()]]:
        return _Link, ()


# Report fields that are context parts of the same name (how a report read back from JSON is rendered).
_REPORT_PARTS: tuple[str, ...] = (
    "simulated", "pass_rules", "agents", "judges", "cells", "table1", "table2", "table3", "panel",
    "strictness_models", "strictness_judges", "ranking", "adjacent", "bootstrap", "counts", "notes",
    "breakdowns", "human_agreement", "trials",
)  # fmt: skip


class RowsUnavailable(ReportError):
    """A report read back from report.json whose job folders are gone: parts that need rows cannot be computed."""


class ReportContext:
    """The inputs of one report (jobs, bootstrap settings) and every part computed from them.

    Each part is a cached property: computed once, on first use, so a table asks for what it needs and
    parts nobody asks for are never computed (agreement needs no bootstrap; a path table only the frame).

    The one rule of a report table, built-in or plug-in: compute from this context only (``jobs``, ``frame``
    and the parts), never from a ``Report``'s fields. A report read back from report.json then renders the
    same Markdown: its stored parts are reused and ``jobs``/``frame`` are re-read, on first use, from the job
    folders report.json lists. When those folders are gone they raise :class:`RowsUnavailable` and the
    tables that need them are left out (``all_tables``); the others still render.
    """

    def __init__(
        self,
        jobs: list[Job],
        *,
        title: str = "skillbench report",
        sources: list[str] | None = None,
        draws: int = DEFAULT_DRAWS,
        seed: int = DEFAULT_SEED,
        level: float = DEFAULT_LEVEL,
    ) -> None:
        if not jobs:
            raise ReportError("no job folders to report on")
        self._jobs: list[Job] | None = jobs
        self._job_paths: list[str] = []
        self.title = title
        self.sources = sources or sorted({str(j.path.parent) for j in jobs})
        self.draws, self.seed, self.level = draws, seed, level

    @classmethod
    def of(
        cls, report: Report, frame: pd.DataFrame | None = None, jobs: list[Job] | None = None
    ) -> ReportContext:
        """The context that built ``report``, or (a report read back from JSON) one holding its parts."""
        link = report._context
        context = link.context if isinstance(link, _Link) else None
        if context is not None and context.__dict__.get("report") is report:
            return context
        context = cls.__new__(cls)
        context._jobs = jobs or None  # None: re-read from the folders report.json lists, if a table asks
        context._job_paths = [info.path for info in report.jobs]
        context.title, context.sources = report.title, report.sources
        context.draws, context.seed, context.level = (
            report.bootstrap.draws,
            report.bootstrap.seed,
            report.bootstrap.level,
        )
        # cached_property reads the instance dict first: these parts are known, never recomputed.
        context.__dict__.update({name: getattr(report, name) for name in _REPORT_PARTS})
        context.__dict__.update(job_infos=report.jobs, report=report)
        if frame is not None:
            context.__dict__["frame"] = frame
        return context

    # Inputs shared by every part.

    @property
    def jobs(self) -> list[Job]:
        """The loaded jobs; for a report read back from report.json, re-read from the folders it lists."""
        if self._jobs is None:
            gone = [path for path in self._job_paths if not Path(path).is_dir()]
            if gone or not self._job_paths:
                raise RowsUnavailable(
                    f"this report was read back from report.json and its job folders are gone ({', '.join(gone[:3]) or 'none listed'}"
                    f"{', ...' if len(gone) > 3 else ''}); parts that need rows cannot be computed. Fix: build the report "
                    f"from the job folders (skillbench report DIR)"
                )
            self._jobs = load_jobs(self._job_paths)
        return self._jobs

    @cached_property
    def frame(self) -> pd.DataFrame:
        """One row per scenario × agent × judge of the finished jobs (duplicates dropped)."""
        return jobs_frame(self.jobs, labels=self.labels)

    @cached_property
    def labels(self) -> dict[Path, tuple[str, str]]:
        return job_labels(self.jobs)

    @cached_property
    def judges(self) -> list[str]:
        return sorted({self.labels[j.path][1] for j in self.jobs})

    @cached_property
    def panel_judges(self) -> list[str]:
        """Judge labels that are panel columns (votes of judges, skillbench/report/panel_verdicts.py), not judges."""
        from skillbench.report.panel_verdicts import (
            panel_labels,  # panel registers a table: imports this module
        )

        return sorted(panel_labels(self.jobs, self.labels)) if self.jobs else []

    @cached_property
    def human_judges(self) -> list[str]:
        """Judge labels of people's labels (``skillbench import``): the reference of the human-agreement tables."""
        return sorted({self.labels[j.path][1] for j in self.jobs if j.judge == HUMAN_JUDGE}) if self.jobs else []

    @cached_property
    def member_judges(self) -> list[str]:
        """The judges proper: what the mean over judges, agreement, strictness and ranking stability use. People's
        labels are left out when model judges are there too (they are what the judges are measured against)."""
        judges = [judge for judge in self.judges if judge not in self.panel_judges]
        return [judge for judge in judges if judge not in self.human_judges] or judges

    @cached_property
    def agents_seen(self) -> list[str]:
        """Every agent label, alphabetical (``agents`` is the Table 1 order)."""
        return sorted({self.labels[j.path][0] for j in self.jobs})

    @cached_property
    def scenario_ids(self) -> list[str]:
        return sorted(self.frame["scenario_id"].unique()) if not self.frame.empty else []

    @cached_property
    def weights(self) -> np.ndarray:
        """One set of bootstrap draws over scenarios for every statistic, so differences are paired."""
        return stats.bootstrap_weights(len(self.scenario_ids), self.draws, self.seed)

    @cached_property
    def _position(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.scenario_ids)}

    def _counts(self, rows: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
        """Per scenario: how many rows of ``column`` are True, and how many are known (NA left out)."""
        num, den = np.zeros(len(self.scenario_ids)), np.zeros(len(self.scenario_ids))
        valid = rows[rows[column].notna()]
        index = valid["scenario_id"].map(self._position).to_numpy(dtype=int)
        np.add.at(den, index, 1.0)
        np.add.at(num, index, valid[column].astype(bool).to_numpy(dtype=float))
        return num, den

    def rate_draws(self, rows: pd.DataFrame, column: str) -> np.ndarray:
        """Bootstrap draws of the share of True in ``column`` (NA rows left out), resampling scenarios."""
        return stats.ratio_draws(self.weights, *self._counts(rows, column))

    def _rate_draws_many(self, parts: list[tuple[pd.DataFrame, str]]) -> list[np.ndarray]:
        """``rate_draws`` of many (rows, column) pairs in one matrix product (the same numbers: the
        sums are integer counts, exact in float64 in any order)."""
        if not parts:
            return []
        counts = [self._counts(rows, column) for rows, column in parts]
        numerators = np.column_stack([num for num, _ in counts])
        denominators = np.column_stack([den for _, den in counts])
        return list(stats.ratio_draws_many(self.weights, numerators, denominators))

    # Cells: coverage, rate and CI.

    @cached_property
    def _cell_parts(self) -> tuple[list[Cell], dict[tuple[str, str], np.ndarray]]:
        frame = self.frame
        keys = list(itertools.product(self.agents_seen, self.judges))
        # Each row's cell and scenario as integer codes: every count below is one bincount over them.
        cell_of = {key: i for i, key in enumerate(keys)}
        labels = zip(frame["agent_label"].tolist(), frame["judge_label"].tolist(), strict=True)
        code = np.array([cell_of[key] for key in labels], dtype=int)
        position = frame["scenario_id"].map(self._position).to_numpy(dtype=int)
        known = frame["passed"].notna().to_numpy(dtype=bool)
        passed = frame["passed"].fillna(False).to_numpy(dtype=bool)

        def per_cell(rows: np.ndarray | None = None) -> np.ndarray:
            return np.bincount(code, weights=None if rows is None else rows.astype(float), minlength=len(keys))

        tallies = _CellTallies(
            scenarios=per_cell(),
            scored=per_cell(known),
            passed=per_cell(passed),
            judge_errors=per_cell((frame["status"] == "judge_error").to_numpy(dtype=bool)),
            infra_errors=per_cell((frame["status"] == "infra_error").to_numpy(dtype=bool)),
            model_errors=per_cell((frame["termination"] == "model_error").to_numpy(dtype=bool)),
            redone=per_cell((frame["abandoned_attempts"].fillna(0) > 0).to_numpy(dtype=bool)),
        )
        cells = [self._cell(agent, judge, tallies, i) for i, (agent, judge) in enumerate(keys)]
        errors = frame[frame["status"] == "judge_error"]
        if not errors.empty:  # why each cell's judge gave no verdict (the judge_errors table)
            reasons = errors["judge_error_reason"].fillna("other")
            for (agent, judge, reason), count in reasons.groupby(
                [errors["agent_label"], errors["judge_label"], reasons]
            ).size().items():
                cells[cell_of[(agent, judge)]].judge_error_reasons[str(reason)] = int(count)
        # Every cell's bootstrap in one matrix product (one per cell was most of the report's CPU): per
        # scenario and scored cell, how many verdicts are known and how many of them pass.
        scored = [i for i, cell in enumerate(cells) if cell.pass_rate is not None]
        column = np.full(len(keys), -1)
        column[scored] = np.arange(len(scored))
        take = known & (column[code] >= 0)
        at = (position[take], column[code[take]])
        numerators, denominators = np.zeros((2, len(self.scenario_ids), len(scored)))
        np.add.at(denominators, at, 1.0)
        np.add.at(numerators, at, passed[take].astype(float))
        draws: dict[tuple[str, str], np.ndarray] = {}
        for i, cell_draws in zip(scored, stats.ratio_draws_many(self.weights, numerators, denominators), strict=True):
            cells[i].ci_low, cells[i].ci_high = stats.percentile_ci(cell_draws, self.level)
            draws[keys[i]] = cell_draws
        return cells, draws

    def _cell(self, agent: str, judge: str, tallies: _CellTallies, i: int) -> Cell:
        """The cell's counts and rate (its CI is filled in by ``_cell_parts``); ``i``: its column of ``tallies``."""
        cell_jobs = [j for j in self.jobs if self.labels[j.path] == (agent, judge)]
        paths = [str(j.path) for j in cell_jobs]
        finished = [j for j in cell_jobs if j.finished]
        if tallies["scenarios"][i] and finished:
            scored, passed = int(tallies["scored"][i]), int(tallies["passed"][i])
            rate = passed / scored if scored else None
            cell = Cell(
                agent=agent,
                judge=judge,
                status="ok" if rate is not None else "no_verdicts",
                scenarios=int(tallies["scenarios"][i]),
                scored=scored,
                passed=passed,
                judge_errors=int(tallies["judge_errors"][i]),
                infra_errors=int(tallies["infra_errors"][i]),
                model_errors=int(tallies["model_errors"][i]),
                redone_conversations=int(tallies["redone"][i]),
                pass_rate=rate,
                jobs=paths,
            )
            if len(cell_jobs) > len(finished):
                cell.note = f"{len(cell_jobs) - len(finished)} other job(s) of this cell did not finish"
            return cell
        if finished:
            return Cell(
                agent=agent,
                judge=judge,
                status="no_verdicts",
                jobs=paths,
                note="the job finished with no result rows",
            )
        if cell_jobs:
            status = "unreadable" if any(j.status == "unreadable" for j in cell_jobs) else "unfinished"
            kept = sum(len(j.rows) for j in cell_jobs)
            running = next((j.running for j in cell_jobs if j.running), None)
            note = (
                f"still running ({running})" if running
                else "job did not finish (no summary.json)" if status == "unfinished"
                else "summary.json is invalid"
            )
            note += (f"; {kept} whole row(s) kept, left out of the rates until it finishes"
                     + ("" if running else " (rerun the same command: finished work is reused)"))
            hint = next((j.error_hint for j in cell_jobs if j.error_hint and not j.running), None)
            note += f"; reason: {hint}" if hint else ""
            return Cell(agent=agent, judge=judge, status=status, jobs=paths, note=note)
        return Cell(agent=agent, judge=judge, status="missing", note="no job folder for this agent × judge")

    @cached_property
    def cells(self) -> list[Cell]:
        """Every agent × judge cell, agents alphabetical, then judges."""
        return self._cell_parts[0]

    @cached_property
    def _cell_by(self) -> dict[tuple[str, str], Cell]:
        return {(c.agent, c.judge): c for c in self.cells}

    def cell(self, agent: str, judge: str) -> Cell:
        return self._cell_by[(agent, judge)]

    # Table 1 and the differences between adjacent agents.

    @cached_property
    def mean_draws(self) -> dict[str, np.ndarray]:
        """Per agent: bootstrap draws of the mean over judges (paired across agents)."""
        cell_draws = self._cell_parts[1]
        means: dict[str, np.ndarray] = {}
        for agent in self.agents_seen:
            per_judge = [cell_draws[(agent, j)] for j in self.member_judges if (agent, j) in cell_draws]
            if per_judge:
                means[agent] = _nanmean(np.vstack(per_judge), axis=0)
        return means

    def _model_row(self, agent: str, agent_rows: pd.DataFrame) -> tuple[ModelRow, pd.DataFrame]:
        """The agent's Table 1 row without its rule CI, and the rollouts that CI is drawn from."""
        rates = {judge: self.cell(agent, judge).pass_rate for judge in self.judges}
        present = [rates[judge] for judge in self.member_judges if rates[judge] is not None]  # panels: not a judge
        # The rule verdict belongs to the rollout, not the judge: count each scenario (and trial) once per agent.
        rollouts = agent_rows.sort_values("rule_passed", na_position="last").drop_duplicates(["scenario_id", "trial"])
        rule_rate = _share(rollouts["rule_passed"])
        row = ModelRow(
            rank=0,
            agent=agent,
            simulated=bool(agent_rows["simulated"].any()) if not agent_rows.empty else False,
            pass_rates=rates,
            rule_pass_rate=rule_rate,
            rule_rollouts=int(rollouts["rule_passed"].notna().sum()),
            mean_pass_rate=float(np.mean(present)) if present else None,
            judges_in_mean=len(present),
        )
        if agent in self.mean_draws:
            row.mean_ci_low, row.mean_ci_high = stats.percentile_ci(self.mean_draws[agent], self.level)
        return row, rollouts

    @cached_property
    def _model_rows(self) -> dict[str, ModelRow]:
        """Table 1 rows by agent, in Table 1 order (mean over judges, best first), ranked."""
        frame = self.frame[["agent_label", "scenario_id", "trial", "rule_passed", "simulated"]]
        by_agent = dict(list(frame.groupby("agent_label"))) if not frame.empty else {}
        parts = {
            agent: self._model_row(agent, by_agent.get(agent, frame.iloc[0:0])) for agent in self.agents_seen
        }
        rows = {agent: row for agent, (row, _) in parts.items()}
        # Every agent's rule-verdict bootstrap in one matrix product, as for the cells.
        ruled = [agent for agent, row in rows.items() if row.rule_pass_rate is not None]
        for agent, draws in zip(
            ruled, self._rate_draws_many([(parts[a][1], "rule_passed") for a in ruled]), strict=True
        ):
            rows[agent].rule_ci_low, rows[agent].rule_ci_high = stats.percentile_ci(draws, self.level)
        order = sorted(
            rows, key=lambda a: (rows[a].mean_pass_rate is None, -(rows[a].mean_pass_rate or 0.0), a)
        )
        for rank, agent in enumerate(order, start=1):
            rows[agent].rank = rank
        return {agent: rows[agent] for agent in order}

    @cached_property
    def agents(self) -> list[str]:
        """Agent labels in Table 1 order."""
        return list(self._model_rows)

    @cached_property
    def table1(self) -> list[ModelRow]:
        return list(self._model_rows.values())

    @cached_property
    def adjacent(self) -> list[AdjacentDifference]:
        rows = self._model_rows
        ranked = [a for a in self.agents if rows[a].mean_pass_rate is not None]
        differences: list[AdjacentDifference] = []
        for higher, lower in itertools.pairwise(ranked):
            low, high = stats.percentile_ci(self.mean_draws[higher] - self.mean_draws[lower], self.level)
            differences.append(
                AdjacentDifference(
                    higher=higher,
                    lower=lower,
                    difference=float(rows[higher].mean_pass_rate - rows[lower].mean_pass_rate),  # type: ignore[operator]
                    ci_low=low,
                    ci_high=high,
                    excludes_zero=None if low is None or high is None else bool(low > 0 or high < 0),
                )
            )
        return differences

    # Rubric, agreement, strictness, ranking stability.

    @cached_property
    def table2(self) -> list[RubricRow]:
        return _rubric(self.frame, self.agents, self.judges)

    @cached_property
    def _agreement_parts(self) -> tuple[list[JudgePair], PanelAgreement]:
        members = self.member_judges
        frame = self.frame if len(members) == len(self.judges) else self.frame[self.frame["judge_label"].isin(members)]
        return _agreement(frame, members)

    @cached_property
    def table3(self) -> list[JudgePair]:
        return self._agreement_parts[0]

    @cached_property
    def panel(self) -> PanelAgreement:
        return self._agreement_parts[1]

    @cached_property
    def _strictness_parts(self) -> tuple[list[ModelStrictness], list[JudgeStrictness]]:
        return _strictness(self._model_rows, self.agents, self.member_judges)

    @cached_property
    def strictness_models(self) -> list[ModelStrictness]:
        return self._strictness_parts[0]

    @cached_property
    def strictness_judges(self) -> list[JudgeStrictness]:
        return self._strictness_parts[1]

    @cached_property
    def ranking(self) -> RankingStability:
        return _ranking(self._model_rows, self.agents, self.member_judges)

    # What the report says about its inputs.

    @cached_property
    def simulated(self) -> bool:
        return bool(self.frame["simulated"].any()) if not self.frame.empty else False

    @cached_property
    def pass_rules(self) -> list[str]:
        return sorted(self.frame["pass_rule"].unique()) if not self.frame.empty else []

    @cached_property
    def duplicates(self) -> int:
        """Rows dropped because the same cell and scenario appear in several jobs."""
        return sum(len(j.rows) for j in self.jobs if j.finished) - len(self.frame)

    @cached_property
    def bootstrap(self) -> BootstrapInfo:
        return BootstrapInfo(
            draws=self.draws, seed=self.seed, level=self.level, scenarios=len(self.scenario_ids)
        )

    @cached_property
    def job_infos(self) -> list[JobInfo]:
        return [
            JobInfo(
                path=str(j.path),
                agent=self.labels[j.path][0],
                judge=self.labels[j.path][1],
                status=j.status,  # type: ignore[arg-type]
                rows=len(j.rows),
                problems=j.problems,
                error_hint=j.error_hint,
            )
            for j in sorted(self.jobs, key=lambda j: str(j.path))
        ]

    @cached_property
    def counts(self) -> dict[str, int]:
        frame, jobs, cells = self.frame, self.jobs, self.cells
        return {
            "jobs": len(jobs),
            "jobs_finished": sum(j.finished for j in jobs),
            "jobs_unfinished": sum(j.status == "unfinished" for j in jobs),
            "jobs_unreadable": sum(j.status == "unreadable" for j in jobs),
            "cells_missing": sum(c.status == "missing" for c in cells),
            "rows": len(frame),
            "scored": int(frame["passed"].notna().sum()),
            "judge_errors": int((frame["status"] == "judge_error").sum()),
            "infra_errors": int((frame["status"] == "infra_error").sum()),
            "duplicates_dropped": self.duplicates,
            "lines_damaged": sum(len(j.damaged) for j in jobs),
            "jobs_running": sum(j.running is not None for j in jobs),
        }

    @cached_property
    def notes(self) -> list[str]:
        """Caveats the reader must see."""
        notes: list[str] = [f"STILL RUNNING: {line}" for line in running_lines(self.jobs)]
        damaged = sum(len(j.damaged) for j in self.jobs)
        if damaged:
            notes.append(f"DAMAGED INPUT: {damaged} line(s) of results.jsonl are not result rows and were skipped "
                         "(each named below); every other row is used")
        if self.simulated:
            notes.append(
                "SIMULATED models present: offline, deterministic stand-ins; their numbers are not real model results."
            )
        for cell in self.cells:
            if cell.status in {"missing", "unfinished", "unreadable"}:
                notes.append(f"{cell.status} cell {cell.agent} × {cell.judge}: {cell.note}")
            elif cell.judge_errors or cell.infra_errors:
                notes.append(
                    f"{cell.agent} × {cell.judge}: {cell.judge_errors} judge error(s) and {cell.infra_errors} infra error(s) "
                    "excluded from the pass rate (not counted as failures)"
                )
        if self.duplicates:
            notes.append(
                f"{self.duplicates} duplicate row(s) of the same cell and scenario in several jobs: kept the latest finished job's"
            )
        for job in self.jobs:
            notes.extend(job.problems)
        return notes

    @property
    def rescore(self) -> dict[str, Any] | None:
        """Set on the built Report by `skillbench rescore` after the numbers are computed."""
        report = self.__dict__.get("report")
        return report.rescore if report is not None else None

    @cached_property
    def breakdowns(self) -> list[GroupRate]:
        """Pass rates by path, industry and skill per agent × judge, with the significantly-worse flag."""
        from skillbench.report.breakdowns import group_rates  # its own module: the table family's statistics

        return [rate for key in ("path", "industry", "skill") for rate in group_rates(self, key)]

    @cached_property
    def trials(self) -> list[TrialRate]:
        """pass^k and pass@k per agent × judge × k with CIs (empty without repeated trials)."""
        from skillbench.report.trial_tables import (
            trial_rates,  # its own module: the table family's statistics
        )

        return trial_rates(self)

    @cached_property
    def human_agreement(self) -> list[HumanAgreement]:
        """Every verdict against people's labels of the same conversations (empty without human-labelled rows)."""
        from skillbench.report.human import agreement_with_people

        return agreement_with_people(self)

    @cached_property
    def report(self) -> Report:
        """The machine-readable report (report.json): every part above."""
        report = Report(
            title=self.title,
            generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
            sources=self.sources,
            simulated=self.simulated,
            pass_rules=self.pass_rules,
            agents=self.agents,
            judges=self.judges,
            jobs=self.job_infos,
            cells=self.cells,
            table1=self.table1,
            table2=self.table2,
            table3=self.table3,
            panel=self.panel,
            strictness_models=self.strictness_models,
            strictness_judges=self.strictness_judges,
            ranking=self.ranking,
            adjacent=self.adjacent,
            bootstrap=self.bootstrap,
            counts=self.counts,
            notes=self.notes,
            breakdowns=self.breakdowns,
            human_agreement=self.human_agreement,
            trials=self.trials,
        )
        report._context = _Link(self)
        return report


class ReportSettings(TypedDict, total=False):
    """The keyword settings of ``build_report`` (defaults: those of ``ReportContext``)."""

    title: str
    sources: list[str] | None
    draws: int
    seed: int
    level: float


def build_report(jobs: list[Job], **settings: Unpack[ReportSettings]) -> tuple[Report, pd.DataFrame]:
    """The report of these jobs and the row frame it was computed from (finished jobs only)."""
    context = ReportContext(jobs, **settings)
    return context.report, context.frame


def _rubric(frame: pd.DataFrame, order: list[str], judges: list[str]) -> list[RubricRow]:
    columns = [*DIMENSION_NAMES, "hallucination_rate"]
    scored = frame[frame["task_completion"].notna()].copy()
    scored["hallucination_rate"] = scored["hallucinated_action"].astype(float)
    for dimension in DIMENSION_NAMES:
        scored[dimension] = scored[dimension].astype(float)
    per_cell = scored.groupby(["agent_label", "judge_label"])[columns].mean() if not scored.empty else None
    counts = scored.groupby(["agent_label", "judge_label"]).size() if not scored.empty else None
    rows: list[RubricRow] = []
    for agent in order:
        per_judge: dict[str, dict[str, float | None]] = {}
        scored_n: dict[str, int] = {}
        for judge in judges:
            if per_cell is not None and (agent, judge) in per_cell.index:
                values = per_cell.loc[(agent, judge)]
                per_judge[judge] = {c: _float(values[c]) for c in columns}
                scored_n[judge] = int(counts.loc[(agent, judge)])  # type: ignore[union-attr]
        means = {c: _mean([v[c] for v in per_judge.values() if v[c] is not None]) for c in columns}
        rows.append(
            RubricRow(
                agent=agent,
                means={d: means[d] for d in DIMENSION_NAMES},
                hallucination_rate=means["hallucination_rate"],
                per_judge=per_judge,
                scored=scored_n,
            )
        )
    return rows


def _verdict_matrix(frame: pd.DataFrame, judges: list[str]) -> np.ndarray:
    """Transcripts × judges: 1 pass, 0 fail, -1 not judged (or no verdict); transcripts in id order."""
    scored = frame[frame["passed"].notna()]
    if scored.empty:
        return np.full((0, len(judges)), -1, dtype=np.int8)
    codes, units = pd.factorize(unit_ids(frame)[scored.index], sort=True)
    column = scored["judge_label"].map({judge: i for i, judge in enumerate(judges)}).to_numpy(dtype=int)
    matrix = np.full((len(units), len(judges)), -1, dtype=np.int8)
    matrix[codes, column] = scored["passed"].astype(bool).to_numpy(dtype=np.int8)
    return matrix


def _agreement(frame: pd.DataFrame, judges: list[str]) -> tuple[list[JudgePair], PanelAgreement]:
    matrix = _verdict_matrix(frame, judges)
    judged = matrix >= 0
    pairs: list[JudgePair] = []
    for a, b in itertools.combinations(range(len(judges)), 2):
        shared = judged[:, a] & judged[:, b]
        va, vb = matrix[shared, a].astype(bool).tolist(), matrix[shared, b].astype(bool).tolist()
        kappa = stats.cohen_kappa(va, vb)
        note = None
        if not va:
            note = "no transcript judged by both"
        elif kappa is None:
            note = "undefined: both judges gave the same verdict to every shared transcript"
        pairs.append(
            JudgePair(
                judge_a=judges[a],
                judge_b=judges[b],
                n=len(va),
                agreement=stats.percent_agreement(va, vb),
                kappa=kappa,
                note=note,
            )
        )
    # Per transcript: how many judges passed it and how many failed it.
    counts = np.column_stack([(matrix == 1).sum(axis=1), (matrix == 0).sum(axis=1)])
    complete = judged.all(axis=1)
    fleiss = stats.fleiss_kappa(counts[complete]) if len(judges) >= 2 and complete.any() else None
    alpha = stats.krippendorff_alpha_nominal_counts(counts) if len(judges) >= 2 else None
    kappas = [p.kappa for p in pairs if p.kappa is not None]
    agreements = [p.agreement for p in pairs if p.agreement is not None]
    panel = PanelAgreement(
        judges=judges,
        mean_agreement=_mean(agreements),
        mean_kappa=_mean(kappas),
        pairs_with_kappa=len(kappas),
        fleiss_kappa=fleiss,
        fleiss_items=int(complete.sum()) if len(judges) >= 2 else 0,
        krippendorff_alpha=alpha,
        alpha_items=int((judged.sum(axis=1) >= 2).sum()),
    )
    return pairs, panel


def _strictness(
    rows: dict[str, ModelRow], order: list[str], judges: list[str]
) -> tuple[list[ModelStrictness], list[JudgeStrictness]]:
    per_model: list[ModelStrictness] = []
    strictest: dict[str, int] = dict.fromkeys(judges, 0)
    lenient: dict[str, int] = dict.fromkeys(judges, 0)
    compared: dict[str, int] = dict.fromkeys(judges, 0)
    offsets: dict[str, list[float]] = {j: [] for j in judges}
    for agent in order:
        rates = {j: r for j, r in rows[agent].pass_rates.items() if r is not None and j in judges}
        if not rates:
            per_model.append(ModelStrictness(agent=agent, most_lenient=[], strictest=[], spread_points=None))
            continue
        high, low = max(rates.values()), min(rates.values())
        most = [j for j, r in rates.items() if r >= high - _TIE]
        least = [j for j, r in rates.items() if r <= low + _TIE]
        per_model.append(
            ModelStrictness(
                agent=agent, most_lenient=most, strictest=least, spread_points=(high - low) * 100.0
            )
        )
        if len(rates) >= 2:
            mean = float(np.mean(list(rates.values())))
            for judge, rate in rates.items():
                compared[judge] += 1
                offsets[judge].append((rate - mean) * 100.0)
            for judge in least:
                strictest[judge] += 1
            for judge in most:
                lenient[judge] += 1
    per_judge = [
        JudgeStrictness(
            judge=j,
            models=compared[j],
            strictest_for=strictest[j],
            most_lenient_for=lenient[j],
            mean_offset_points=_mean(offsets[j]),
        )
        for j in judges
    ]
    return per_model, per_judge


def _ranking(rows: dict[str, ModelRow], order: list[str], judges: list[str]) -> RankingStability:
    pairs: list[RankingPair] = []
    for a, b in itertools.combinations(judges, 2):
        shared = [
            m
            for m in order
            if rows[m].pass_rates.get(a) is not None and rows[m].pass_rates.get(b) is not None
        ]
        tau = stats.kendall_tau(
            [rows[m].pass_rates[a] for m in shared], [rows[m].pass_rates[b] for m in shared]
        )  # type: ignore[misc]
        pairs.append(RankingPair(judge_a=a, judge_b=b, models=len(shared), tau=tau))
    top_by_judge: dict[str, list[str]] = {}
    for judge in judges:
        rates = {m: rows[m].pass_rates.get(judge) for m in order}
        present = {m: r for m, r in rates.items() if r is not None}
        if present:
            best = max(present.values())
            top_by_judge[judge] = [m for m, r in present.items() if r >= best - _TIE]
    means = {m: rows[m].mean_pass_rate for m in order if rows[m].mean_pass_rate is not None}
    top_by_mean = [m for m, r in means.items() if r >= max(means.values()) - _TIE] if means else []
    same: bool | None = None
    if len(top_by_judge) >= 2:
        same = bool(set.intersection(*(set(v) for v in top_by_judge.values())))
    taus = [p.tau for p in pairs if p.tau is not None]
    return RankingStability(
        pairs=pairs,
        mean_tau=_mean(taus),
        top_by_judge=top_by_judge,
        top_by_mean=top_by_mean,
        same_top_under_every_judge=same,
    )


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _float(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if np.isnan(number) else number
