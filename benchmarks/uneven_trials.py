"""The decision audit's uneven-trials case, recomputed: sim_sloppy on ``smoke`` with ``run.trials=3`` and a stub judge on
127.0.0.1 that gives no verdict on about one transcript in five (``tests/support/flaky_judge.py``), then Table 1b.

    python benchmarks/uneven_trials.py            # about 15 s; everything offline (simulated agent, stub judge)

Prints the scored trials per scenario, the figures under the rule the report used before (each k averaged over the
scenarios with at least k scored trials, a different set per k) and Table 1b as the report now writes it (every k on
one stated set of scenarios, k capped at the fewest scored trials). Not a test (tests/report/test_uneven_trials.py is).
SIMULATED agent: the figures are not real model results.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.engine.trials import pass_at_k, pass_hat_k, task_counts
from skillbench.report.build import ReportContext
from skillbench.report.tables import TABLES, markdown_table
from skillbench.report.write import make_report
from tests.conftest import compose_config
from tests.support.flaky_judge import STUB_JUDGE, flaky_judge
from tests.support.openai_stub import stub_server


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, stub_server(flaky_judge(), models=(STUB_JUDGE,)) as server:
        root = Path(tmp)
        job = root / "sweep" / "0_sim_sloppy_stubjudge"
        cfg = compose_config(
            "agent=sim_sloppy", "benchmark=smoke", "run.trials=3", "judge=custom", f"judge.model=hosted_vllm/{STUB_JUDGE}",
            f"judge.api_base={server.base_url}", "judge.rubric_version=v2", "judge.name=stubjudge",
            f"store.root={root / 'store'}",
        )
        run_job(cfg, job)
        rows = [ResultRow.model_validate_json(line) for line in (job / RESULTS_FILE).read_text().splitlines()]
        counts = task_counts((row.scenario_id, row.passed) for row in rows)
        print(f"{len(rows)} conversations, {sum(r.passed is None for r in rows)} without a verdict; scenarios by scored "
              f"trials: {dict(sorted(Counter(n for n, _ in counts.values()).items()))}\n")
        print("Before (each k over the scenarios with ≥ k scored trials):")
        for k in (1, 2, 3):
            reached = [(n, c) for n, c in counts.values() if n >= k]
            hat = sum(pass_hat_k(n, c, k) for n, c in reached) / len(reached)
            at = sum(pass_at_k(n, c, k) for n, c in reached) / len(reached)
            print(f"  k={k}: {len(reached)} scenarios, pass^{k} {hat:.1%}, pass@{k} {at:.1%}")
        report, _ = make_report([root / "sweep"], root / "report", formats=["json"])
        context = ReportContext.of(report)
        table = TABLES.get("pass_k").build(context)
        assert table is not None
        cell = context.cell("sim_sloppy", "stubjudge")
        print(f"\nTable 1: {cell.pass_rate:.1%} ({cell.passed}/{cell.scored} scored conversations)\n")
        print(f"Now: {table.title} [SIMULATED agent]\n")
        print(markdown_table(table.display, table.headers))
        print("\n" + "\n".join(f"- {note}" for note in table.footnotes[2:]))


if __name__ == "__main__":
    main()
