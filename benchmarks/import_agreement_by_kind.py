"""Why the simulated judges agree with the people only at chance on the imported fixture: verdicts per kind of
conversation, next to what the rule-based reader of the judge prompt finds in it.

Run after the worked example of docs/judge-lab.md (the verdicts are then in the store: 0 model calls):

    python tests/support/make_import_fixture.py
    skillbench import tests/support/import_fixture/conversations.jsonl tests/support/import_fixture/generic.json \\
        --out /tmp/nw/run --store /tmp/nw/store
    skillbench judges validate 'judge=glob(sim_*)' store.root=/tmp/nw/store --run /tmp/nw/run --out /tmp/nw/lab
    python benchmarks/import_agreement_by_kind.py /tmp/nw/run /tmp/nw/store
    python benchmarks/import_agreement_by_kind.py /tmp/nw/run /tmp/nw/store --as-steps   # the counterfactual below

``--as-steps`` judges the same conversations with the fixture's policy given as a benchmark skill states it
(verify, lookup, act, act steps with their tools) instead of the one prose step an import without ``skill_id`` has:
what the rule-based judges would see if the structure were not locked in prose (new prompts: 168 model calls).

Prints one Markdown table: per kind (the fixture generator's), how many the people pass, how many each judge
passes, how often any judge raises the hallucination flag, and the reader's findings (simulated judges read the
prompt through skillbench.simulated.judge_view; a workflow step of kind verify or act, claimed-action words).
"""

from __future__ import annotations

import dataclasses
import sys
from collections import defaultdict
from pathlib import Path

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.schema import WorkflowStep
from skillbench.lab.config import compose_runs
from skillbench.lab.importer import load_imported
from skillbench.lab.judging import Subject, imported_subject, judge_runs, subject_prompt
from skillbench.report.stats import cohen_kappa
from skillbench.simulated.judge_view import analyse, read_judge_prompt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from make_import_fixture import KINDS  # the fixture's own kinds, by conversation number


def kind_of(conversation_id: str) -> str:
    number = int(conversation_id.rsplit("-", 1)[1])
    if conversation_id.startswith("nw-generic-"):
        return "generic: claimed, no call" if number % 2 else "generic: whole policy"
    return KINDS[number % len(KINDS)]


# The fixture's policy (tests/support/make_import_fixture.py POLICY) as structured steps.
STEPS = [
    WorkflowStep(id="verify", kind="verify", instruction="Verify the account holder (account number and postcode).",
                 tools=["account.verify_holder"], collects=["account_number", "postcode"]),
    WorkflowStep(id="fetch", kind="lookup", instruction="Fetch the bill.", tools=["billing.get_bill"]),
    WorkflowStep(id="correct", kind="act", instruction="Correct the reading to the value the caller reads from the meter.",
                 tools=["billing.correct_reading"]),
    WorkflowStep(id="confirm", kind="act", instruction="Send a confirmation.", tools=["messaging.send_confirmation"]),
]


def as_steps(subject: Subject) -> Subject:
    return dataclasses.replace(subject, skill=subject.skill.model_copy(update={"steps": STEPS}))


def main(run: Path, store: Path, structured: bool) -> None:
    loaded = load_imported(run)
    configs = compose_runs(["judge=glob(sim_*)", f"store.root={store}"])
    subjects = [imported_subject(item) for item, _ in loaded]
    subjects = [as_steps(s) for s in subjects] if structured else subjects
    runs = judge_runs(configs, load_benchmark(configs[0].benchmark.source), subjects)
    groups: dict[str, list[int]] = defaultdict(list)
    for index, (item, _) in enumerate(loaded):
        groups[kind_of(item.rollout.scenario_id)].append(index)
    headers = ["Kind", "n", "People pass", *[f"{r.name} pass" for r in runs], "Flag raised", "Reader finds"]
    print("| " + " | ".join(headers) + " |\n|" + "---|" * len(headers))
    for kind, indices in groups.items():
        found: set[str] = set()
        for i in indices:
            _, prompt = subject_prompt(subjects[i], configs[0].judge.rubric_version)
            view = read_judge_prompt(prompt)
            f = analyse(view)
            found.add(f"step kinds {sorted({s.kind for s in view.steps})}; claims {f.unsupported_claims or 'none'}; "
                      f"acted before verifying {sorted(set(f.acted_before_verification)) or 'none'}; expected {view.expected or 'not given'}")
        people = sum(bool(loaded[i][1].passed) for i in indices)
        passes = [sum(bool(r.readings[subjects[i].key].passed) for i in indices) for r in runs]
        flags = sum(any(r.readings[subjects[i].key].hallucinated for r in runs) for i in indices)
        print(f"| {kind} | {len(indices)} | {people} | " + " | ".join(map(str, passes)) + f" | {flags} | {' / '.join(sorted(found))} |")
    people = [bool(row.passed) for _, row in loaded]
    print()
    for r in runs:
        ours = [bool(r.readings[subject.key].passed) for subject in subjects]
        kappa = cohen_kappa(people, ours)
        accuracy = 100 * sum(a == b for a, b in zip(people, ours, strict=True)) / len(people)
        print(f"{r.name}: accuracy {accuracy:.1f} %, κ {'—' if kappa is None else f'{kappa:.2f}'} (n = {len(people)})")
    print(f"\nmodel calls this run: {sum(r.model_calls for r in runs)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), "--as-steps" in sys.argv[3:])
