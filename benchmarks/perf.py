"""The performance harness: every figure of docs/performance.md against its budget, in one table.

    python benchmarks/perf.py                          # everything (about 15-25 min on 2 cores)
    python benchmarks/perf.py --only start,report      # some sections: start, engine, sweep, report
    python benchmarks/perf.py --scenarios 100          # a smaller report
    SKILLBENCH_CHROMIUM=/path/to/chromium python benchmarks/perf.py --only report

Sections:
- start: start-up (``--help``), the default-sized job first and fully cached, the default job's wall time
  against its work (its own ``wall_time_s``), a fully cached 3 x 3 sweep (fixed cost).
- engine: benchmarks/throughput.py: conversations/hour and CPU per call at concurrency 30/128/256 with
  distinct transcripts (judge calls included), the engine against bare litellm replaying the engine's own
  requests, 1 vs 2 processes.
- sweep: the 3 x 3 simulated sweep with the basic launcher, ``hydra/launcher=joblib`` and ``hydra/launcher=parallel``;
  the 85-job paper grid's composition before its launch (Hydra's basic sweeper against skillbench's).
- report: ``skillbench report`` on a synthetic 17 x 5 x 500 sweep: CPU, peak memory, page size, Chromium.

Every figure is measured in this run (CPU = user + sys of the child, so a busy shared machine inflates wall
time but barely CPU; ratios compare runs made back to back). Run from the repository root. Not a test:
nothing here asserts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
ENV = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


# Starts the measured command and reports its rusage. A small interpreter of its own, because Linux carries a
# forking process's peak memory into its child's ru_maxrss across exec: started from this process (hundreds of MB
# after the engine section), every command would read at least that much.
_MEASURE = """
import json, os, subprocess, sys, time
started, start = time.time(), time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=sys.stderr, stderr=sys.stderr)  # its log lines, for measure(log=)
_, status, usage = os.wait4(child.pid, 0)
print(json.dumps({"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime, "started": started,
                  "rss": usage.ru_maxrss / 1024, "rc": os.waitstatus_to_exitcode(status)}))
"""


def measure(args: list[str], cwd: Path, log: list[str] | None = None) -> dict[str, float]:
    """Wall s, CPU s (user + sys), peak RSS MB and start (epoch s) of one child process (its own rusage, from
    wait4); its stderr lines are appended to ``log`` when given."""
    with tempfile.TemporaryFile() as err:
        done = subprocess.run([sys.executable, "-c", _MEASURE, *args], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                              stderr=err, text=True, check=False)
        result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {"rc": done.returncode}
        if result["rc"] != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(args)} failed:\n{err.read().decode()[-2000:]}")
        if log is not None:
            err.seek(0)
            log.extend(err.read().decode().splitlines())
    return {"wall": result["wall"], "cpu": result["cpu"], "rss": result["rss"], "started": result["started"]}


def chromium() -> str | None:
    """The Chromium to open the page with: $SKILLBENCH_CHROMIUM, else chromium on PATH."""
    return os.environ.get("SKILLBENCH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def open_in_chromium(browser: str, url: str, profile: Path) -> float:
    """Wall seconds for headless Chromium to load ``url``, run its script and dump the DOM (browser
    start-up included; the same for an empty page is printed next to it)."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}"]
    start = time.perf_counter()
    subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, check=True, timeout=300)
    return time.perf_counter() - start


def best_of(runs: int, args: list[str], cwd: Path) -> dict[str, float]:
    results = [measure(args, cwd) for _ in range(runs)]
    return min(results, key=lambda r: r["cpu"])


Row = tuple[str, str, str, str]  # figure, measured, budget, note
SIM_GRID = ["agent=glob(sim_*)", "judge=glob(sim_*)"]


