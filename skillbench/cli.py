"""The ``skillbench`` command: ``run`` (the Hydra app) plus registered subcommands (report, diff, benchmark...)."""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Callable

from skillbench.core.collector import quick_exit
from skillbench.core.errors import SkillbenchError

# Subcommand name → "module:function" taking argv (list[str]) and returning an exit code.
# Modules are imported only when their command runs, so `skillbench --help` stays fast.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("skillbench.app:main_argv", "run a job or a sweep (same as python -m skillbench)"),
    "report": ("skillbench.report.cli:report_main", "tables, agreement, plots and HTML from job folders"),
    "rescore": ("skillbench.report.cli:rescore_main", "apply another pass rule to stored verdicts (no model calls)"),
    "diff": ("skillbench.report.cli:diff_main", "compare two runs or sweeps"),
    "compare": ("skillbench.report.cli:compare_main", "paired comparison of agents on the same scenarios, per judge"),
    "benchmark": ("skillbench.benchmark.cli:benchmark_main", "build, lint or describe benchmark data"),
    "mine": ("skillbench.mining.cli:mine_main", "mine workflows from transcripts into a benchmark (docs/pipeline.md)"),
    "import": ("skillbench.lab.import_cli:import_main", "import transcripts produced elsewhere as a run folder"),
    "judges": ("skillbench.lab.cli:judges_main", "judge validity lab: measure judges on transcripts with known labels"),
    "view": ("skillbench.view.cli:view_main", "browse conversations, rule checks and judges' readings in the terminal"),
}


# Old names kept for a while: each prints one line naming the new command, then runs it.
DEPRECATED_ALIASES: dict[str, str] = {"build": "mine"}


def _load(target: str) -> Callable[[list[str]], int]:
    module, function = target.split(":")
    return getattr(importlib.import_module(module), function)


def main(argv: list[str] | None = None) -> int:
    quick_exit()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DEPRECATED_ALIASES:
        new = DEPRECATED_ALIASES[argv[0]]
        print(f"skillbench: `skillbench {argv[0]}` is deprecated and will be removed; use `skillbench {new}`.", file=sys.stderr)
        argv[0] = new
    if argv and argv[0] not in {"-h", "--help"} and argv[0] not in SUBCOMMANDS:  # one line, not argparse's usage
        near = difflib.get_close_matches(argv[0].lstrip("-"), sorted(SUBCOMMANDS), n=1, cutoff=0.6)
        print(f"skillbench: unknown command {argv[0]!r}{f': did you mean {near[0]}?' if near else '.'} Fix: "
              f"skillbench <{'|'.join(sorted(SUBCOMMANDS))}> ... (skillbench --help says what each does).", file=sys.stderr)
        return 2
    if not argv or argv[0] in {"-h", "--help"}:
        parser = argparse.ArgumentParser(prog="skillbench", description="Measure how well LLMs execute customer-support skills.")
        parser.add_argument("command", choices=sorted(SUBCOMMANDS), help="; ".join(f"{k}: {v[1]}" for k, v in SUBCOMMANDS.items()))
        parser.parse_args(argv[:1])
        return 2
    command, rest = argv[0], argv[1:]
    from skillbench.config.secrets import argument_credentials, refusal

    credentials = argument_credentials(rest)
    if credentials:  # any subcommand: a key on the command line ends up in shell history, logs and files
        print(f"skillbench {command}: {refusal(credentials, 'on the command line')}", file=sys.stderr)
        return 2
    if command == "run" and sys.stderr.isatty() and not any(a.startswith(("-sc", "--shell-completion")) for a in rest):  # as `python -m skillbench`: importing the libraries takes seconds
        print("skillbench: starting (loading libraries, composing the config)...", file=sys.stderr, flush=True)
    try:
        return int(_load(SUBCOMMANDS[command][0])(rest) or 0)
    except SkillbenchError as exc:
        print(f"skillbench {command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
