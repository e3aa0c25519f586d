"""The rows of a report and where they come from: the first of the report context's three parts.

:class:`ReportRows` holds the loaded jobs (or, for a report read back from report.json, the job folders it lists,
re-read on first use), their labels, the row frame, who judged what, the one set of bootstrap draws over scenarios
that every statistic shares, and what the report says about its inputs' provenance. The figures
(``skillbench/report/figures/``) compute from it; :class:`~skillbench.report.build.ReportContext` adds each figure
as a cached part and assembles the ``Report``. Nothing here imports a figure or a table.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from skillbench.engine.results import HUMAN_JUDGE
from skillbench.report import resampling
from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_LEVEL, DEFAULT_SEED
from skillbench.report.frame import job_labels, jobs_frame
from skillbench.report.jobs import Job, ReportError, load_jobs, panel_labels
from skillbench.report.model import BootstrapInfo, JobInfo


class RowsUnavailable(ReportError):
    """A report read back from report.json whose job folders are gone: parts that need rows cannot be computed."""


def unit_ids(frame: pd.DataFrame) -> pd.Series:
    """One id per transcript: agent label + scenario + rollout key (a missing key takes its group's key),
    joined by "\\x1f", so ``anchor("tr", unit_id)`` names the transcript in the HTML page.

    Built from the columns' Python strings (an object Series, as the frame's text columns): pandas' string
    operations would copy every id into Arrow arrays (at paper scale 85,000 strings per call)."""
    agents, scenarios, trials, keys = (
        frame[column].tolist() for column in ("agent_label", "scenario_id", "trial", "rollout_key")
    )
    first: dict[tuple[str, str, int], str] = {}  # the group's first key, for its rows without one
    for agent, scenario, trial, key in zip(agents, scenarios, trials, keys, strict=True):
        if isinstance(key, str):
            first.setdefault((agent, scenario, trial), key)
    ids = [
        f"{agent}\x1f{scenario}\x1f{key if isinstance(key, str) else first.get((agent, scenario, trial), '')}"
        for agent, scenario, trial, key in zip(agents, scenarios, trials, keys, strict=True)
    ]
    return pd.Series(ids, index=frame.index, dtype=object)


class ReportRows:
    """The inputs of one report (jobs, bootstrap settings) and what is read straight off them, each a cached
    property computed on first use."""

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

    def _read_back(self, job_paths: list[str], jobs: list[Job] | None, title: str, sources: list[str],
                   bootstrap: BootstrapInfo) -> None:
        """The inputs of a report read back from report.json: its jobs are re-read from ``job_paths`` if asked for."""
        self._jobs = jobs or None
        self._job_paths = job_paths
        self.title, self.sources = title, sources
        self.draws, self.seed, self.level = bootstrap.draws, bootstrap.seed, bootstrap.level

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

    # Who judged and who was judged.

    @cached_property
    def judges(self) -> list[str]:
        return sorted({self.labels[j.path][1] for j in self.jobs})

    @cached_property
    def panel_judges(self) -> list[str]:
        """Judge labels that are panel columns (votes of judges, skillbench/report/panel_verdicts.py), not judges."""
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

    # The bootstrap over scenarios: one set of draws for every statistic, so differences are paired.

    @cached_property
    def scenario_ids(self) -> list[str]:
        return sorted(self.frame["scenario_id"].unique()) if not self.frame.empty else []

    @cached_property
    def scenario_position(self) -> dict[str, int]:
        """Scenario id → its column of ``weights``."""
        return {s: i for i, s in enumerate(self.scenario_ids)}

    @cached_property
    def scenario_codes(self) -> np.ndarray:
        """Each row of ``frame``: its scenario's column of ``weights`` (``scenario_position``), looked up once and
        among Python strings (a ``Series.map`` of the dict would copy the ids into Arrow arrays on every call)."""
        return pd.Index(self.scenario_ids, dtype=object).get_indexer(pd.Index(self.frame["scenario_id"], dtype=object))

    @cached_property
    def weights(self) -> np.ndarray:
        """One set of bootstrap draws over scenarios for every statistic, so differences are paired."""
        return resampling.bootstrap_weights(len(self.scenario_ids), self.draws, self.seed)

    def rate_counts(self, rows: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
        """Per scenario: how many rows of ``column`` are True, and how many are known (NA left out)."""
        num, den = np.zeros(len(self.scenario_ids)), np.zeros(len(self.scenario_ids))
        valid = rows[rows[column].notna()]
        index = valid["scenario_id"].map(self.scenario_position).to_numpy(dtype=int)
        np.add.at(den, index, 1.0)
        np.add.at(num, index, valid[column].astype(bool).to_numpy(dtype=float))
        return num, den

    def rate_interval(self, rows: pd.DataFrame, column: str) -> tuple[float | None, float | None]:
        """The interval of the share of True in ``column`` (NA rows left out), its scenarios the clusters."""
        return resampling.share_interval(*self.rate_counts(rows, column), self.level)

    def rate_draws(self, rows: pd.DataFrame, column: str) -> np.ndarray:
        """Bootstrap draws of the share of True in ``column`` (NA rows left out), resampling scenarios."""
        return resampling.ratio_draws(self.weights, *self.rate_counts(rows, column))

    # Provenance: what the report says about its inputs.

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
