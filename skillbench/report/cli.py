"""``skillbench report | rescore | diff``: each takes argv (without the subcommand) and returns an exit code."""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from skillbench.core.errors import SkillbenchError
from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_FORMATS, DEFAULT_SEED, FORMATS
from skillbench.report.jobs import (
    ReportError,
    input_state,
    load_jobs,
    write_job,
)
from skillbench.store import write_json_atomic

# The commands import their machinery (pandas, scipy, matplotlib, Hydra's compose) after parsing, so
# `--help` and argument errors answer at once (tests/test_fast_start.py).

RESCORED_JOBS_DIR = "jobs"


def _formats(text: str) -> list[str]:
    chosen = [f.strip() for f in text.split(",") if f.strip()]
    unknown = sorted(set(chosen) - set(FORMATS))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown format(s) {unknown}; choose from {','.join(FORMATS)}")
    return chosen


def _report_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, help="output folder (default: DIR/report for one DIR)")
    parser.add_argument(
        "--formats",
        type=_formats,
        default=list(DEFAULT_FORMATS),
        help=f"comma-separated subset of {','.join(FORMATS)} (default: all but parquet, which needs skillbench[parquet])",
    )
    parser.add_argument(
        "--draws", type=int, default=DEFAULT_DRAWS, help="bootstrap draws for the CIs (default %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default %(default)s)")
    parser.add_argument(
        "--no-transcripts", action="store_true", help="leave transcripts out of report.html (smaller file)"
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the Markdown tables")


def _quiet_broken_pipe(command: Callable[[list[str]], int]) -> Callable[[list[str]], int]:
    """`skillbench report DIR | head` must end quietly, not with a traceback."""

    @functools.wraps(command)
    def wrapper(argv: list[str]) -> int:
        try:
            return command(argv)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
            return 1

    return wrapper


@_quiet_broken_pipe
def report_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="skillbench report",
        description="Tables (pass rate, rubric, judge agreement), plots and an HTML page from job or sweep folders.",
    )
    parser.add_argument("dirs", nargs="+", type=Path, help="job folders, sweep folders or folders of sweeps")
    _report_options(parser)
    args = parser.parse_args(argv)
    from skillbench.report.write import make_report, markdown

    start = time.perf_counter()
    report, written = make_report(
        args.dirs,
        args.out,
        formats=args.formats,
        draws=args.draws,
        seed=args.seed,
        transcripts=not args.no_transcripts,
    )
    if not args.quiet:  # report.md is what the terminal shows: read back, not built again
        print(written["markdown"].read_text(encoding="utf-8") if "markdown" in written else markdown(report))
    out = next(iter(written.values())).parent if written else args.out
    print(f"Report written to {out} ({', '.join(written)}) in {time.perf_counter() - start:.1f} s.")
    from skillbench.report.build import ReportContext

    return input_state("skillbench report", ReportContext.of(report).jobs)


# Exit code of a reader whose output was written but whose input had damaged lines (skipped, named on stderr).




def _split(items: list[str]) -> tuple[list[Path], list[str]]:
    """Folders and Hydra overrides may come in any order: an existing folder is a folder."""
    dirs, overrides = [], []
    for item in items:
        if Path(item).is_dir():
            dirs.append(Path(item))
        elif "=" in item or item.startswith("~"):
            overrides.append(item)
        else:
            raise ReportError(
                f"{item}: not a folder and not an override. Fix: pass DIR... pass_rule=<preset> or pass_rule.<field>=<value>."
            )
    if not dirs:
        raise ReportError("no run or sweep folder given. Fix: skillbench rescore DIR pass_rule=strict")
    return dirs, overrides


@_quiet_broken_pipe
def rescore_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="skillbench rescore",
        description="Apply another pass rule to the stored rule checks and judge scores and write the new tables. "
        "Makes no model calls.",
        epilog="examples: skillbench rescore outputs/multirun/<stamp> pass_rule=strict\n"
        "          skillbench rescore outputs/multirun/<stamp> pass_rule.min_guardrail_compliance=5\n"
        "          skillbench rescore outputs/multirun/<stamp> --recheck   (new or changed rule checks)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "items", nargs="+", metavar="DIR_OR_OVERRIDE", help="folders, then Hydra overrides of pass_rule"
    )
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="recompute the rule checks from the stored rollouts with the checks registered now, then apply the "
        "pass rule (each job's own, unless overridden). The judge scores are kept, not re-judged, although the "
        "judge saw the old check lines in its prompt.",
    )
    _report_options(parser)
    args = parser.parse_intermixed_args(argv)  # overrides may follow --recheck
    from skillbench.report.build import build_report
    from skillbench.report.panel_verdicts import panel_jobs
    from skillbench.report.rescore import compare, own_rules, rescore_jobs, resolve_rules, slug, write_jobs
    from skillbench.report.write import default_out, markdown, write_report

    start = time.perf_counter()
    dirs, overrides = _split(args.items)
    jobs = load_jobs(list(dirs))
    rules = own_rules(jobs) if args.recheck and not overrides else resolve_rules(jobs, overrides)
    names = sorted({rule.name for rule in rules.values()})
    out = args.out or default_out(
        dirs, "rescore_" + slug(names[0] if len(names) == 1 else "_".join(overrides))
    )
    source = (
        "the rule checks are recomputed from the stored rollouts; the judge scores in results.jsonl are kept"
        if args.recheck
        else "the rule checks and judge scores stored in results.jsonl are re-evaluated"
    )
    print(f"Rescoring {len(jobs)} job(s) with pass rule {', '.join(names)}. No model calls: {source}.")
    # Everything that can refuse (a rule, a recheck, a panel, the report) runs before the first file is written:
    # a refused rescore leaves no half folder.
    rescored = rescore_jobs(jobs, rules, out / RESCORED_JOBS_DIR, recheck=args.recheck)
    panels = panel_jobs(rescored, out / RESCORED_JOBS_DIR)  # pass_rule.panel: a column per agent, no model call
    if panels:
        print(f"Panel verdicts: {len(panels)} panel column(s) ({', '.join(sorted({p.judge for p in panels}))}).")
    report, frame = build_report(
        rescored + panels,
        title=f"skillbench report — rescored with {', '.join(names)}",
        sources=[str(d) for d in dirs],
        draws=args.draws,
        seed=args.seed,
    )
    report.rescore = {
        "rule_name": ", ".join(names),
        "overrides": overrides,
        "rules": {
            str(new.path): rules[old.path].model_dump(mode="json")
            for old, new in zip(jobs, rescored, strict=True)
        },
        "model_calls": 0,
        "recheck": args.recheck,
        "changes": compare(jobs, rescored),
    }
    write_jobs(rescored, {new.path: old.path for old, new in zip(jobs, rescored, strict=True)})
    for panel in panels:
        write_job(panel)
    written = write_report(
        report, frame, rescored + panels, out, formats=args.formats, transcripts=not args.no_transcripts
    )
    if not args.quiet:  # report.md is what the terminal shows: read back, not built again
        print(written["markdown"].read_text(encoding="utf-8") if "markdown" in written else markdown(report))
    print(
        f"Rescored jobs in {out / RESCORED_JOBS_DIR}; report in {out} ({', '.join(written)}) "
        f"in {time.perf_counter() - start:.1f} s. No model calls were made."
    )
    return input_state("skillbench rescore", jobs)


