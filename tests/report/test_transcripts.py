"""The report finds each row's stored rollout, and says what is wrong with one it cannot show."""

from __future__ import annotations

from pathlib import Path

from skillbench.core.records import Rollout
from skillbench.report.jobs import Job
from skillbench.report.transcripts import ROLLOUTS_DIR, TranscriptFinder
from skillbench.store.artifacts import ArtifactStore
from tests.report.conftest import make_rollout


def _finder(tmp_path: Path) -> tuple[TranscriptFinder, ArtifactStore, Path]:
    store = ArtifactStore(tmp_path / "store")
    job = tmp_path / "job"
    job.mkdir()
    config = {"store": {"root": str(store.root)}}
    return TranscriptFinder([Job(path=job, config=config, rows=[], summary=None, status="finished")]), store, job


def _write(store: ArtifactStore, key: str, data: bytes) -> None:
    path = store.path(ROLLOUTS_DIR, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_a_stored_rollout_is_read_back_as_it_was_written(tmp_path: Path) -> None:
    finder, store, job = _finder(tmp_path)
    rollout = make_rollout("sim_careful", "happy_path_000")
    store.put(ROLLOUTS_DIR, rollout.key, rollout)
    # The artifact's own bytes: the file also carries their checksum (skillbench/store/artifacts.py seal)
    assert store.read(ROLLOUTS_DIR, rollout.key) == rollout.model_dump_json().encode()
    assert finder.load(job, rollout.key) == (rollout, None)


def test_damaged_or_missing_rollouts_are_named_not_raised(tmp_path: Path) -> None:
    finder, store, job = _finder(tmp_path)
    _write(store, "aa01", make_rollout("sim_careful", "happy_path_000").model_dump_json().encode())
    _write(store, "aa02", b'{"messages": "an older format"}')
    _write(store, "aa03", b"{not json")
    _write(store, "aa04", b"\xff\xfe not utf-8")
    assert isinstance(finder.load(job, "aa01")[0], Rollout)  # the job's store is found through this one

    raw, problem = finder.load(job, "aa02")
    assert raw == {"messages": "an older format"}
    assert problem == f"{store.path(ROLLOUTS_DIR, 'aa02')}: does not match the current Rollout format; shown raw"
    for key in ("aa03", "aa04"):
        rollout, problem = finder.load(job, key)
        assert rollout is None and problem is not None
        assert problem.startswith(f"{store.path(ROLLOUTS_DIR, key)}: not JSON (")
    store.path(ROLLOUTS_DIR, "aa05").mkdir(parents=True)  # a folder where the file should be: unreadable
    rollout, problem = finder.load(job, "aa05")
    assert rollout is None and problem is not None and ": unreadable (" in problem
    assert finder.load(job, None) == (None, "no rollout key on this row")
