"""Validity figures of each judge against the known labels: sensitivity per perturbation, specificity on
controls, balanced accuracy with its CI (the exact interval of ``report/resampling.py`` with the source rollouts as the
clusters, so a source's variants count together), the rubric dimension that moved, and verdict flips under
label-preserving paraphrase."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from skillbench.core.records import OUTCOMES
from skillbench.core.rubric import DIMENSION_BY_NAME, DIMENSION_NAMES
from skillbench.lab.judging import JudgeRun, Reading
from skillbench.lab.labelled import CONTROL
from skillbench.lab.records import LabelledTranscript
from skillbench.report.defaults import DEFAULT_DRAWS, DEFAULT_SEED
from skillbench.report.human import (
    AGREEMENT_DATA_HEADERS,
    AGREEMENT_FOOTNOTE,
    AGREEMENT_HEADERS,
    COUNT_DATA_HEADERS,
    COUNT_HEADERS,
    agreement_cells,
    counts,
)
from skillbench.report.resampling import bootstrap_weights, mean_share_interval, share_interval
from skillbench.report.stats import cohen_kappa, fleiss_kappa, label_agreement
from skillbench.report.tables import Table, ci, num, pct


@dataclass
class LabSet:
    """The labelled transcripts arranged by source: each source's control and its variants."""

    items: list[LabelledTranscript]

    def __post_init__(self) -> None:
        self.sources = sorted({i.source_key for i in self.items})
        self.index = {s: n for n, s in enumerate(self.sources)}
        self.control = {i.source_key: i for i in self.items if i.perturbation == CONTROL}
        kinds: dict[str, str] = {}
        for item in self.items:
            kinds[item.perturbation] = item.label.kind
        self.defects = sorted(p for p, k in kinds.items() if k == "defect")
        self.paraphrases = sorted(p for p, k in kinds.items() if k == "paraphrase")

    def of(self, perturbation: str) -> list[LabelledTranscript]:
        return [i for i in self.items if i.perturbation == perturbation]


def detected(item: LabelledTranscript, reading: Reading, control: Reading | None, *, alone: bool = False) -> bool | None:
    """A defect counts as detected when the verdict fails, or when the labelled dimension scores below the
    same judge's score on the unperturbed control (a minor defect need not fail the pass rule).
    ``alone``: the verdict of the judge's scores without the hard rule checks, so a defect a rule check
    already fails is credited to the judge only if the judge saw it too."""
    verdict = reading.judge_passed if alone else reading.passed
    if verdict is None:
        return None
    if verdict is False:
        return True
    dim = item.label.dimension
    if dim and control is not None and dim in reading.scores and dim in control.scores:
        return reading.scores[dim] < control.scores[dim]
    return False


def _arrays(lab: LabSet, pairs: list[tuple[str, bool | None]]) -> tuple[np.ndarray, np.ndarray]:
    hits, total = np.zeros(len(lab.sources)), np.zeros(len(lab.sources))
    for source, value in pairs:
        if value is not None:
            total[lab.index[source]] += 1
            hits[lab.index[source]] += bool(value)
    return hits, total


@dataclass
class Rates:
    """A share over the labelled transcripts: how many, the rate, and per source rollout (the clusters) the hits and
    the transcripts counted."""

    n: int
    rate: float | None
    hits: np.ndarray
    total: np.ndarray

    @property
    def ci(self) -> tuple[float | None, float | None]:
        return share_interval(self.hits, self.total) if self.rate is not None else (None, None)


def _rates(lab: LabSet, pairs: list[tuple[str, bool | None]]) -> Rates:
    hits, total = _arrays(lab, pairs)
    n = int(total.sum())
    return Rates(n, float(hits.sum() / n) if n else None, hits, total)


def _ba(sens: Rates, spec: Rates) -> tuple[float | None, float | None, float | None]:
    """Balanced accuracy, the mean of two shares over the same sources, and its interval."""
    if sens.rate is None or spec.rate is None:
        return None, None, None
    low, high = mean_share_interval(np.column_stack([sens.hits, spec.hits]), np.column_stack([sens.total, spec.total]))
    return (sens.rate + spec.rate) / 2, low, high


