"""The agent program's source hash covers the code its objects come from (issue 38 item 8): the whole top-level
package of code on the path (a base class or a prompts module one package up), every class the program
inherits from and every nested ``_target_`` (in other packages too), an installed distribution by its name,
version and RECORD; an edit anywhere else keeps the key. Real packages on disk, real rollout keys."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skillbench.agents.program import program_source_hash, with_program_identity
from skillbench.benchmark import load_benchmark
from skillbench.engine.job import rollout_key
from tests.conftest import compose_config
from tests.support.wheel import build_wheel

FILES = {
    # teamx: a program in a sub-package, its reply() inherited from a base one package up, which reads a prompt
    # from a prompts module beside it.
    "teamx/__init__.py": "",
    "teamx/prompts.py": 'SIGNATURE = "-- team x"\n',
    "teamx/base.py": textwrap.dedent('''
        from skillbench.agents import AgentReply, LLMAgent
        from teamx.prompts import SIGNATURE


        class SignedAgent:
            def __init__(self) -> None:
                self.inner = LLMAgent()

            async def reply(self, state):
                reply = await self.inner.reply(state)
                return AgentReply(f"{reply.content} {SIGNATURE}", reply.tool_calls, reply.reasoning)
    '''),
    "teamx/agents/__init__.py": "",
    "teamx/agents/sub.py": textwrap.dedent('''
        from teamx.base import SignedAgent
        from sharedbase import Polite


        class SubAgent(SignedAgent, Polite):
            """Everything inherited: from one package up, and from another top-level package."""


        class WithRetriever(SignedAgent):
            def __init__(self, retriever=None) -> None:
                super().__init__()
                self.retriever = retriever
    '''),
    # Another top-level package: a base class (in the MRO) and a retriever (a nested _target_).
    "sharedbase/__init__.py": "class Polite:\n    greeting = 'hello'\n",
    "retrievers/__init__.py": "class Retriever:\n    def __init__(self, k: int = 3) -> None:\n        self.k = k\n",
    # Code on the path that the program never uses.
    "unrelated/__init__.py": "VALUE = 1\n",
    "notes.py": "TEXT = 'not code of the program'\n",
}

SUB = {"_target_": "teamx.agents.sub.SubAgent"}
WITH_RETRIEVER = {"_target_": "teamx.agents.sub.WithRetriever", "retriever": {"_target_": "retrievers.Retriever", "k": 2}}


@pytest.fixture
def src(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "src"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in [m for m in sys.modules if m.split(".")[0] in {"teamx", "sharedbase", "retrievers", "unrelated", "notes"}]:
        del sys.modules[name]


def _edit(path: Path, line: str) -> None:
    """Append a line and move the modification time on (the hash is cached by modification times)."""
    path.write_text(path.read_text(encoding="utf-8") + line, encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def _key(program: dict) -> str:
    """The rollout key of the first starter scenario under this program, as a job computes it."""
    cfg = with_program_identity(compose_config("agent=sim_careful", f"agent.program={_override(program)}"))
    benchmark = load_benchmark("starter")
    return rollout_key(cfg, benchmark, benchmark.scenarios[0])


def _override(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{key}:{_override(item)}" for key, item in value.items()) + "}"
    return str(value)


@pytest.mark.parametrize("edited", ["teamx/base.py", "teamx/prompts.py", "teamx/__init__.py", "sharedbase/__init__.py"])
def test_an_edit_to_code_the_program_comes_from_is_a_new_key(src: Path, edited: str) -> None:
    """A base class one package up, a prompts module beside it, the package's __init__, a base class in another
    top-level package: each was missed by the old rule (the defining module's folder only)."""
    before = _key(SUB)
    _edit(src / edited, "\n# changed behaviour\n")
    assert _key(SUB) != before


@pytest.mark.parametrize("edited", ["unrelated/__init__.py", "notes.py"])
def test_an_edit_outside_the_programs_code_keeps_the_key(src: Path, edited: str) -> None:
    before = _key(SUB)
    _edit(src / edited, "\n# changed, but not the program's\n")
    assert _key(SUB) == before


def test_a_nested_targets_code_is_covered(src: Path) -> None:
    before = program_source_hash(WITH_RETRIEVER)
    _edit(src / "retrievers" / "__init__.py", "\n# a changed retriever\n")
    assert program_source_hash(WITH_RETRIEVER) != before
    assert program_source_hash({"_target_": "teamx.agents.sub.WithRetriever"}) != program_source_hash(WITH_RETRIEVER)


def _install(project: Path, target: Path) -> None:
    wheel = build_wheel(project, target.parent / f"wheels_{target.name}")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, text=True, timeout=300)


def test_an_installed_distribution_counts_by_its_name_version_and_record(tmp_path: Path, src: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A base class from a pip-installed package: its files are not read, its RECORD (the installer's list of
    files and hashes) stands for them, so a reinstall of changed code under the same version is a new key."""
    project = tmp_path / "agentkit"
    (project / "agentkit").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "agentkit"\nversion = "1.0"\n\n[tool.setuptools]\n'
                                           'packages = ["agentkit"]\n', encoding="utf-8")
    (project / "agentkit" / "__init__.py").write_text("class Base:\n    mood = 'calm'\n", encoding="utf-8")
    (src / "kitted.py").write_text("from agentkit import Base\n\n\nclass Kitted(Base):\n    pass\n", encoding="utf-8")
    site = tmp_path / "site"
    _install(project, site)
    monkeypatch.syspath_prepend(str(site))
    program = {"_target_": "kitted.Kitted"}
    try:
        first = program_source_hash(program)
        _edit(site / "agentkit" / "__init__.py", "\n# edited in place, not reinstalled\n")
        assert program_source_hash(program) == first  # installed code is versioned by its installer's record
        (project / "agentkit" / "__init__.py").write_text("class Base:\n    mood = 'brisk'\n", encoding="utf-8")
        _install(project, tmp_path / "site2")
        monkeypatch.syspath_prepend(str(tmp_path / "site2"))
        for name in ("agentkit", "kitted"):
            sys.modules.pop(name, None)
        assert program_source_hash(program) != first
    finally:
        for name in ("agentkit", "kitted"):
            sys.modules.pop(name, None)
