"""Hydra callback: write the report into the sweep folder when a sweep ends.

Enable it in skillbench/conf/config.yaml::

    hydra:
      callbacks:
        report:
          _target_: skillbench.report.callback.ReportCallback
          enabled: true   # so that hydra.callbacks.report.enabled=false turns it off for one sweep

Hydra calls ``on_multirun_end`` only when no job raised, which is why the engine catches job
errors; jobs that failed anyway (no summary.json) show up in the report as unfinished cells.
"""

from __future__ import annotations

import logging
import shlex
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from skillbench.core.collector import paused_gc
from skillbench.report.defaults import DEFAULT_FORMATS
from skillbench.report.jobs import load_jobs, write_job

log = logging.getLogger("skillbench.report")


def preload_report_imports() -> None:
    """Import what the report at a sweep's end imports (pandas, matplotlib...), 1.5 s of CPU. The parallel preset's
    launcher calls this while its workers run, so the report does not begin with it after the last job."""
    with paused_gc():  # long-lived objects only (see skillbench/models/litellm_setup.py)
        import skillbench.report.plots
        import skillbench.report.write  # noqa: F401


class ReportCallback(Callback):
    """Builds ``<sweep dir>/<subdir>`` after a multirun; a failure is logged, never raised."""

    def __init__(
        self,
        enabled: bool = True,
        subdir: str = "report",
        formats: list[str] | None = None,
        draws: int | None = None,
        transcripts: bool = True,
        on_single_run: bool = False,
    ) -> None:
        self.enabled = enabled
        self.subdir = subdir
        self.formats = list(formats) if formats else None
        self.draws = draws
        self.transcripts = transcripts
        self.on_single_run = on_single_run
        self._sweep_dir: Path | None = None

    @staticmethod
    def _dir(config: DictConfig, key: str) -> Path | None:
        try:
            value = OmegaConf.select(config, key)
        except Exception:  # an unresolvable interpolation must not break the sweep
            return None
        return Path(str(value)) if value else None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        # Resolved now, when ${now:...} gives the same stamp the launcher uses (Hydra caches it).
        self._sweep_dir = self._dir(config, "hydra.sweep.dir")

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        self._build(self._sweep_dir or self._dir(config, "hydra.sweep.dir"))

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self.on_single_run:
            self._build(self._dir(config, "hydra.run.dir"))

    def _build(self, folder: Path | None) -> bool:
        """Write the report into ``folder``; whether it was written (``report_written`` says it later). A failure is
        one log line with the command that builds it by hand, never raised: the sweep's results are safe on disk
        whatever broke the report (an import a signal interrupted leaves pandas unusable in this process: its
        numpy cannot load twice). A signal while it is built is raised, for the sweep's interrupted end."""
        if not self.enabled or folder is None:
            return False
        start = time.perf_counter()
        try:
            # Inside the guard: a signal may cut this import (pandas, matplotlib), which can then not be redone here.
            from skillbench.report.write import make_report  # heavy imports only when a report is due

            _write_panels(folder)
            report, written = make_report(
                [folder],
                folder / self.subdir,
                formats=self.formats or DEFAULT_FORMATS,
                transcripts=self.transcripts,
                **({"draws": self.draws} if self.draws is not None else {}),
            )
        except Exception as exc:
            log.error("report for %s failed: %s. Build it with: %s", folder, one_line(exc), build_command(folder))
            _ENDS[str(folder)] = exc
            return False
        _ENDS[str(folder)] = None
        missing = [c for c in report.cells if c.status in {"missing", "unfinished", "unreadable"}]
        log.info(
            "report written to %s in %.1f s (%d finished job(s)%s)",
            folder / self.subdir,
            time.perf_counter() - start,
            report.counts["jobs_finished"],
            f", {len(missing)} missing or unfinished cell(s)" if missing else "",
        )
        if "html" in written:
            log.info("open %s", written["html"])
        _log_trials(report)
        return True


# Sweep folder -> how this process's report of it ended: None written, else what kept it from being written (the end's
# last lines and the sweep's exit code say so). A folder not in it: no report was due.
_ENDS: dict[str, Exception | None] = {}


def report_written(folder: Path) -> bool:
    """Whether this process wrote ``folder``'s report at the sweep's end."""
    return str(folder) in _ENDS and _ENDS[str(folder)] is None


def report_failure(folder: Path) -> Exception | None:
    """What kept this process from writing ``folder``'s report at the sweep's end (None: written, or not due)."""
    return _ENDS.get(str(folder))


def build_command(folder: Path) -> str:
    """The command that builds a sweep's report by hand."""
    return f"skillbench report {shlex.quote(str(folder))}"


def one_line(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _write_panels(folder: Path) -> None:
    """A sweep whose pass rule sets ``panel`` gets its panel columns as job folders (a vote, no model call)."""
    from skillbench.report.panel_verdicts import panel_jobs  # pandas: only when a report is due

    panels = panel_jobs(load_jobs([folder]), folder)
    for panel in panels:
        write_job(panel)
    if panels:
        log.info("panel verdicts: %d panel column(s) written to %s", len(panels), folder)


def _log_trials(report: Any) -> None:
    """A sweep with repeated trials ends with its pass^k / pass@k table in the log (also in report.md)."""
    from skillbench.report.build import ReportContext  # pandas: only when a report is due
    from skillbench.report.tables import TABLES, load_table_families, markdown_table

    try:
        load_table_families()
        table = TABLES.get("pass_k").build(ReportContext.of(report))
    except Exception as exc:  # the table is in report.md either way
        log.debug("no pass^k table in the log: %s", exc)
        return
    if table is not None:
        simulated = " (SIMULATED models: not real model results)" if report.simulated else ""
        log.info("%s%s\n%s", table.title, simulated, markdown_table(table.display, table.headers))
