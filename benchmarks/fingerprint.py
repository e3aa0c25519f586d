"""Behaviour fingerprint of a job or sweep folder: per job, the pass rate and a hash of the verdict-relevant
fields of every row (termination, turns, checks, scores, tool calls); with a second folder, the rows that differ.

A refactor that must not change results is checked with it, e.g. the default job and the simulated grid
before and after:

    python -m skillbench store.root=/tmp/a/store hydra.run.dir=/tmp/a/default
    python -m skillbench 'agent=glob(sim_*)' 'judge=glob(sim_*)' store.root=/tmp/a/store hydra.sweep.dir=/tmp/a/grid -m
    python benchmarks/fingerprint.py /tmp/b/grid /tmp/a/grid      # every job: differing rows=0
"""
import hashlib
import json
import sys
from pathlib import Path


def rows_fp(job: Path) -> dict[str, dict]:
    out = {}
    for line in (job / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        scores = r.get("scores") or {}
        key = {
            "termination": r["termination"], "turns": r["turns"], "passed": r["passed"],
            "rule_checks": [(c["name"], c["passed"]) for c in r["rule_checks"]],
            "scores": {k: v for k, v in scores.items() if k != "explanation"},
            "tool_calls": r["tool_calls"], "tool_errors": r["tool_errors"],
        }
        out[r["scenario_id"]] = key
    return out

def jobs(d: Path) -> dict[str, Path]:
    if (d / "results.jsonl").exists():
        return {d.name: d}
    return {p.name.split("_", 1)[1]: p for p in sorted(d.iterdir()) if (p / "results.jsonl").exists()}

def main() -> None:
    a = jobs(Path(sys.argv[1]))
    b = jobs(Path(sys.argv[2])) if len(sys.argv) > 2 else None
    for name, job in a.items():
        s = json.loads((job / "summary.json").read_text())
        fp = rows_fp(job)
        h = hashlib.sha256(json.dumps(fp, sort_keys=True).encode()).hexdigest()[:12]
        line = f"{name:35s} pass_rate={s['pass_rate']} rule={s['rule_pass_rate']} fp={h}"
        if b is not None:
            other = b.get(name) if len(a) > 1 else next(iter(b.values()))
            fp2 = rows_fp(other)
            diffs = [k for k in fp if fp.get(k) != fp2.get(k)]
            s2 = json.loads((other / "summary.json").read_text())
            line += f" | other pass_rate={s2['pass_rate']} differing rows={len(diffs)} {diffs[:3]}"
            for k in diffs[:2]:
                line += f"\n    {k}: {fp[k]}\n    {' ' * len(k)}  {fp2.get(k)}"
        print(line)
    for d in [Path(x) for x in sys.argv[1:]]:
        rep = d / "report" / "report.json"
        if rep.exists():
            data = json.loads(rep.read_text())
            print(d, "kappa:", json.dumps(data.get("agreement", data.get("table3", "?")))[:400])


if __name__ == "__main__":
    main()
