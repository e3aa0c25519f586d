"""Compute a report from loaded jobs: the :class:`ReportContext` every table computes from, and ``build_report``.

The context has three parts, each in its own place: the rows and their provenance (:class:`ReportRows`,
``report/rows.py``), one function per figure (``report/figures/``), and here the cache that makes each figure a
part of the context, computed on first use, and the ``Report`` (report.json) assembled from the parts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cached_property
from typing import Any, TypedDict, Unpack

import numpy as np
import pandas as pd

from skillbench.report.defaults import DEFAULT_LEVEL
from skillbench.report.figures.agreement import judge_agreement
from skillbench.report.figures.cells import CellFigures, cell_figures
from skillbench.report.figures.groups import group_rates
from skillbench.report.figures.human import agreement_with_people
from skillbench.report.figures.inputs import input_counts, input_notes
from skillbench.report.figures.pass_rates import adjacent_differences, mean_draws, model_rows
from skillbench.report.figures.rubric import rubric_rows
from skillbench.report.figures.strictness import judge_strictness, ranking_stability
from skillbench.report.figures.trials import TrialCell, has_trials, trial_cells, trial_rates
from skillbench.report.jobs import Job
from skillbench.report.model import (
    AdjacentDifference,
    Cell,
    GroupRate,
    HumanAgreement,
    JudgePair,
    JudgeStrictness,
    ModelRow,
    ModelStrictness,
    PanelAgreement,
    RankingStability,
    Report,
    RubricRow,
    TrialRate,
)
from skillbench.report.rows import ReportRows, RowsUnavailable, unit_ids

__all__ = ["DEFAULT_LEVEL", "ReportContext", "ReportSettings", "RowsUnavailable", "build_report", "unit_ids"]


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


class ReportContext(ReportRows):
    """The inputs of one report (its rows, :class:`ReportRows`) and every figure computed from them.

    Each figure is a cached property calling its function in ``report/figures/``: computed once, on first use, so a
    table asks for what it needs and parts nobody asks for are never computed (agreement needs no bootstrap; a path
    table only the frame).

    The one rule of a report table, built-in or plug-in: compute from this context only (``jobs``, ``frame``
    and the parts), never from a ``Report``'s fields. A report read back from report.json then renders the
    same Markdown: its stored parts are reused and ``jobs``/``frame`` are re-read, on first use, from the job
    folders report.json lists. When those folders are gone they raise :class:`RowsUnavailable` and the
    tables that need them are left out (``all_tables``); the others still render.
    """

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
        context._read_back([info.path for info in report.jobs], jobs, report.title, report.sources, report.bootstrap)
        # cached_property reads the instance dict first: these parts are known, never recomputed.
        context.__dict__.update({name: getattr(report, name) for name in _REPORT_PARTS})
        context.__dict__.update(job_infos=report.jobs, report=report)
        if frame is not None:
            context.__dict__["frame"] = frame
        return context

    # Cells: coverage, rate and CI.

    @cached_property
    def _cell_figures(self) -> CellFigures:
        return cell_figures(self)

    @cached_property
    def cells(self) -> list[Cell]:
        """Every agent × judge cell, agents alphabetical, then judges."""
        return self._cell_figures.cells

    @cached_property
    def _cell_by(self) -> dict[tuple[str, str], Cell]:
        return {(c.agent, c.judge): c for c in self.cells}

    def cell(self, agent: str, judge: str) -> Cell:
        return self._cell_by[(agent, judge)]

    # Table 1 and the differences between adjacent agents.

    @cached_property
    def mean_draws(self) -> dict[str, np.ndarray]:
        """Per agent: bootstrap draws of the mean over judges (paired across agents)."""
        return mean_draws(self, self._cell_figures.draws)

    @cached_property
    def _model_rows(self) -> dict[str, ModelRow]:
        """Table 1 rows by agent, in Table 1 order (mean over judges, best first), ranked."""
        return model_rows(self, self._cell_by, self._cell_figures.counts)

    @cached_property
    def agents(self) -> list[str]:
        """Agent labels in Table 1 order."""
        return list(self._model_rows)

    @cached_property
    def table1(self) -> list[ModelRow]:
        return list(self._model_rows.values())

    @cached_property
    def adjacent(self) -> list[AdjacentDifference]:
        return adjacent_differences(self._model_rows, self.mean_draws, self.level)

    # Rubric, agreement, strictness, ranking stability.

    @cached_property
    def table2(self) -> list[RubricRow]:
        return rubric_rows(self.frame, self.agents, self.judges)

    @cached_property
    def _agreement(self) -> tuple[list[JudgePair], PanelAgreement]:
        members = self.member_judges
        frame = self.frame if len(members) == len(self.judges) else self.frame[self.frame["judge_label"].isin(members)]
        return judge_agreement(frame, members)

    @cached_property
    def table3(self) -> list[JudgePair]:
        return self._agreement[0]

    @cached_property
    def panel(self) -> PanelAgreement:
        return self._agreement[1]

    @cached_property
    def _strictness(self) -> tuple[list[ModelStrictness], list[JudgeStrictness]]:
        return judge_strictness(self._model_rows, self.agents, self.member_judges)

    @cached_property
    def strictness_models(self) -> list[ModelStrictness]:
        return self._strictness[0]

    @cached_property
    def strictness_judges(self) -> list[JudgeStrictness]:
        return self._strictness[1]

    @cached_property
    def ranking(self) -> RankingStability:
        return ranking_stability(self._model_rows, self.agents, self.member_judges)

    # Table families of their own modules: breakdowns, repeated trials, agreement with people.

    @cached_property
    def breakdowns(self) -> list[GroupRate]:
        """Pass rates by path, industry and skill per agent × judge, with the significantly-worse flag."""
        return [rate for key in ("path", "industry", "skill") for rate in group_rates(self, key)]

    @cached_property
    def trial_cells(self) -> list[TrialCell]:
        """Per agent × judge with scored rows (Table 1 order, then judge): pass^k, pass@k, consistency, counts."""
        return trial_cells(self, self.agents)

    @cached_property
    def trials(self) -> list[TrialRate]:
        """pass^k and pass@k per agent × judge × k with CIs (empty without repeated trials)."""
        return trial_rates(self.trial_cells) if has_trials(self) else []

    @cached_property
    def human_agreement(self) -> list[HumanAgreement]:
        """Every verdict against people's labels of the same conversations (empty without human-labelled rows)."""
        return agreement_with_people(self)

    # What the report says about its inputs.

    @cached_property
    def counts(self) -> dict[str, int]:
        return input_counts(self, self.cells)

    @cached_property
    def notes(self) -> list[str]:
        """Caveats the reader must see."""
        return input_notes(self, self.cells)

    @property
    def rescore(self) -> dict[str, Any] | None:
        """Set on the built Report by `skillbench rescore` after the numbers are computed."""
        report = self.__dict__.get("report")
        return report.rescore if report is not None else None

    @cached_property
    def report(self) -> Report:
        """The machine-readable report (report.json): every part above."""
        report = Report(
            title=self.title,
            generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
            sources=self.sources,
            jobs=self.job_infos,
            **{name: getattr(self, name) for name in _REPORT_PARTS},
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
