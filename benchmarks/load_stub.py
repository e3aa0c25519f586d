"""A local OpenAI-compatible stub for load measurements (benchmarks/throughput.py, grid_projection.py).

    python benchmarks/load_stub.py --latency-ms 100                        # prints its port, serves until killed
    python benchmarks/load_stub.py --latency-ms 100 --model-latency-ms Qwen/Qwen3.5-9B=800 --record requests.jsonl

Serves the scripted support conversation of tests/support/openai_stub.py (about 12 agent, 5 user and 1 judge
calls per conversation) with two changes for load: the caller's replies carry a tag derived from its own
system prompt, so scenarios with different objectives give different transcripts (and the judge reads every
one: no verdict is reused), and ``--record`` appends every request body, as received, to a JSON-lines file
(the bodies benchmarks/throughput.py replays through bare litellm). Usage counts tokens (~4 characters each)
and imitates OpenAI's prompt caching (``PromptCache``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.openai_stub import StubServer, conversation_script, request_role, text_reply  # noqa: E402


def distinct_conversation_script(body: dict[str, Any]) -> dict[str, Any]:
    """The conversation script, with the caller's replies tagged by a hash of the caller's system prompt."""
    reply = conversation_script(body)
    if request_role(body) == "user":
        tag = hashlib.blake2b(body["messages"][0]["content"].encode(), digest_size=4).hexdigest()
        return text_reply(f"{reply['content']} My reference is {tag}.")
    return reply


class RecordingStub(StubServer):
    """A stub that appends every request body to ``record`` (one JSON object per line)."""

    def __init__(self, record: TextIO | None, **kwargs: Any) -> None:
        self._record = record
        self._record_lock = threading.Lock()

        def script(body: dict[str, Any]) -> dict[str, Any]:
            if self._record is not None:
                line = json.dumps(body)
                with self._record_lock:
                    self._record.write(line + "\n")
            return distinct_conversation_script(body)

        super().__init__(script, **kwargs)
        self.requests = _Discard()  # a load run makes ~100,000 requests: keep none in memory


class _Discard(list):  # type: ignore[type-arg]
    """The request log of a long-running stub: counts, keeps nothing."""

    count = 0

    def append(self, item: Any) -> None:
        self.count += 1

    def __len__(self) -> int:
        return self.count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=100.0, help="every model's latency unless given below")
    parser.add_argument("--model-latency-ms", action="append", default=[], metavar="SERVED_NAME=MS",
                        help="one model's latency (the name the request carries, e.g. Qwen/Qwen3.5-9B=800)")
    parser.add_argument("--record", type=Path, help="append every request body to this JSON-lines file")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    latencies = {}
    for item in options.model_latency_ms:
        name, _, value = item.rpartition("=")
        latencies[name] = float(value) / 1000
    record = options.record.open("a", buffering=1) if options.record else None
    server = RecordingStub(record, latency_s=options.latency_ms / 1000, model_latency_s=latencies, port=options.port,
                           prompt_cache=True)
    print(server.port, flush=True)
    server._server.serve_forever()


if __name__ == "__main__":
    main()