@dataclass
class JudgeFigures:
    run: JudgeRun
    specificity: Rates
    pooled: Rates
    per_defect: dict[str, Rates]
    flips: Rates
    dim_moves: dict[str, dict[str, float]]
    flag_rate: dict[str, float | None]
    pooled_alone: Rates  # detection by the judge's scores alone (hard rule checks left out of the verdict)
    per_defect_alone: dict[str, Rates]


def figures(lab: LabSet, run: JudgeRun) -> JudgeFigures:
    controls = {s: run.readings.get(i.key) for s, i in lab.control.items()}
    spec = _rates(lab, [(s, None if r is None or r.passed is None else r.passed) for s, r in controls.items()])
    per_defect: dict[str, Rates] = {}
    per_defect_alone: dict[str, Rates] = {}
    moves: dict[str, dict[str, float]] = {}
    flags: dict[str, float | None] = {}
    pooled_pairs: list[tuple[str, bool | None]] = []
    pooled_alone: list[tuple[str, bool | None]] = []
    for name in lab.defects:
        pairs = [(i.source_key, detected(i, run.readings[i.key], controls.get(i.source_key))) for i in lab.of(name)]
        alone = [(i.source_key, detected(i, run.readings[i.key], controls.get(i.source_key), alone=True)) for i in lab.of(name)]
        pooled_pairs += pairs
        pooled_alone += alone
        per_defect[name] = _rates(lab, pairs)
        per_defect_alone[name] = _rates(lab, alone)
        drops: dict[str, list[int]] = defaultdict(list)
        flagged: list[bool] = []
        for item in lab.of(name):
            reading, control = run.readings[item.key], controls.get(item.source_key)
            if control is not None and reading.scores and control.scores:
                for dim in DIMENSION_NAMES:
                    drops[dim].append(control.scores[dim] - reading.scores[dim])
            if item.label.hallucination and reading.hallucinated is not None:
                flagged.append(reading.hallucinated)
        moves[name] = {dim: float(np.mean(values)) for dim, values in drops.items()}
        flags[name] = float(np.mean(flagged)) if flagged else None
    flip_pairs = [pair for name in lab.paraphrases for pair in paraphrase_figures(lab, run, name).pairs]
    return JudgeFigures(run, spec, _rates(lab, pooled_pairs), per_defect, _rates(lab, flip_pairs), moves, flags,
                        _rates(lab, pooled_alone), per_defect_alone)


def _most_moved(moves: dict[str, float]) -> str:
    if not moves:
        return "—"
    dim, value = max(moves.items(), key=lambda kv: kv[1])
    return f"{DIMENSION_BY_NAME[dim].header} ({value:+.2f})" if value > 0 else "none"


def _name(run: JudgeRun) -> str:
    return run.name + (" (sim)" if run.simulated else "")


def error_kinds(run: JudgeRun) -> str:
    """A judge's errors by kind: 'infra 12', 'infra 1, parse 2' ('none' without any)."""
    return ", ".join(f"{kind} {n}" for kind, n in run.errors().items() if n) or "none"


def error_cell(run: JudgeRun) -> str:
    """A judge's errors for a table cell: '0', or '12 (infra 12)', '3 (infra 1, parse 2)'."""
    total = sum(run.errors().values())
    return f"{total} ({error_kinds(run)})" if total else "0"


ERROR_FOOTNOTE = ("Judge errors: transcripts the judge gave no verdict on (infra: the endpoint failed, no key, timeouts; "
                  "parse: no valid scores in its replies). They are left out of every rate: never {counted}.")


