"""``skillbench view RUN_OR_SWEEP... [--filter TEXT]``: the terminal viewer (needs the ``view`` extra: textual)."""

from __future__ import annotations

import argparse
from pathlib import Path

from skillbench.core.errors import ConfigError
from skillbench.report.jobs import input_state

VIEW_HINT = "pip install 'skillbench[view]' (textual)"


def view_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="skillbench view", description="Browse the conversations of runs and sweeps in the "
                                     "terminal: rows filterable by agent, judge, verdict, path and disagreement; the "
                                     "transcript, rule checks and each judge's reading side by side (docs/viewer.md).")
    parser.add_argument("paths", nargs="+", type=Path, help="run or sweep folders (or folders of sweeps)")
    parser.add_argument("--filter", default="", help="initial filter, e.g. 'judge=sim_strict verdict=fail path=transfer "
                        "disagree' (in the viewer: / to edit it)")
    args = parser.parse_args(argv)
    from skillbench.view.data import ViewFilter, conversations_of, read_jobs, skipped_note

    try:
        initial = ViewFilter.parse(args.filter)
    except ValueError as exc:
        raise ConfigError(f"--filter: {exc}. Fix: e.g. --filter 'judge=sim_strict verdict=fail'") from None
    try:
        from skillbench.view.app import ViewerApp
    except ImportError:
        raise ConfigError(f"skillbench view needs textual, which is not installed. Fix: {VIEW_HINT}") from None
    jobs = read_jobs(args.paths)
    conversations, finder = conversations_of(jobs)
    # Said on stderr before the viewer takes the screen (still there when it quits), and in its status line.
    code = input_state("skillbench view", jobs, left_out=True)
    ViewerApp(conversations, finder, initial, skipped=skipped_note(jobs)).run()
    return code
