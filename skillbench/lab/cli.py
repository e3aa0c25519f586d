"""``skillbench judges validate [overrides]``: measure judges on transcripts with known labels.

The overrides are Hydra's (``'judge=glob(sim_*)'``, ``judge=a,b``, ``benchmark=full``, ``store.root=...``);
each judge of the sweep reads every labelled transcript. Verdicts are stored by verdict key, so a rerun
makes no model calls. Before any call, the main command's preflight checks every key and endpoint the
lab will use (exit 2, ``run.preflight=false`` skips it); a judge that gives no usable verdict at all
makes the command exit 1, with one line saying what failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from skillbench.benchmark import load_benchmark
from skillbench.config import RunConfig
from skillbench.core.errors import ConfigError
from skillbench.engine.results import ResultRow
from skillbench.lab.config import JUDGE_ROLES, SOURCE_ROLES, configs, plan_runs, preflight
from skillbench.lab.importer import Imported, human_labels, load_imported, write_judge_job
from skillbench.lab.judging import JudgeRun, imported_subject, judge_runs, lab_subjects, panel_run, rule_run
from skillbench.lab.labelled import build_labelled_set
from skillbench.lab.metrics import (
    LabSet,
    error_kinds,
    human_confusion_tables,
    human_labels_table,
    human_table,
    sampling_table,
    validity_tables,
)
from skillbench.lab.pages import detection_heatmap, human_confusion_plot, human_html, lab_html
from skillbench.lab.sources import source_rollouts
from skillbench.plan.preflight import preflight_problems, refusal
from skillbench.plan.sweep import PlannedJob
from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_SEED
from skillbench.report.tables import Table, markdown_table, md_escape
from skillbench.report.write import latex_table, table_csv
from skillbench.store import ArtifactStore, write_json_atomic

SIMULATED_NOTE = (
    "> **SIMULATED judges**: the sim_* judges are offline, deterministic stand-ins, not real judges. These figures "
    "show that the lab's machinery works and separates a strict from a lenient judge; they say nothing about any real model."
)
# --run: the tables compare each judge with people's labels; nothing there contrasts a strict and a lenient judge.
SIMULATED_NOTE_HUMAN = (
    "> **SIMULATED judges**: the sim_* judges are offline, deterministic stand-ins, not real judges. These figures "
    "show that the import and the comparison with human labels work end to end; how well a sim_* judge agrees with "
    "the people says nothing about any real model."
)


# ``judges validate --run``: each judge's verdicts on the imported conversations as job folders under <out>/runs, so
# ``skillbench report <import> <out>/runs`` shows them next to the human labels (and their agreement with them).
JUDGE_JOBS = "runs"


def write_judge_jobs(root: Path, imports: dict[Path, list[tuple[Imported, ResultRow]]], runs: list[JudgeRun]) -> int:
    """One job folder per imported run × judge (the panel too), rows as the import's with the judge's verdict."""
    written = 0
    members = sorted(r.name for r in runs if r.cfg is not None)
    for folder, pairs in imports.items():
        for run in runs:
            readings = {key: (r.passed, r.record, r.fail_reasons, r.judge_error, r.verdict_key) for key, r in run.readings.items()}
            panel = {"vote": "majority", "members": members} if run.cfg is None else None  # the lab's panel_run
            write_judge_job(root / folder.name / _folder_name(run.name), folder, pairs, run.name, run.cfg, readings, panel)
            written += 1
    return written


def _folder_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skillbench judges", description="Measure judges against known labels.")
    sub = parser.add_subparsers(dest="action", required=True)
    validate = sub.add_parser("validate", help="run judge configs over the labelled set and report their validity")
    validate.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. 'judge=glob(sim_*)' benchmark=starter")
    validate.add_argument("--agents", default="sim_careful",
                          help="comma-separated agent configs whose clean rollouts are perturbed (default: sim_careful)")
    validate.add_argument("--out", type=Path, default=Path("outputs/lab"), help="folder for lab.md, lab.json, lab.tex, *.csv")
    validate.add_argument("--run", action="append", type=Path, default=[],
                          help="an imported run folder (skillbench import): judge its conversations against the human labels")
    validate.add_argument("--draws", "--boot", dest="draws", type=int, default=DEFAULT_DRAWS,
                          help="bootstrap draws for the CIs that need them, κ (default %(default)s, as skillbench report)")
    validate.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default %(default)s)")
    return parser


def write_tables(out: Path, title: str, notes: list[str], tables: list[Table], meta: dict[str, object]) -> str:
    """Markdown (returned and written), LaTeX, CSV per table and JSON into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {title}", "", *notes]
    for table in tables:
        # titles and footnotes name judges, files and labels from data: escaped as the report escapes them
        lines += ["", f"## {md_escape(table.title)}", "", markdown_table(table.display, table.headers),
                  *("" if not n else f"\n{md_escape(n)}" for n in table.footnotes)]
    text = "\n".join(lines) + "\n"
    (out / "lab.md").write_text(text, encoding="utf-8")
    (out / "lab.tex").write_text("\n\n".join(latex_table(t) for t in tables) + "\n", encoding="utf-8")
    for table in tables:
        (out / f"{table.key}.csv").write_text(table_csv(table), encoding="utf-8")
    payload = {**meta, "tables": [{"key": t.key, "title": t.title, "columns": t.columns, "rows": t.data,
                                        "footnotes": t.footnotes} for t in tables]}
    write_json_atomic(out / "lab.json", json.loads(json.dumps(payload, default=str)))
    return text


