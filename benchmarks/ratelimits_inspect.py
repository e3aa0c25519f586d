"""inspect_ai against the same rate-limited stub endpoints as benchmarks/ratelimits.py (side by side).

    python -m venv /tmp/inspect_venv && /tmp/inspect_venv/bin/pip install inspect-ai openai   # never a dependency
    python benchmarks/ratelimits_inspect.py --python /tmp/inspect_venv/bin/python [--endpoints fast,silent]

Each endpoint in turn: inspect_ai (its default adaptive connections) runs samples of 5 sequential
``generate()`` calls each (the same number of calls per endpoint as ratelimits.py) (the chains of ratelimits.py, as conversations) against the stub, through its
``openai-api`` provider; the stub counts accepted and refused calls. Printed like ratelimits.py's table.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.ratelimits import ENDPOINTS, PROMPT, WARM_S, allowed_rate  # noqa: E402
from tests.support.openai_stub import text_reply  # noqa: E402
from tests.support.ratelimited_stub import RateLimitedStub  # noqa: E402

TASK = '''
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.solver import generate

@task
def chains():
    return Task(dataset=[Sample(input={prompt!r}, target="ok") for _ in range({samples})],
                solver=[generate() for _ in range({length})])
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True, help="an interpreter with inspect-ai installed")
    parser.add_argument("--endpoints", default="fast,silent")
    parser.add_argument("--samples", type=int, default=0, help="samples per endpoint (default: its calls ÷ length, "
                        "the same work as ratelimits.py)")
    parser.add_argument("--length", type=int, default=5)
    options = parser.parse_args()
    print("| runner | endpoint | allowed req/s | accepted ÷ allowed (warm) | 429 share | calls accepted | wall s | "
          "wall ÷ bound | exit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for endpoint in (e for e in ENDPOINTS if e.name in options.endpoints.split(",")):
        stub = RateLimitedStub(lambda body: text_reply("ok"), requests_per_minute=endpoint.rpm,
                               tokens_per_minute=endpoint.tpm, latency_s=endpoint.latency_s,
                               state_limits=endpoint.headers, retry_after_s=1.0, models=("stub",))
        stub.start()
        samples = options.samples or max(1, endpoint.calls // options.length)
        with tempfile.TemporaryDirectory() as work:
            task = Path(work) / "chains.py"
            task.write_text(TASK.format(prompt=PROMPT, samples=samples, length=options.length))
            env = {**os.environ, "STUB_BASE_URL": stub.base_url, "STUB_API_KEY": "x", "INSPECT_LOG_DIR": work,
                   "PYTHONPATH": ""}
            started = time.monotonic()
            result = subprocess.run([options.python, "-m", "inspect_ai", "eval", task.name, "--model",
                                     "openai-api/stub/stub", "--display", "none", "--max-retries", "100"],
                                    cwd=work, env=env, capture_output=True, text=True, timeout=1200)
            wall = time.monotonic() - started
        stub.stop()
        calls = samples * options.length
        allowed = allowed_rate(endpoint, stub.prompt_tokens({"messages": [{"role": "user", "content": PROMPT}]}))
        accepted = [t - started for t in stub.accepted]
        warm = [t for t in accepted if t >= WARM_S]
        last = max(accepted) if accepted else 0.0
        rate = (len(warm) - 1) / (last - WARM_S) if len(warm) > 1 and last > WARM_S else float("nan")
        attempts = len(stub.accepted) + len(stub.refused)
        first_call = min(accepted) if accepted else 0.0  # inspect's own start-up is not the endpoint's doing
        bound = calls / allowed
        print(f"| inspect_ai | {endpoint.name} | {allowed:.2f} | {rate / allowed:.2f} | "
              f"{len(stub.refused) / attempts if attempts else 0:.2f} | {len(stub.accepted)} of {calls} | "
              f"{wall - first_call:.1f} | {(wall - first_call) / bound:.2f} | {result.returncode} |")
        if result.returncode:
            print(result.stderr[-1500:], file=sys.stderr)


if __name__ == "__main__":
    main()