@_quiet_broken_pipe
def diff_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="skillbench diff",
        description="Compare two runs or sweeps: config changes, pass-rate deltas per cell (exact McNemar on "
        "shared scenarios) and every flipped verdict with the checks or scores that flipped it.",
    )
    parser.add_argument("a", type=Path, help="run or sweep folder A (the baseline)")
    parser.add_argument("b", type=Path, help="run or sweep folder B")
    parser.add_argument(
        "--out", "--json", dest="out", type=Path,
        help="where to write the JSON: a .json file, or a folder (gets diff_<A>__<B>.json). Default: none written",
    )
    parser.add_argument(
        "--max-flips", type=int, default=50, help="flipped verdicts listed in the terminal (all go to JSON)"
    )
    parser.add_argument(
        "--exit-code", action="store_true", help="exit 1 when anything differs (like git diff --exit-code)"
    )
    args = parser.parse_args(argv)
    from skillbench.report.diff import diff_jobs, diff_markdown
    from skillbench.report.rescore import slug

    a_jobs, b_jobs = load_jobs([args.a]), load_jobs([args.b])
    diff = diff_jobs(a_jobs, b_jobs, [str(args.a)], [str(args.b)])
    print(diff_markdown(diff, max_flips=args.max_flips))
    if args.out is not None:  # written only where asked: never into the current folder unasked
        target = args.out
        if target.suffix != ".json":
            target = target / f"diff_{slug(args.a.resolve().name)}__{slug(args.b.resolve().name)}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(target, diff.model_dump(mode="json"))
        print(f"JSON written to {target}.")
    damaged = input_state("skillbench diff", a_jobs + b_jobs)
    return damaged or (1 if args.exit_code and not diff.identical else 0)


def main(argv: list[str] | None = None) -> int:
    """``python -m skillbench.report [report|rescore|diff] ...`` (report is the default)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"report": report_main, "rescore": rescore_main, "diff": diff_main}
    command = commands.get(argv[0]) if argv else None
    try:
        return command(argv[1:]) if command else report_main(argv)
    except SkillbenchError as exc:
        print(f"skillbench report: error: {exc}", file=sys.stderr)
        return 2


@_quiet_broken_pipe
def compare_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="skillbench compare",
        description="Paired comparison of two or more agents on the same scenarios (and trials), under each judge: "
        "flips, exact McNemar, paired bootstrap CI of the difference, Holm-corrected verdict per pair, and a ranking "
        "with bootstrap rank intervals. Two runs of the same agent are told apart by their folder names.",
    )
    parser.add_argument("dirs", nargs="+", type=Path, help="runs, sweeps or folders of sweeps (together: 2+ agents)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level after Holm (default %(default)s)")
    parser.add_argument(
        "--draws", type=int, default=DEFAULT_DRAWS, help="bootstrap draws for CIs and ranks (default %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default %(default)s)")
    parser.add_argument("--max-flips", type=int, default=5, help="flipped scenarios named per pair and judge")
    parser.add_argument(
        "--out", "--json", dest="out", type=Path,
        help="where to write the JSON: a .json file, or a folder (gets compare.json). Default: none written",
    )
    args = parser.parse_args(argv)
    if not 0 < args.alpha < 1:
        raise ReportError(f"--alpha {args.alpha} is not between 0 and 1. Fix: e.g. --alpha 0.05")
    from skillbench.report.compare import compare_markdown, compare_runs

    comparison, jobs = compare_runs(list(args.dirs), alpha=args.alpha, draws=args.draws, seed=args.seed)
    print(compare_markdown(comparison, max_flips=args.max_flips))
    if args.out is not None:
        target = args.out if args.out.suffix == ".json" else args.out / "compare.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(target, comparison.model_dump(mode="json"))
        print(f"JSON written to {target}.")
    return input_state("skillbench compare", jobs)
