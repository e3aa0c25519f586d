"""Judge errors by reason, per judge: why a judge's replies gave no verdict (docs/judges.md).

The reasons are the verdict reader's (skillbench/prompts/verdict.py) and the judge runner's: cut at
max_tokens, no JSON object, wrong keys, wrong types, the transcript echoed, an empty reply, refused by the
judge's server. The raw replies themselves are in each row (``judge_attempts``) and on the HTML page.
"""

from __future__ import annotations

from collections import Counter

from skillbench.prompts.verdict import REASON_WORDS
from skillbench.report.build import ReportContext
from skillbench.report.tables import Table, report_table

OTHER = "other"  # rows written before reasons were recorded
REASONS: tuple[str, ...] = (*REASON_WORDS, OTHER)


@report_table("judge_errors", title="Judge errors by reason — why a judge's replies gave no verdict", order=25)
def judge_errors(ctx: ReportContext) -> Table | None:
    per_judge: dict[str, Counter[str]] = {}
    judged: Counter[str] = Counter()
    for cell in ctx.cells:
        judged[cell.judge] += cell.scenarios
        if cell.judge_errors:
            per_judge.setdefault(cell.judge, Counter()).update(cell.judge_error_reasons or {OTHER: cell.judge_errors})
    if not per_judge:
        return None
    seen = [reason for reason in REASONS if any(counts[reason] for counts in per_judge.values())]
    headers = ["Judge", "Transcripts", "Judge errors", *[reason.replace("_", " ") for reason in seen]]
    display, data = [], []
    for judge, counts in per_judge.items():
        values: list[object] = [judge, judged[judge], sum(counts.values()), *[counts[reason] for reason in seen]]
        data.append(values)
        display.append([str(v) for v in values])
    words = "; ".join(f"{r.replace('_', ' ')}: {REASON_WORDS.get(r, 'rows written before reasons were recorded')}"
                      for r in seen)
    return Table(
        headers=headers, display=display, data=data,
        data_headers=["judge", "transcripts", "judge_errors", *seen],
        footnotes=[f"{words}. Each failed attempt's raw reply is in results.jsonl (judge_attempts) and on the "
                   "transcript pages of report.html. A rerun asks the judge again: only a verdict is final."],
    )
