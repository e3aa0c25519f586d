"""Where a report's CPU and memory go, phase by phase (load, frame, cells, tables, each format).

    python benchmarks/report_phases.py                  # a synthetic 17 × 5 × 500 sweep
    python benchmarks/report_phases.py SWEEP_DIR        # an existing run or sweep folder

Prints one table: CPU seconds of each phase (this process) and its resident memory after the phase
and peak so far. Runs the same functions as `skillbench report` (write_report's steps, in its
order). Not a test: nothing here asserts. benchmarks/perf.py measures the whole command.
"""

from __future__ import annotations

import argparse
import itertools
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_synthetic_sweep(root: Path, n_agents: int, n_judges: int, scenarios: int) -> Path:
    """The synthetic sweep benchmarks/perf.py reports on (tests/report/conftest.py's writer)."""
    from tests.report.conftest import AGENT_SKILL, JUDGE_BIAS, write_sweep

    agents = [*AGENT_SKILL, *(f"sim_agent{i}" for i in range(n_agents))][:n_agents]
    judges = [*JUDGE_BIAS, *(f"sim_judge{i}" for i in range(n_judges))][:n_judges]
    for name in agents:
        AGENT_SKILL.setdefault(name, 0.5)
    for name in judges:
        JUDGE_BIAS.setdefault(name, 0)
    return write_sweep(root, agents, judges, scenarios=scenarios)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "sweep", nargs="?", type=Path, help="a run or sweep folder (default: a synthetic one)"
    )
    parser.add_argument("--agents", type=int, default=17)
    parser.add_argument("--judges", type=int, default=5)
    parser.add_argument("--scenarios", type=int, default=500)
    parser.add_argument("--write-sweep", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    scale = ["--agents", str(args.agents), "--judges", str(args.judges), "--scenarios", str(args.scenarios)]
    if args.write_sweep:
        write_synthetic_sweep(args.write_sweep, args.agents, args.judges, args.scenarios)
        return
    with tempfile.TemporaryDirectory(prefix="skillbench-phases-") as tmp:
        sweep = args.sweep
        if sweep is None:
            # Written by a child process, so this one's import rows count only what a report imports.
            sweep = Path(tmp) / "sweeps" / "2026-01-01_00-00-00"
            subprocess.run([sys.executable, __file__, "--write-sweep", str(sweep.parent), *scale], check=True)
        out = Path(tmp) / "report"
        rows: list[tuple[str, str, str, str]] = []
        clock = [time.process_time()]

        def phase(label: str) -> None:
            now = time.process_time()
            rows.append((label, f"{now - clock[0]:.2f}", f"{rss_mb():.0f}", f"{peak_mb():.0f}"))
            clock[0] = now

        import pandas  # noqa: F401  (its own row: the report cannot do without it)

        phase("import pandas")
        from skillbench.report import write
        from skillbench.report.build import ReportContext
        from skillbench.report.jobs import load_jobs
        from skillbench.report.tables import all_tables

        phase("import skillbench.report")
        jobs = load_jobs([sweep])
        phase(f"load {len(jobs)} jobs ({sum(len(j.rows) for j in jobs)} rows)")
        context = ReportContext(jobs, sources=[str(sweep)])
        frame = context.frame
        phase("row frame")
        context.cells  # noqa: B018  (a cached part, computed here to time it)
        phase("cells and their bootstrap")
        report = context.report
        phase("the rest of report.json's parts")
        tables = all_tables(context)
        phase("tables")
        write.write_report(report, frame, jobs, out, formats=["md", "csv", "tex", "json"])
        phase("md, csv (rows.csv), tex, json")
        from skillbench.report.plots import render_plots

        plots = render_plots(report)
        phase("plots (matplotlib import included)")
        from skillbench.report.html import html_parts

        page = out / "report.html"
        with page.open("wb") as handle:  # as write_report writes it: part by part
            handle.writelines(part.encode("utf-8") for part in html_parts(report, frame, jobs, plots, tables=tables))
        phase(f"report.html ({page.stat().st_size / 1e6:.1f} MB)")
        sections = page_sections(page.read_text(encoding="utf-8"))

    header = ("phase", "CPU s", "RSS after MB", "peak so far MB")
    width = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    for row in [header, tuple("-" * w for w in width), *rows]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)))
    print("\nreport.html by section (what the browser parses): " + ", ".join(
        f"{name} {size / 1e6:.2f} MB" for name, size in sections.items()))


def page_sections(page: str) -> dict[str, int]:
    """Characters of the page per <section id=...> (the head and navigation as "head"), in page order."""
    starts = [(match.start(), match.group(1)) for match in re.finditer(r'<section id="([^"]+)"', page)]
    bounds = [(0, "head"), *starts, (len(page), "")]
    return {name: end - start for (start, name), (end, _) in itertools.pairwise(bounds)}


if __name__ == "__main__":
    main()