def start_rows(work: Path, repeat: int) -> list[Row]:
    py = sys.executable
    rows: list[Row] = []
    for label, command in [
        ("python -m skillbench --help", [py, "-m", "skillbench", "--help"]),
        ("skillbench report --help", [py, "-m", "skillbench.cli", "report", "--help"]),
    ]:
        r = best_of(repeat, command, work)
        rows.append((f"start-up: {label}", f"{r['cpu']:.2f} s CPU ({r['wall']:.2f} s wall)", "—",
                     "imports no litellm, mcp, matplotlib, scipy (tests/test_fast_start.py)"))

    job = [py, "-m", "skillbench", "benchmark=smoke", "benchmark.limit=4", f"store.root={work / 'store'}"]
    first = measure([*job, "hydra.run.dir=first"], work)
    cached = best_of(repeat, [*job, f"hydra.run.dir=cached_{time.time_ns()}"], work)
    rows.append(("default-sized job (smoke, 4 scenarios), first run", f"{first['cpu']:.2f} s CPU ({first['wall']:.2f} s wall)", "", ""))
    rows.append(("the same job, every artifact cached (fixed cost)", f"{cached['cpu']:.2f} s CPU ({cached['wall']:.2f} s wall)",
                 "—", f"{cached['cpu'] / first['cpu']:.2f} of the first run; imports no litellm"))

    default = measure([py, "-m", "skillbench", f"store.root={work / 'default_store'}", "hydra.run.dir=default"], work)
    summary = json.loads((work / "default" / "summary.json").read_text())
    ratio = default["wall"] / summary["wall_time_s"]
    rows.append(("the default job (`python -m skillbench`): wall time / its work",
                 f"{ratio:.2f} ({default['wall']:.1f} s wall, {summary['wall_time_s']:.1f} s of work)", "≤ 2",
                 "work = the job's own wall_time_s (scenarios in, summary out)"))

    sweep = [py, "-m", "skillbench", *SIM_GRID, f"store.root={work / 'sweep_store'}"]
    measure([*sweep, "hydra.sweep.dir=sweep_first", "-m"], work)
    again = measure([*sweep, "hydra.sweep.dir=sweep_cached", "-m"], work)
    rows.append(("a fully cached 3 × 3 sweep (fixed cost, report included)",
                 f"{again['cpu']:.2f} s CPU ({again['wall']:.2f} s wall)", "—", "9 jobs, 0 model calls"))
    return rows


def engine_rows(conversations: int, processes: int, rounds: int) -> list[Row]:
    from benchmarks.throughput import engine_vs_bare, figure, placement, processes_run, ratios

    rows: list[Row] = []
    for concurrency in (30, 128, 256):
        runs = engine_vs_bare(conversations, concurrency, 100.0, rounds=rounds)
        at = f"engine, concurrency {concurrency}, 100 ms stub"
        how = f"median (range) of {rounds} interleaved rounds; {placement(True)}" if rounds > 1 else placement(True)
        calls, cpu = ratios(runs, "bare")
        rows.append((f"{at}: conversations/hour", figure(runs, "engine", "conversations_per_hour"), "—",
                     f"{runs[0].engine.calls_per_conversation:.1f} calls each (judge included), distinct transcripts"))
        rows.append((f"{at}: CPU per call (engine; bare litellm)",
                     f"{figure(runs, 'engine', 'cpu_ms_per_call')}; {figure(runs, 'bare', 'cpu_ms_per_call')}", "—",
                     f"bare = the engine's own request bodies; {how}"))
        rows.append((f"{at}: engine / bare litellm, calls/s", calls, "≥ 0.9",
                     f"{figure(runs, 'engine', 'calls_per_s')} vs {figure(runs, 'bare', 'calls_per_s')} calls/s"))
        rows.append((f"{at}: engine / bare litellm, CPU per call", cpu, "≥ 0.9", "bare CPU per call ÷ engine's"))
        rows.append((f"{at}: engine / bare replayed as conversations, calls/s; CPU per call", "; ".join(ratios(runs, "chained")),
                     "—", f"bare: {concurrency} chains of requests at a time, as the engine has "
                          f"({figure(runs, 'chained', 'cpu_ms_per_call')} per call)"))
        rows.append((f"{at}: engine / bare through the engine's call path, calls/s; CPU per call",
                     "; ".join(ratios(runs, "bare_engine_path")),
                     "—", f"bare with litellm's set-up inline, as the engine calls it: the engine's own work alone "
                          f"({figure(runs, 'bare_engine_path', 'cpu_ms_per_call')} per call)"))
    one = processes_run(1, conversations, 256, 100.0)
    many = processes_run(processes, conversations, 256, 100.0)
    rows.append((f"engine: {processes} processes vs 1 (concurrency 256 each)",
                 f"{many.conversations_per_hour / one.conversations_per_hour:.2f}x", "≥ 1.5x",
                 f"{one.conversations_per_hour:,.0f} vs {many.conversations_per_hour:,.0f} conversations/hour"))
    return rows


