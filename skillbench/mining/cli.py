"""``skillbench mine [overrides]``, ``skillbench mine report DIR``, ``skillbench mine measure star|abcd``."""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

from skillbench.core.errors import ConfigError
from skillbench.mining.config import CONF_DIR, load_config

# Each command imports its machinery when it runs (the pipeline: scikit-learn and the model clients, ~4 s; the
# end-to-end comparison: the engine), so `skillbench mine --help` and argument errors answer at once.


def report_main(argv: list[str]) -> int:
    from skillbench.mining.pipeline import read_summary, reused_text

    parser = argparse.ArgumentParser(prog="skillbench mine report", description="The stage-by-stage summary of a mining run.")
    parser.add_argument("out", help="the mining run's output folder (its out=)")
    args = parser.parse_args(argv)
    path = Path(args.out) / "_mining" / "summary.json"
    if not path.is_file():
        raise ConfigError(f"{path}: no mining summary. Fix: run `skillbench mine out={args.out}` first.")
    stages = read_summary(Path(args.out)).stages
    rows = [[s.stage, s.items_in, s.items_out, reused_text(s), ", ".join(f"{k}: {v}" for k, v in s.dropped.items()) or "-",
             f"{s.seconds:.2f}", s.model_calls, f"{s.cost_usd:.4f}"] for s in stages]
    print(tabulate(rows, headers=["stage", "in", "out", "reused", "dropped (reason: n)", "seconds", "model calls", "cost $"]))
    for stage in stages:
        if stage.notes:
            print(f"{stage.stage}: {stage.notes}")
    return 0


def measure_main(argv: list[str]) -> int:
    from skillbench.mining.measure import measure_abcd, measure_star

    parser = argparse.ArgumentParser(prog="skillbench mine measure", description="Clustering and workflows vs gold labels.")
    parser.add_argument("dataset", choices=["star", "abcd"], help="the labelled data set")
    parser.add_argument("--path", required=True, help="the data set's folder (STAR: the one holding dialogues/; ABCD: "
                                                      "the one holding kb.json); skillbench ships neither")
    parser.add_argument("--per-purpose", type=int, default=None, help="first N dialogues per task (default: all)")
    parser.add_argument("--k", type=int, default=None, help="fixed k (default: silhouette over --k-min..--k-max)")
    parser.add_argument("--k-min", type=int, default=18)
    parser.add_argument("--k-max", type=int, default=30)
    parser.add_argument("--text-types", type=int, default=40, help="action types of the text-only path")
    parser.add_argument("--e2e-tasks", type=int, default=None,
                        help="end to end (mined vs gold benchmarks through the engine): first N tasks (default all; 0 skips it)")
    parser.add_argument("--e2e-per-task", type=int, default=4, help="end to end: scenarios per task and side")
    parser.add_argument("--e2e-mined", choices=["global", "purpose"], default="global",
                        help="end to end: a task's mined workflow from the global clustering (labels hidden, as flow_similarity) "
                             "or from clustering within the task's own dialogues (as `skillbench mine` does)")
    parser.add_argument("--e2e-agents", default="sim_careful,sim_sloppy,sim_reckless",
                        help="end to end: agents (conf/agent names), best first")
    parser.add_argument("--e2e-judge", default="sim_balanced", help="end to end: the judge (conf/judge name)")
    parser.add_argument("--e2e-user-sim", default="sim_user", help="end to end: the user simulator (conf/user_sim name)")
    parser.add_argument("--work", default=None,
                        help="end to end: folder for the two benchmarks, jobs and store (default: a temporary folder; "
                             "a kept folder makes a rerun reuse every conversation)")
    args = parser.parse_args(argv)
    if args.e2e_tasks is not None and args.e2e_tasks < 0:
        raise ConfigError(f"--e2e-tasks {args.e2e_tasks}: must be 0 (skip) or more. Fix: e.g. --e2e-tasks 6.")
    if args.e2e_per_task < 1:
        raise ConfigError(f"--e2e-per-task {args.e2e_per_task}: must be at least 1. Fix: e.g. --e2e-per-task 4.")
    if args.e2e_tasks != 0:
        from skillbench.mining.compare import check_names

        check_names(_agents(args), args.e2e_judge, args.e2e_user_sim)  # a typo stops here, not after the measuring
    root = Path(args.path)
    if args.dataset == "abcd":
        if not (root / "kb.json").is_file():
            raise ConfigError(f"{root}: no ABCD kb.json. Fix: pass --path to the ABCD data.")
        found = measure_abcd(root)
        print(f"dialogues {found['dialogues']}")
        print(f"flow_similarity {found['flow_similarity']}")
        for name, value in found["per_dialogue"].items():
            print(f"flow_similarity[{name}] {value}")
        if args.e2e_tasks != 0:
            workflows = found["workflows"]
            tasks = sorted(workflows["mined"])[:args.e2e_tasks]
            _end_to_end({t: workflows["mined"][t] for t in tasks}, {t: workflows["gold"][t] for t in tasks}, args)
        return 0
    if not (root / "dialogues").is_dir():
        raise ConfigError(f"{root}: no STAR dialogues/ folder. Fix: pass --path to the STAR data.")
    result = measure_star(root, per_purpose=args.per_purpose, k=args.k, k_min=args.k_min, k_max=args.k_max,
                          text_types=args.text_types, mined_by=args.e2e_mined)
    print(f"dialogues {result['dialogues']} tasks {result['tasks']}")
    main = result["annotated"]
    print(f"ARI {main['ARI']}")
    print(f"NMI {main['NMI']}")
    print(f"flow_similarity {main['flow_similarity']}")
    print(f"k {main['k']} silhouette {main['silhouette']}")
    text = result["text"]
    print(f"text_only ARI {text['ARI']} NMI {text['NMI']} k {text['k']} (flow similarity not comparable: "
          f"text-only action types are unnamed clusters)")
    tools = result["text_tools"]
    print(f"text_tools ARI {tools['ARI']} NMI {tools['NMI']} k {tools['k']} tool_accuracy {tools['tool_accuracy']} "
          f"(as extractor=text builds: turn types and the tools predicted from the words)")
    for task, value in main["per_task"].items():
        print(f"flow_similarity[{task}] {value}")
    if args.e2e_tasks != 0:
        workflows = result["workflows"]
        tasks = sorted(set(workflows["mined"]) & set(workflows["gold"]))[:args.e2e_tasks]
        _end_to_end({t: workflows["mined"][t] for t in tasks}, {t: workflows["gold"][t] for t in tasks}, args)
    return 0


