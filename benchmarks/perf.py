"""Performance harness: start-up, cached-job fixed cost and the report at scale, each against its budget.

    python benchmarks/perf.py                      # report at the paper's scale (17 × 5 × 500)
    python benchmarks/perf.py --scenarios 100      # a quicker, smaller report
    SKILLBENCH_CHROMIUM=/path/to/chromium python benchmarks/perf.py   # also time the page in Chromium

Prints one table. Every figure is measured in fresh subprocesses in this run (CPU = user + sys of the
child, so a busy shared machine inflates wall time but barely CPU). Engine throughput against a local
stub is benchmarks/throughput.py. Run from the repository root. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
ENV = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def measure(args: list[str], cwd: Path) -> dict[str, float]:
    """Wall s, CPU s (user + sys) and peak RSS MB of one child process (its own rusage, from wait4)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(args, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if child.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(args)} failed:\n{err.read().decode()[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024}


def chromium() -> str | None:
    """The Chromium to open the page with: $SKILLBENCH_CHROMIUM, else chromium on PATH."""
    return os.environ.get("SKILLBENCH_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def open_in_chromium(browser: str, url: str, profile: Path) -> float:
    """Wall seconds for headless Chromium to load ``url``, run its script and dump the DOM (browser
    start-up included; the same for an empty page is printed next to it)."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}"]
    start = time.perf_counter()
    subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, check=True, timeout=300)
    return time.perf_counter() - start


def best_of(runs: int, args: list[str], cwd: Path) -> dict[str, float]:
    results = [measure(args, cwd) for _ in range(runs)]
    return min(results, key=lambda r: r["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=17)
    parser.add_argument("--judges", type=int, default=5)
    parser.add_argument("--scenarios", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3, help="start-up runs (the lowest CPU is kept)")
    args = parser.parse_args()
    py = sys.executable
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="skillbench-perf-") as tmp:
        work = Path(tmp)
        for label, command in [
            ("python -m skillbench --help", [py, "-m", "skillbench", "--help"]),
            ("skillbench report --help", [py, "-m", "skillbench.cli", "report", "--help"]),
        ]:
            r = best_of(args.repeat, command, work)
            rows.append((f"start-up: {label}", f"{r['cpu']:.2f} s CPU ({r['wall']:.2f} s wall)", "—", "imports no litellm, mcp, matplotlib, scipy"))

        job = [py, "-m", "skillbench", "benchmark=smoke", "benchmark.limit=4", f"store.root={work / 'store'}"]
        first = measure([*job, "hydra.run.dir=first"], work)
        cached = best_of(args.repeat, [*job, f"hydra.run.dir=cached_{time.time_ns()}"], work)
        rows.append(
            ("default-sized job (smoke, 4 scenarios), first run", f"{first['cpu']:.2f} s CPU ({first['wall']:.2f} s wall)", "", "")
        )
        rows.append(
            (
                "the same job, every artifact cached (fixed cost)",
                f"{cached['cpu']:.2f} s CPU ({cached['wall']:.2f} s wall)",
                "—",
                f"{cached['cpu'] / first['cpu']:.2f} of the first run",
            )
        )

        from tests.report.conftest import AGENT_SKILL, JUDGE_BIAS, write_sweep

        agents = [*AGENT_SKILL, *(f"sim_agent{i}" for i in range(args.agents - len(AGENT_SKILL)))][: args.agents]
        judges = [*JUDGE_BIAS, *(f"sim_judge{i}" for i in range(args.judges - len(JUDGE_BIAS)))][: args.judges]
        for name in agents:
            AGENT_SKILL.setdefault(name, 0.5)
        for name in judges:
            JUDGE_BIAS.setdefault(name, 0)
        started = time.perf_counter()
        sweep = write_sweep(work / "sweeps", agents, judges, scenarios=args.scenarios)
        scale = f"{len(agents)} × {len(judges)} × {args.scenarios}"
        print(f"(synthetic sweep {scale} written in {time.perf_counter() - started:.1f} s)", file=sys.stderr)
        out = work / "report"
        r = measure([py, "-m", "skillbench.cli", "report", str(sweep), "--out", str(out), "--quiet"], work)
        paper = (args.agents, args.judges, args.scenarios) == (17, 5, 500)
        note = "" if paper else "not the paper's scale"
        rows.append((f"report {scale}: CPU", f"{r['cpu']:.1f} s ({r['wall']:.1f} s wall)", "< 10 s", note))
        rows.append((f"report {scale}: peak memory", f"{r['rss']:.0f} MB", "< 400 MB", note))
        page = (out / "report.html").read_bytes()
        rows.append(
            (
                f"report {scale}: report.html",
                f"{len(page) / 1e6:.1f} MB ({len(gzip.compress(page)) / 1e6:.1f} MB gzipped)",
                "< 15 MB",
                note,
            )
        )
        browser = chromium()
        if browser is None:
            rows.append((f"report {scale}: report.html opened in Chromium", "no chromium found", "< 3 s", ""))
        else:
            url = (out / "report.html").resolve().as_uri()
            empty = min(open_in_chromium(browser, "data:text/html,", work / "profile") for _ in range(args.repeat))
            opened = min(open_in_chromium(browser, url, work / "profile") for _ in range(args.repeat))
            rows.append(
                (
                    f"report {scale}: report.html opened in headless Chromium (--dump-dom)",
                    f"{opened:.2f} s wall (empty page: {empty:.2f} s)",
                    "< 3 s",
                    note,
                )
            )

    width = [max(len(row[i]) for row in [("figure", "measured", "budget", "note"), *rows]) for i in range(4)]
    for row in [("figure", "measured", "budget", "note"), tuple("-" * w for w in width), *rows]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)))


if __name__ == "__main__":
    main()
