"""How the example agent programs differ from the plain agent: pass rate, hallucinated actions, calls, tokens and
what their extra calls would cost — measured with the SIMULATED models (not a real model's result).

    python benchmarks/agent_programs.py                      # the starter benchmark (50 scenarios), 6 jobs
    python benchmarks/agent_programs.py --price-as gpt-5     # price the tokens as another litellm model

Each row is one job run now, from an empty store: the acting model (the sloppy or the reckless simulated agent)
alone, inside the plan-then-act program (conf/agent/plan_then_act.yaml) and inside the self-check program
(conf/agent/self_check.yaml). Simulated models cost $0; the dollar column prices each job's agent tokens (every
call of the program: the acting model, the planner, the checker) at the named model's litellm price, to show
what the extra calls would cost. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PROGRAMS = {"plain": None, "plan_then_act": "plan_then_act", "self_check": "self_check"}
ACTING = {"sloppy": ("sim_sloppy", "skillbench_sim/agent-sloppy"), "reckless": ("sim_reckless", "skillbench_sim/agent-reckless")}


def _overrides(acting: str, program: str | None, store: Path) -> list[str]:
    plain, model = ACTING[acting]
    agent = [f"agent={plain}"] if program is None else [f"agent={program}", f"agent.model={model}",
                                                         f"agent.name={program}_{acting}"]
    return [*agent, "judge=sim_balanced", f"store.root={store}", "run.progress_interval_s=3600"]


def _compose(overrides: list[str]):
    from hydra import compose, initialize_config_module

    from skillbench.config import validate_config

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        return validate_config(compose("config", overrides=overrides))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--price-as", default="gpt-5-mini", help="litellm model whose token prices the $ column uses")
    parser.add_argument("--limit", type=int, default=None, help="scenarios per job (default: the whole starter benchmark)")
    args = parser.parse_args()

    from skillbench.config.schema import ModelConfig
    from skillbench.engine.job import run_job
    from skillbench.models.prices import token_prices

    prices = token_prices(ModelConfig(name="price", model=args.price_as))
    if prices is None:
        raise SystemExit(f"litellm's price map does not know {args.price_as}")
    header = ("acting model", "program", "pass rate", "rule-based", "halluc. action", "agent calls/conv",
              "agent tokens/conv", f"$/100 conv at {args.price_as}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for acting in ACTING:
            for label, program in PROGRAMS.items():
                overrides = _overrides(acting, program, Path(tmp) / "store")
                if args.limit:
                    overrides.append(f"benchmark.limit={args.limit}")
                job = Path(tmp) / f"{acting}_{label}"
                summary = run_job(_compose(overrides), job)
                results = [json.loads(line) for line in (job / "results.jsonl").read_text().splitlines()]
                n = len(results)
                usage = summary.usage["agent"]
                hallucinated = sum(1 for r in results if (r.get("scores") or {}).get("hallucinated_action"))
                dollars = (usage.prompt_tokens * prices.prompt + usage.completion_tokens * prices.completion) / n * 100
                rows.append((
                    acting, label, f"{summary.pass_rate:.0%}", f"{summary.rule_pass_rate:.0%}", f"{hallucinated / n:.0%}",
                    f"{usage.calls / n:.1f}", f"{(usage.prompt_tokens + usage.completion_tokens) / n:,.0f}",
                    f"${dollars:.3f}",
                ))
                print(f"done: {acting} {label} ({n} scenarios)", file=sys.stderr, flush=True)
    print(f"SIMULATED models (skillbench_sim/*), starter benchmark, judge=sim_balanced, {n} scenarios per job; "
          "not a real model's result.\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