def _agents(args: argparse.Namespace) -> list[str]:
    return [a.strip() for a in args.e2e_agents.split(",") if a.strip()]


def _end_to_end(mined: dict, gold: dict, args: argparse.Namespace) -> None:  # type: ignore[type-arg]
    from skillbench.mining.compare import compare, lines

    agents = _agents(args)
    with tempfile.TemporaryDirectory(prefix="skillbench-e2e-") as scratch:
        work = Path(args.work) if args.work else Path(scratch)
        result = compare(mined, gold, work, per_task=args.e2e_per_task, agents=agents, judge=args.e2e_judge,
                         user_sim=args.e2e_user_sim, say=lambda line: print(line, file=sys.stderr, flush=True))
        for line in lines(result):
            print(line)
        if args.work:
            print(f"e2e files: {work} (comparison.json, gold/, mined/, jobs/)")


def mine_main(argv: list[str]) -> int:
    if argv and argv[0] == "report":
        return report_main(argv[1:])
    if argv and argv[0] == "measure":
        return measure_main(argv[1:])
    if argv and argv[0] in {"-h", "--help"}:
        print("usage: skillbench mine [key=value ...] | report OUT | measure star|abcd [--help]\n"
              f"options: the groups in {CONF_DIR}; e.g. skillbench mine ingest=star ingest.path=DATA out=DIR ingest.per_purpose=20")
        return 0
    from skillbench.mining.pipeline import MiningRun

    cfg = load_config(argv)
    if cfg.stage in {"all", "ingest"} and not cfg.ingest.path:  # before the preflight or any folder is made
        raise ConfigError(cfg.ingest.missing_path())
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    logging.getLogger("skillbench.mining").setLevel(logging.INFO)
    MiningRun(cfg).run()
    print(f"benchmark written to {cfg.out} (summary: skillbench mine report {cfg.out})")
    return 0