def validity_tables(lab: LabSet, runs: list[JudgeRun]) -> list[Table]:
    """The lab's tables: a summary per judge, sensitivity per judge × perturbation, and the details."""
    figs = [figures(lab, run) for run in runs]
    summary = Table(
        key="lab_summary", title="Judge validity — summary per judge (labelled transcripts)",
        headers=["Judge", "Controls", "Specificity %", "False alarms %", "Defects", "Sensitivity %", "Judge alone %",
                 "Balanced acc. %", "BA 95% CI", "Paraphrase flips %", "Model calls", "Judge errors"],
        latex=True,
    )
    for f in figs:
        ba, low, high = _ba(f.pooled, f.specificity)
        false_alarm = None if f.specificity.rate is None else 1 - f.specificity.rate
        summary.display.append([_name(f.run), str(f.specificity.n), pct(f.specificity.rate), pct(false_alarm), str(f.pooled.n),
                                pct(f.pooled.rate), pct(f.pooled_alone.rate), pct(ba), ci(low, high), pct(f.flips.rate),
                                str(f.run.model_calls), error_cell(f.run)])
        errors = f.run.errors()
        summary.data.append([f.run.name, f.specificity.n, f.specificity.rate, false_alarm, f.pooled.n, f.pooled.rate,
                             f.pooled_alone.rate, ba, low, high, f.flips.rate, f.run.model_calls, sum(errors.values()),
                             errors["infra"], errors["parse"]])
    summary.data_headers = ["judge", "controls", "specificity", "false_alarm_rate", "defects", "sensitivity",
                            "sensitivity_judge_alone", "balanced_accuracy", "ba_ci_low", "ba_ci_high", "paraphrase_flip_rate",
                            "model_calls", "judge_errors", "judge_errors_infra", "judge_errors_parse"]
    matrix = Table(key="lab_sensitivity", title="Judge validity — detection rate (%) per perturbation × judge",
                   headers=["Perturbation", "n", *[_name(f.run) for f in figs]], latex=True)
    detail = Table(
        key="lab_detail", title="Judge validity — per judge × perturbation",
        headers=["Judge", "Perturbation", "n", "Detected %", "Judge alone %", "Balanced acc. %", "BA 95% CI",
                 "Labelled dimension", "Δ labelled", "Moved most", "Halluc. flag %"],
        data_headers=["judge", "perturbation", "n", "sensitivity", "sensitivity_judge_alone", "balanced_accuracy", "ba_ci_low",
                      "ba_ci_high", "labelled_dimension", "labelled_drop", "moved_most", "hallucination_flag_rate"],
    )
    for name in lab.defects:
        label = lab.of(name)[0].label
        n = len(lab.of(name))
        matrix.display.append([name, str(n), *[pct(f.per_defect[name].rate) for f in figs]])
        matrix.data.append([name, n, *[f.per_defect[name].rate for f in figs]])
        for f in figs:
            rates = f.per_defect[name]
            ba, low, high = _ba(rates, f.specificity)
            drop = f.dim_moves[name].get(label.dimension or "")
            alone = f.per_defect_alone[name].rate
            detail.display.append([_name(f.run), name, str(rates.n), pct(rates.rate), pct(alone), pct(ba), ci(low, high),
                                   label.dimension or "—", num(drop), _most_moved(f.dim_moves[name]),
                                   pct(f.flag_rate[name])])
            detail.data.append([f.run.name, name, rates.n, rates.rate, alone, ba, low, high, label.dimension, drop,
                                _most_moved(f.dim_moves[name]), f.flag_rate[name]])
    matrix.data_headers = ["perturbation", "n", *[f.run.name for f in figs]]
    specificity_row = ["control (specificity)", str(len(lab.control)), *[pct(f.specificity.rate) for f in figs]]
    matrix.display.append(specificity_row)
    matrix.data.append(["control (specificity)", len(lab.control), *[f.specificity.rate for f in figs]])
    note = (f"{len(lab.items)} labelled transcripts from {len(lab.sources)} clean source rollouts; detection = verdict "
            "fails, or the labelled dimension scores below the same judge's score on the source's control. Judge alone: "
            "the same with the verdict of the judge's scores only (hard rule checks left out), so what a rule check "
            "already fails is not credited to the judge. "
            "CIs: exact (Clopper–Pearson) at the effective sample size, source rollouts the clusters.")
    for table in (summary, matrix, detail):
        table.footnotes.append(note)
    summary.footnotes.append(ERROR_FOOTNOTE.format(counted="a detection, a miss, a pass or a false alarm"))
    paraphrases = paraphrase_table(lab, runs)
    return [summary, matrix, detail, *([paraphrases] if paraphrases is not None else [])]


@dataclass
class ParaphraseFigures:
    """One judge on one label-preserving paraphrase: verdict flips against the control and score shifts."""

    flips: Rates
    to_fail: int
    to_pass: int
    shifts: dict[str, float]
    pairs: list[tuple[str, bool | None]]  # (source, flipped) per item: pooled over paraphrases in the summary