def _refused(problems: list[str]) -> int:
    """The main command's refusal: every preflight problem on its own line, exit 2, nothing run or written."""
    for line in refusal(problems):
        print(f"skillbench judges: {line}", file=sys.stderr)
    return 2


def _failure(run: JudgeRun) -> str:
    """One line for a judge that gave no usable verdict: what failed and how to fix it. The preflight's own checks
    name a missing key or a dead endpoint (also when run.preflight=false skipped them up front)."""
    head = f"judge {run.name} returned no usable verdict (judge errors on all {len(run.readings)} transcripts: {error_kinds(run)})"
    causes = [] if run.cfg is None else preflight_problems([PlannedJob([], run.cfg, roles=JUDGE_ROLES)],
                                                           probe_timeout_s=run.cfg.run.probe_timeout_s)
    if causes:
        return f"{head}: {' '.join(causes)}"
    first = (run.first_error() or "no error text")[:200]
    if run.errors()["infra"]:
        judge = run.cfg.judge if run.cfg is not None else None
        where = "" if judge is None else f" ({judge.model}, key {judge.api_key_env or 'none'}, api_base {judge.api_base or 'the provider default'})"
        return (f"{head}: the endpoint failed: {first}. Fix: check the judge's model, key and endpoint{where}, then rerun "
                "(failed calls are not stored, so a rerun asks again).")
    reasons = run.error_reasons()
    why = ", ".join(f"{reason.replace('_', ' ')} {count}" for reason, count in reasons.items())
    if next(iter(reasons), "") == "cut_at_max_tokens":
        fix = "give the judge room to answer (judge.params.max_tokens): its replies were cut at the cap"
    else:
        fix = ("use a model that returns the rubric's JSON (docs/judges.md 'How a judge reply is read'), or raise "
               "judge.max_parse_retries")
    return (f"{head}: its replies gave no valid scores ({why}): {first}. Fix: {fix}; the raw replies are in the "
            "verdicts (judge_attempts), and a rerun asks the judge again.")