def prelaunch_row() -> Row:
    """Seconds between the preflight and the launch of the 85-job paper grid: Hydra's basic sweeper composes
    every job again there; skillbench's sweeper skips the jobs the preflight composed."""
    from hydra import compose, initialize_config_module
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import HydraContext
    from omegaconf import open_dict

    from skillbench.plan.sweep import compose_jobs, sweep_overrides

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        master = compose("config", overrides=["experiment=paper_grid"], return_hydra_config=True)
        with open_dict(master):
            master.hydra.mode, master.hydra.overrides.task = "MULTIRUN", ["experiment=paper_grid"]
        # Imported after Hydra's plugin scan, which imports its plugin modules again.
        from hydra_plugins.skillbench_plugins.checked_sweeper import CheckedSweeper
        from skillbench.plan.hydra_internals import BasicSweeper

        context = HydraContext(config_loader=GlobalHydra.instance().config_loader(), callbacks=None)  # type: ignore[arg-type]
        batch = sweep_overrides(master)
        start = time.perf_counter()
        compose_jobs(master)
        preflight = time.perf_counter() - start
        seconds = {}
        for sweeper in (BasicSweeper(max_batch_size=None), CheckedSweeper(max_batch_size=None)):
            sweeper.config, sweeper.hydra_context = master, context
            start = time.perf_counter()
            sweeper.validate_batch_is_legal(batch)
            seconds[type(sweeper).__name__] = time.perf_counter() - start
    return (f"paper grid ({len(batch)} jobs): composing every job again before the launch",
            f"{seconds['CheckedSweeper']:.2f} s (Hydra's basic sweeper: {seconds['BasicSweeper']:.1f} s)", "—",
            f"the preflight composed them all in {preflight:.2f} s; one process, before the first call")


def _log_times(lines: list[str], started: float, marker: str) -> list[float]:
    """Seconds after ``started`` of the log lines holding ``marker`` (their own "[YYYY-mm-dd HH:MM:SS,mmm]" stamp)."""
    stamps = [line[1:24] for line in lines if marker in line and line.startswith("[")]
    return [datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp() - started for stamp in stamps]


def sweep_rows(work: Path) -> list[Row]:
    py = sys.executable
    walls: dict[str, float] = {}
    spans: dict[str, str] = {}
    for name, extra in (("basic", []), ("joblib", ["hydra/launcher=joblib"]), ("parallel", ["hydra/launcher=parallel"])):
        log: list[str] = []
        r = measure([py, "-m", "skillbench", *SIM_GRID, f"store.root={work / f'{name}_store'}",
                     f"hydra.sweep.dir={name}_sweep", *extra, "-m"], work, log)
        walls[name] = r["wall"]
        starts, ends = _log_times(log, r["started"], "starting"), _log_times(log, r["started"], "] done:")
        if starts and ends:
            spans[name] = f"first job started at {min(starts):.1f} s, the last ended {r['wall'] - max(ends):.1f} s before the exit"
    cores = os.cpu_count() or 1
    rows: list[Row] = [("3 × 3 simulated sweep (starter), basic launcher", f"{walls['basic']:.1f} s wall", "—", spans.get("basic", ""))]
    for name in ("joblib", "parallel"):
        rows.append((f"the same sweep, hydra/launcher={name}",
                     f"{walls[name]:.1f} s wall ({walls['basic'] / walls[name]:.2f}x)", "≥ 1.5x" if name == "parallel" else "—",
                     f"{cores} cores; " + ("workers forked after the imports" if name == "parallel" else "fresh interpreters")
                     + (f"; {spans[name]}" if name in spans else "")))
    rows.append(prelaunch_row())
    return rows