def paraphrase_figures(lab: LabSet, run: JudgeRun, name: str) -> ParaphraseFigures:
    """Flips (either way) and the mean per-dimension score change, paraphrase minus control: a judge free of
    verbosity bias neither flips nor moves a score when the same actions are worded longer."""
    pairs: list[tuple[str, bool | None]] = []
    to_fail = to_pass = 0
    shifts: dict[str, list[int]] = defaultdict(list)
    for item in lab.of(name):
        control = run.readings.get(lab.control[item.source_key].key) if item.source_key in lab.control else None
        reading = run.readings[item.key]
        if control is None or control.passed is None or reading.passed is None:
            pairs.append((item.source_key, None))
            continue
        pairs.append((item.source_key, reading.passed != control.passed))
        to_fail += control.passed and not reading.passed
        to_pass += reading.passed and not control.passed
        if reading.scores and control.scores:
            for dim in DIMENSION_NAMES:
                shifts[dim].append(reading.scores[dim] - control.scores[dim])
    return ParaphraseFigures(_rates(lab, pairs), to_fail, to_pass,
                             {dim: float(np.mean(values)) for dim, values in shifts.items()}, pairs)


def _signed(value: float | None) -> str:
    """+0.12 / -0.12, and +0.00 for a tiny negative mean (not -0.00)."""
    return "—" if value is None else f"{round(value, 2) + 0.0:+.2f}"


def paraphrase_table(lab: LabSet, runs: list[JudgeRun]) -> Table | None:
    """Verdict stability under rewording and verbosity bias under lengthening, per judge × paraphrase."""
    if not lab.paraphrases:
        return None
    table = Table(
        key="lab_paraphrase", title="Paraphrase and verbosity bias — verdict flips and score shifts against the control",
        headers=["Judge", "Paraphrase", "n", "Flips %", "Flips 95% CI", "Pass → fail", "Fail → pass",
                 "Mean score Δ", "Largest shift"],
        data_headers=["judge", "paraphrase", "n", "flip_rate", "flip_ci_low", "flip_ci_high", "pass_to_fail", "fail_to_pass",
                      "mean_score_shift", "largest_shift_dimension", "largest_shift"],
        latex=True,
    )
    for name in lab.paraphrases:
        for run in runs:
            f = paraphrase_figures(lab, run, name)
            low, high = f.flips.ci
            mean = float(np.mean(list(f.shifts.values()))) if f.shifts else None
            dim, value = max(f.shifts.items(), key=lambda kv: abs(kv[1])) if f.shifts else (None, None)
            largest = "—" if dim is None or value is None else ("none" if value == 0 else f"{DIMENSION_BY_NAME[dim].header} ({value:+.2f})")
            table.display.append([_name(run), name, str(f.flips.n), pct(f.flips.rate), ci(low, high), str(f.to_fail),
                                  str(f.to_pass), _signed(mean), largest])
            table.data.append([run.name, name, f.flips.n, f.flips.rate, low, high, f.to_fail, f.to_pass, mean, dim, value])
    table.footnotes.append("Both paraphrases keep every call and the final state, so the right verdict is the control's. "
                           "Score Δ: paraphrase minus control, 1–5 scale, mean over pairs (and over the five dimensions for "
                           "the mean); a positive shift under paraphrase_lengthened means the judge favours longer answers "
                           "(verbosity bias). CIs: exact (Clopper–Pearson) at the effective sample size, source rollouts the clusters.")
    return table


def _mean_kappa(runs: list[JudgeRun], pick: str) -> float | None:
    """Mean pairwise Cohen's κ between judges on their pass decisions (first sample, or the majority)."""
    values = []
    for a_index, first in enumerate(runs):
        for second in runs[a_index + 1 :]:
            keys = [k for k in first.readings if getattr(first.readings[k], pick) is not None
                    and getattr(second.readings.get(k), pick, None) is not None]
            kappa = cohen_kappa([getattr(first.readings[k], pick) for k in keys], [getattr(second.readings[k], pick) for k in keys])
            if kappa is not None:
                values.append(kappa)
    return float(np.mean(values)) if values else None