def judge_errors(runs: list[JudgeRun]) -> tuple[list[str], dict[str, dict[str, object]], int]:
    """Notes for the output, the per-judge counts for lab.json, and the exit code: 1 when a judge gave no usable
    verdict at all (its figures would be all '—'), with one line per such judge on stderr; 0 otherwise."""
    counted = {r.name: {**r.errors(), "total": sum(r.errors().values()), "judged": len(r.readings),
                        "first_error": r.first_error()} for r in runs}
    erring = [r for r in runs if sum(r.errors().values())]
    if not erring:
        return [], counted, 0
    notes = ["", "Judge errors (no verdict: left out of every figure, never a detection or a false alarm): "
             + "; ".join(f"{r.name} {sum(r.errors().values())} of {len(r.readings)} ({error_kinds(r)})" for r in erring) + "."]
    code = 0
    for run in erring:
        if run.readings and run.usable == 0:
            print(f"skillbench judges: {_failure(run)}", file=sys.stderr)
            code = 1
        else:
            print(f"skillbench judges: warning: judge {run.name} gave no verdict on {sum(run.errors().values())} of "
                  f"{len(run.readings)} transcripts ({error_kinds(run)}); they are left out of its figures. First: "
                  f"{(run.first_error() or '')[:200]}", file=sys.stderr)
    return notes, counted, code


def _judge_configs(overrides: list[str], sources: list[PlannedJob] | None = None) -> list[RunConfig] | int:
    """The judge configs of the sweep after the main command's preflight over them (and over the source configs,
    whose models produce missing source rollouts); an int is the exit code of a refusal."""
    judges = plan_runs(overrides, roles=JUDGE_ROLES)
    problems = preflight([*judges, *(sources or [])])
    if problems:
        return _refused(problems)
    return configs(judges)


def validate_imported(args: argparse.Namespace) -> int:
    """Judges on imported conversations, scored against the people's labels."""
    by_folder = {run: load_imported(run) for run in args.run}  # a bad folder fails before any config work
    loaded = [pair for pairs in by_folder.values() for pair in pairs]
    judge_configs = _judge_configs(args.overrides)
    if isinstance(judge_configs, int):
        return judge_configs
    subjects = [imported_subject(i) for i, _ in loaded]
    human = {i.rollout.key: row.passed for i, row in loaded if row.passed is not None}
    other_labels = {i.rollout.key: human_labels(i.context.labels) for i, _ in loaded if i.context.labels is not None}
    if not human:
        raise ConfigError(f"no human pass/fail labels in {', '.join(map(str, args.run))}. Fix: add metadata.labels.passed and import again")
    benchmark = load_benchmark(judge_configs[0].benchmark.source)
    runs = judge_runs(judge_configs, benchmark, subjects)
    rules = rule_run(subjects, judge_configs[0])
    everyone = [*runs, *([panel_run(runs)] if len(runs) > 1 else []), rules]
    calls = sum(r.model_calls for r in runs)
    error_notes, errors, code = judge_errors(runs)
    notes = [f"{len(subjects)} imported conversations ({len(human)} with a human pass/fail) from {', '.join(map(str, args.run))}; "
             f"judges: {', '.join(r.name for r in runs)}; model calls this run: {calls}.", *error_notes]
    if any(r.simulated for r in runs):
        notes += ["", SIMULATED_NOTE_HUMAN]
    meta = {"imported": len(subjects), "human_labels": len(human), "judges": [r.name for r in runs], "model_calls": calls,
            "judge_errors": errors, "simulated": any(r.simulated for r in runs)}
    units = {i.rollout.key: row.scenario_id for i, row in loaded}
    tables = [human_table(everyone, human, units, draws=args.draws, seed=args.seed)]
    detail = human_labels_table(everyone, other_labels)
    tables += [detail] if detail is not None else []
    tables += human_confusion_tables(everyone, other_labels)
    print(write_tables(args.out, "Judges against human labels", notes, tables, meta), end="")
    plot = human_confusion_plot(tables)
    (args.out / "lab.png").write_bytes(plot)
    page = human_html("Judges against human labels", notes, tables, {s.key: s.rollout for s in subjects}, human,
                      dict(other_labels), everyone, plot)
    (args.out / "lab.html").write_text(page, encoding="utf-8")
    written = write_judge_jobs(args.out / JUDGE_JOBS, by_folder, [*runs, *([everyone[-2]] if len(runs) > 1 else [])])
    print(f"\nwritten: {args.out}/lab.md, lab.json, lab.tex, lab.png, lab.html, {', '.join(t.key + '.csv' for t in tables)}; "
          f"{written} judge job folder(s) under {args.out / JUDGE_JOBS}. "
          f"Next: skillbench report {' '.join(map(str, args.run))} {args.out / JUDGE_JOBS} --out {args.out / 'report'}")
    return code


