"""``skillbench import FILE... --out RUN_DIR``: external transcripts into a normal run folder."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from skillbench.benchmark import load_benchmark
from skillbench.config import RunConfig
from skillbench.core.errors import ConfigError
from skillbench.lab.config import compose_runs
from skillbench.lab.importer import HUMAN, IMPORTED, import_files, task_pattern


def import_config(benchmark: str, store: Path, agent: str) -> RunConfig:
    """The default config with the agent and judge renamed for what they are: imported transcripts, human labels."""
    cfg = compose_runs([f"benchmark={benchmark}", f"store.root={store}"])[0]
    return cfg.model_copy(update={
        "agent": cfg.agent.model_copy(update={"name": agent, "model": f"imported/{agent}", "simulated": False}),
        "judge": cfg.judge.model_copy(update={"name": HUMAN, "model": "human-labels", "simulated": False}),
        "user_sim": cfg.user_sim.model_copy(update={"name": IMPORTED, "model": IMPORTED, "simulated": False}),
    })


def import_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="skillbench import", description="Import transcripts produced elsewhere (docs/judge-lab.md).")
    parser.add_argument("files", nargs="+", type=Path, help="OpenAI-format or generic conversations: .jsonl (one a line) or .json (a list)")
    parser.add_argument("--out", type=Path, required=True, help="run folder to write (results.jsonl, summary.json, config.json)")
    parser.add_argument("--benchmark", default="starter", help="benchmark config whose skills metadata.skill_id may name")
    parser.add_argument("--store", type=Path, default=Path("outputs/store"), help="artifact store for the transcripts")
    parser.add_argument("--label", default=None, help="benchmark label of the imported rows (default: each record's "
                        "metadata.benchmark, else its file's name without suffix)")
    parser.add_argument("--agent", default="imported", help="agent name for conversations whose metadata names none")
    parser.add_argument("--task-pattern", default=None, metavar="REGEX",
                        help="group conversations into tasks by their ids: the group 'task' (else the first group) is the "
                        "task, an optional group 'trial' the trial, e.g. '(?P<task>.+)-trial(?P<trial>[0-9]+)'. The "
                        "conversations of one task are its trials: pass^k, and CIs that resample tasks (docs/judge-lab.md)")
    args = parser.parse_args(argv)
    pattern = task_pattern(args.task_pattern) if args.task_pattern is not None else None
    missing = [str(p) for p in args.files if not p.is_file()]
    if missing:
        raise ConfigError(f"no such file: {', '.join(missing)}. Fix: give .jsonl or .json files of conversations")
    if (args.out / "summary.json").exists():
        raise ConfigError(f"{args.out} already holds a finished run. Fix: choose another --out")
    cfg = import_config(args.benchmark, args.store, args.agent)
    items, errors = import_files(args.files, args.out, cfg, load_benchmark(cfg.benchmark.source), args.agent,
                                 args.label, pattern)
    for error in errors:
        print(f"skillbench import: {error}", file=sys.stderr)
    if not items:
        print("skillbench import: nothing imported", file=sys.stderr)
        return 2
    labelled = sum(1 for i in items if i.context.labels is not None and i.context.labels.passed is not None)
    tasks = len({i.task for i in items})
    grouped = f" of {tasks} task(s), up to {max(Counter(i.task for i in items).values())} trial(s) each" if tasks < len(items) else ""
    print(f"imported {len(items)} conversation(s){grouped} ({labelled} with a human pass/fail) into {args.out}; "
          f"{len(errors)} record(s) skipped. Next: skillbench report {args.out} · skillbench judges validate judge=... --run "
          f"{args.out} --out LAB (then skillbench report {args.out} LAB/runs --out LAB/report: each judge against the labels)")
    return 1 if errors else 0