def sampling_table(runs: list[JudgeRun]) -> Table | None:
    """With ``judge.samples > 1``: how often a judge's own samples agree, and how majority voting over
    samples moves the agreement (κ) between judges — the reference study's proposed remedy, measured."""
    if not any(run.samples > 1 for run in runs):
        return None
    table = Table(key="lab_samples", title="Multi-sample judging — within-judge agreement and κ between judges",
                  headers=["Judge", "Samples", "Items", "Sample agreement %", "Fleiss κ (samples)", "Verdicts changed by vote %"],
                  data_headers=["judge", "samples", "items", "sample_agreement", "fleiss_kappa", "changed_by_vote"], latex=True)
    for run in runs:
        rows = [r for r in run.readings.values() if len(r.sample_passes) == run.samples and run.samples > 1]
        if not rows:
            table.display.append([_name(run), str(run.samples), "0", "—", "—", "—"])
            table.data.append([run.name, run.samples, 0, None, None, None])
            continue
        pairs = [(a == b) for r in rows for i, a in enumerate(r.sample_passes) for b in r.sample_passes[i + 1 :]]
        counts = np.array([[sum(r.sample_passes), run.samples - sum(r.sample_passes)] for r in rows])
        agreement, kappa = float(np.mean(pairs)), fleiss_kappa(counts)
        changed = float(np.mean([r.passed != r.first_sample_passed for r in rows]))
        table.display.append([_name(run), str(run.samples), str(len(rows)), pct(agreement), num(kappa), pct(changed)])
        table.data.append([run.name, run.samples, len(rows), agreement, kappa, changed])
    single, voted = _mean_kappa(runs, "first_sample_passed"), _mean_kappa(runs, "passed")
    delta = None if single is None or voted is None else voted - single
    table.footnotes.append(f"Mean pairwise κ between judges: first sample {num(single)}, majority of samples {num(voted)} "
                           f"(Δ {num(delta)}).")
    return table


def human_table(runs: list[JudgeRun], human: dict[str, bool], units: dict[str, str] | None = None, *,
                draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED) -> Table:
    """Each judge's agreement with people's pass/fail labels: the confusion counts, accuracy, Cohen's κ,
    sensitivity, specificity and balanced accuracy with their CIs (:func:`skillbench.report.stats.label_agreement`,
    the same function, default draws and seed as the report's human-agreement table). ``units``: transcript key → its
    cluster (the conversation's scenario id: with an import's tasks, the task; default the key itself)."""
    units = units or {key: key for key in human}
    names = sorted({units[key] for key in human})
    index = {name: n for n, name in enumerate(names)}
    weights = bootstrap_weights(len(names), draws, seed)
    table = Table(key="lab_human", title="Agreement with human labels (pass/fail)",
                  headers=["Judge", "n", *COUNT_HEADERS, *AGREEMENT_HEADERS, "Judge errors"],
                  data_headers=["judge", "n", *COUNT_DATA_HEADERS, *AGREEMENT_DATA_HEADERS, "judge_errors", "judge_errors_infra", "judge_errors_parse"],
                  latex=True)
    for run in runs:
        keys = [k for k in human if k in run.readings and run.readings[k].passed is not None]
        found = label_agreement([human[k] for k in keys], [bool(run.readings[k].passed) for k in keys],
                                [index[units[k]] for k in keys], weights)
        cells = counts(found)
        shown, raw = agreement_cells(found)
        errors = run.errors()
        table.display.append([_name(run), str(len(keys)), *map(str, cells), *shown, error_cell(run)])
        table.data.append([run.name, len(keys), *cells, *raw, sum(errors.values()), errors["infra"], errors["parse"]])
    table.footnotes.append(AGREEMENT_FOOTNOTE.format(unit="scenarios (an import's tasks), as the report's")
                           + " Transcripts without a human pass/fail are left out.")
    table.footnotes.append(ERROR_FOOTNOTE.format(counted="an agreement or a disagreement"))
    return table


HumanLabel = bool | str | int


def judge_value(reading: Reading, name: str) -> HumanLabel | None:
    """A judge's value for a human label: ``outcome`` (task_completion), ``hallucinated_action``, or a dimension."""
    if name == "outcome":
        return reading.outcome
    if name == "hallucinated_action":
        return reading.hallucinated
    return reading.scores.get(name)


def _label_pairs(run: JudgeRun, human: dict[str, dict[str, HumanLabel]], name: str) -> list[tuple[HumanLabel, HumanLabel]]:
    """(human value, judge value) of label ``name`` on every transcript both gave it (the agreement and the
    confusion tables count the same pairs)."""
    pairs = [(labels[name], judge_value(run.readings[key], name)) for key, labels in human.items()
             if name in labels and key in run.readings]
    return [(h, j) for h, j in pairs if j is not None]