def validate_main(args: argparse.Namespace) -> int:
    if args.run:
        return validate_imported(args)
    agents = [a for a in args.agents.split(",") if a]
    if not agents:
        raise ConfigError("--agents names no agent config. Fix: e.g. --agents sim_careful")
    base = [o for o in args.overrides if not o.lstrip("+~").startswith("judge")]
    sources = plan_runs([*base, f"agent={','.join(agents)}"], roles=SOURCE_ROLES)
    judge_configs = _judge_configs(args.overrides, sources)
    if isinstance(judge_configs, int):
        return judge_configs
    source_configs = configs(sources)
    benchmark, rollouts, rollout_calls = source_rollouts(source_configs)
    store = ArtifactStore(judge_configs[0].store.root)
    items = build_labelled_set(benchmark, rollouts, store)
    if not items:
        raise ConfigError(f"no clean rollouts of {agents} on {judge_configs[0].benchmark.name} to perturb. "
                          "Fix: pick agents whose rollouts pass every rule check, e.g. --agents sim_careful")
    subjects = lab_subjects(benchmark, items)
    runs: list[JudgeRun] = judge_runs(judge_configs, benchmark, subjects)
    everyone = [*runs, *([panel_run(runs)] if len(runs) > 1 else []), rule_run(subjects, judge_configs[0])]
    lab = LabSet(items)
    tables = validity_tables(lab, everyone)
    samples = sampling_table(runs)
    tables += [samples] if samples is not None else []
    calls = sum(r.model_calls for r in runs) + rollout_calls
    error_notes, errors, code = judge_errors(runs)
    notes = [f"{len(items)} labelled transcripts ({len(lab.defects)} perturbation types, {len(lab.sources)} sources from "
             f"{', '.join(agents)} on {judge_configs[0].benchmark.name}); judges: {', '.join(r.name for r in runs)}; "
             f"model calls this run: {calls}." + (f" Of these, {rollout_calls} produced the missing source rollouts."
                                                   if rollout_calls else ""), *error_notes]
    if any(r.simulated for r in runs):
        notes += ["", SIMULATED_NOTE]
    meta = {"labelled_transcripts": len(items), "perturbations": lab.defects, "paraphrases": lab.paraphrases,
            "sources": len(lab.sources), "judges": [r.name for r in runs], "model_calls": calls, "rollout_model_calls": rollout_calls,
            "judge_errors": errors, "simulated": any(r.simulated for r in runs)}
    print(write_tables(args.out, "Judge validity lab", notes, tables, meta), end="")
    heatmap = detection_heatmap(tables[1])
    (args.out / "lab.png").write_bytes(heatmap)
    (args.out / "lab.html").write_text(lab_html("Judge validity lab", notes, tables, lab, everyone, heatmap), encoding="utf-8")
    print(f"\nwritten: {args.out}/lab.md, lab.json, lab.tex, lab.png, lab.html, {', '.join(t.key + '.csv' for t in tables)}")
    return code


def judges_main(argv: list[str]) -> int:
    # Options may come before, between or after the Hydra overrides: argparse leaves overrides that follow an
    # option unparsed, so they are collected here (anything else unknown is still an error).
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    unknown = [a for a in extra if a.startswith("-")]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.overrides = [*args.overrides, *extra]
    return validate_main(args)