def report_rows(work: Path, agents_n: int, judges_n: int, scenarios_n: int, repeat: int) -> list[Row]:
    from tests.report.conftest import AGENT_SKILL, JUDGE_BIAS, write_sweep

    py = sys.executable
    rows: list[Row] = []
    agents = [*AGENT_SKILL, *(f"sim_agent{i}" for i in range(agents_n - len(AGENT_SKILL)))][:agents_n]
    judges = [*JUDGE_BIAS, *(f"sim_judge{i}" for i in range(judges_n - len(JUDGE_BIAS)))][:judges_n]
    for name in agents:
        AGENT_SKILL.setdefault(name, 0.5)
    for name in judges:
        JUDGE_BIAS.setdefault(name, 0)
    started = time.perf_counter()
    sweep = write_sweep(work / "sweeps", agents, judges, scenarios=scenarios_n)
    scale = f"{len(agents)} × {len(judges)} × {scenarios_n}"
    print(f"(synthetic sweep {scale} written in {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    out = work / "report"
    r = measure([py, "-m", "skillbench.cli", "report", str(sweep), "--out", str(out), "--quiet"], work)
    note = "" if (agents_n, judges_n, scenarios_n) == (17, 5, 500) else "not the paper's scale"
    rows.append((f"report {scale}: CPU", f"{r['cpu']:.1f} s ({r['wall']:.1f} s wall)", "< 10 s", note))
    rows.append((f"report {scale}: peak memory", f"{r['rss']:.0f} MB", "< 400 MB", note))
    page = (out / "report.html").read_bytes()
    rows.append((f"report {scale}: report.html", f"{len(page) / 1e6:.1f} MB ({len(gzip.compress(page)) / 1e6:.1f} MB gzipped)",
                 "< 15 MB", note))
    browser = chromium()
    if browser is None:
        rows.append((f"report {scale}: report.html opened in Chromium", "no chromium found", "< 3 s", ""))
    else:
        url = (out / "report.html").resolve().as_uri()
        empty = min(open_in_chromium(browser, "data:text/html,", work / "profile") for _ in range(repeat))
        opened = min(open_in_chromium(browser, url, work / "profile") for _ in range(repeat))
        rows.append((f"report {scale}: report.html opened in headless Chromium (--dump-dom)",
                     f"{opened:.2f} s wall (empty page: {empty:.2f} s)", "< 3 s", note))
    return rows


SECTIONS = ("start", "engine", "sweep", "report")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections of {SECTIONS}")
    parser.add_argument("--agents", type=int, default=17)
    parser.add_argument("--judges", type=int, default=5)
    parser.add_argument("--scenarios", type=int, default=500)
    parser.add_argument("--conversations", type=int, default=300, help="conversations per engine throughput run")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--engine-rounds", type=int, default=3,
                        help="interleaved engine/bare rounds per concurrency (median and range are shown)")
    parser.add_argument("--repeat", type=int, default=3, help="start-up runs (the lowest CPU is kept)")
    args = parser.parse_args()
    chosen = [s for s in args.only.split(",") if s]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        raise SystemExit(f"perf.py: unknown section(s) {unknown}; choose from {', '.join(SECTIONS)}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="skillbench-perf-") as tmp:
        work = Path(tmp)
        if "start" in chosen:
            rows += start_rows(work, args.repeat)
        if "engine" in chosen:
            rows += engine_rows(args.conversations, args.processes, args.engine_rounds)
        if "sweep" in chosen:
            rows += sweep_rows(work)
        if "report" in chosen:
            rows += report_rows(work, args.agents, args.judges, args.scenarios, args.repeat)
    header = ("figure", "measured", "budget", "note")
    width = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    for row in [header, tuple("-" * w for w in width), *rows]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)))


if __name__ == "__main__":
    main()