def human_labels_table(runs: list[JudgeRun], human: dict[str, dict[str, HumanLabel]]) -> Table | None:
    """Each judge against every other label people gave (outcome, hallucination flag, each rubric dimension):
    agreement, Cohen's κ (dimensions as categories 1–5), and the most frequent disagreement, human → judge."""
    names = ["outcome", "hallucinated_action", *DIMENSION_NAMES]
    present = [n for n in names if any(n in labels for labels in human.values())]
    if not present:
        return None
    table = Table(key="lab_human_labels", title="Agreement with human labels (outcome, hallucination flag, rubric dimensions)",
                  headers=["Judge", "Label", "n", "Agreement %", "κ", "Within 1 point %", "Mean Δ (judge − human)",
                           "Most frequent disagreement (human → judge)"],
                  data_headers=["judge", "label", "n", "agreement", "kappa", "within_one", "mean_difference",
                                "top_disagreement", "top_disagreement_count"], latex=True)

    for run in runs:
        for name in present:
            pairs = _label_pairs(run, human, name)
            if not pairs:
                continue  # the rule baseline gives no scores, flag or outcome
            theirs, ours = [h for h, _ in pairs], [j for _, j in pairs]
            agreement = sum(h == j for h, j in pairs) / len(pairs)
            kappa = cohen_kappa([str(h) for h in theirs], [str(j) for j in ours])
            numeric = name in DIMENSION_NAMES
            within = sum(abs(int(h) - int(j)) <= 1 for h, j in pairs) / len(pairs) if numeric else None
            mean = float(np.mean([int(j) - int(h) for h, j in pairs])) if numeric else None
            misses = Counter((str(h), str(j)) for h, j in pairs if h != j).most_common(1)
            top = f"{misses[0][0][0]} → {misses[0][0][1]} ({misses[0][1]})" if misses else "none"
            table.display.append([_name(run), name, str(len(pairs)), pct(agreement), num(kappa), pct(within),
                                  _signed(mean), top])
            table.data.append([run.name, name, len(pairs), agreement, kappa, within, mean,
                               f"{misses[0][0][0]} → {misses[0][0][1]}" if misses else None, misses[0][1] if misses else 0])
    table.footnotes.append("Only the labels people gave are compared; a judge's outcome is its task_completion, its flag "
                           "hallucinated_action. The rule checks give neither and are left out.")
    return table


# The categorical labels people give besides pass/fail, with every value a judge can return for them (the rubric's
# outcomes; the flag raised or not), in the order the confusion tables list them.
CONFUSION_LABELS: dict[str, tuple[HumanLabel, ...]] = {"outcome": OUTCOMES, "hallucinated_action": (True, False)}


def _value(value: HumanLabel) -> str:
    return {True: "flagged", False: "not flagged"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def human_confusion_tables(runs: list[JudgeRun], human: dict[str, dict[str, HumanLabel]]) -> list[Table]:
    """Per-label confusion counts, human value × judge value, for the outcome and the hallucination flag (a table
    each, when people gave that label): one row per judge × value the people used, one column per value a judge
    can give. The rule checks give neither and are left out; so is a transcript the judge gave no verdict on."""
    tables: list[Table] = []
    for name, values in CONFUSION_LABELS.items():
        given = [v for v in values if any(labels.get(name) == v and type(labels.get(name)) is type(v) for labels in human.values())]
        if not given:
            continue
        label = "Outcome" if name == "outcome" else "Hallucination flag"
        table = Table(key=f"lab_human_{name}", title=f"Confusion with human labels — {label.lower()} (human → judge, counts)",
                      headers=["Judge", f"Human {label.lower()}", "n", *[f"Judge: {_value(v)}" for v in values]],
                      data_headers=["judge", "human", "n", *[_value(v).replace(" ", "_") for v in values]], latex=True)
        for run in runs:
            pairs = _label_pairs(run, human, name)
            if not pairs:
                continue  # the rule baseline gives no outcome and no flag
            for value in given:
                row = [j for h, j in pairs if h == value]
                counts = [sum(1 for j in row if j == v) for v in values]
                table.display.append([_name(run), _value(value), str(len(row)), *map(str, counts)])
                table.data.append([run.name, value, len(row), *counts])
        table.footnotes.append(f"Rows: the {label.lower()} people gave; columns: the judge's ("
                               + ("its task_completion" if name == "outcome" else "its hallucinated_action")
                               + "). The diagonal is agreement. Transcripts the judge gave no verdict on are left out.")
        tables.append(table)
    return tables
