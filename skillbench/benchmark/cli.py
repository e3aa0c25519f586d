"""``skillbench benchmark build | lint | stats``: generate, check and describe benchmark data.

Also runnable as ``python -m skillbench.benchmark.cli ...``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from skillbench.benchmark.lint import format_report, lint_benchmark
from skillbench.benchmark.stats import format_stats, read_contents
from skillbench.core.errors import SkillbenchError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skillbench benchmark", description="Build, lint or describe benchmark data.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{build,lint,stats}")
    build = sub.add_parser("build", help="regenerate the full benchmark from its templates (same seed, same bytes)")
    build.add_argument("--seed", type=int, default=None, help="generation seed (default: the one the shipped data uses)")
    build.add_argument("--out", type=Path, default=None, help="folder to write (default: the packaged 'full' benchmark)")
    build.add_argument("--check", action="store_true",
                       help="write nothing; exit 1 if the folder differs from a fresh build (for CI)")
    lint = sub.add_parser("lint", help="check a benchmark folder; one line per problem, exit 1 if any")
    lint.add_argument("source", nargs="?", default="full", help="packaged name (full, starter) or folder (default: full)")
    stats = sub.add_parser("stats", help="count scenarios by industry, category, path, persona and tool server")
    stats.add_argument("source", nargs="?", default="full", help="packaged name (full, starter) or folder (default: full)")
    return parser


def _build(args: argparse.Namespace) -> int:
    # Imported here: the generator loads faker (~0.2-0.4 s), which lint, stats and --help do not need.
    from skillbench.benchmark.generator.generate import (
        DEFAULT_OUT,
        DEFAULT_SEED,
        build_benchmark,
        differences,
        write_benchmark,
    )

    seed = DEFAULT_SEED if args.seed is None else args.seed
    out: Path = args.out or DEFAULT_OUT
    started = time.perf_counter()
    built = build_benchmark(seed=seed)
    if args.check:
        changed = differences(built, out)
        for relative in changed:
            print(f"{out / relative}: differs from a fresh build (seed {seed})")
        print(f"build --check: {len(changed)} file(s) differ" if changed else f"build --check: {out} matches a fresh build")
        return 1 if changed else 0
    files = write_benchmark(built, out)
    size = sum(len(text.encode()) for text in files.values())
    print(
        f"wrote {len(files)} files ({size / 1e6:.1f} MB) to {out}: {len(built.skills)} skills, "
        f"{sum(len(s.tools) for s in built.servers)} tools on {len(built.servers)} servers, {len(built.scenarios)} scenarios "
        f"selected from {len(built.candidates)} candidates, seed {seed}, in {time.perf_counter() - started:.1f} s"
    )
    return 0


def _lint(args: argparse.Namespace) -> int:
    report = lint_benchmark(args.source)
    for line in format_report(report):
        print(line)
    return 1 if report.problems else 0


def _stats(args: argparse.Namespace) -> int:
    for line in format_stats(read_contents(args.source)):
        print(line)
    return 0


def benchmark_main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return {"build": _build, "lint": _lint, "stats": _stats}[args.command](args)


def main() -> int:
    try:
        return benchmark_main(sys.argv[1:])
    except SkillbenchError as exc:
        print(f"skillbench benchmark: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
