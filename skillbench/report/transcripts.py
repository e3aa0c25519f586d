"""Find the stored rollout (transcript) behind a result row, for the HTML report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skillbench.core.records import Rollout
from skillbench.evaluation.records import Verdict
from skillbench.report.jobs import Job
from skillbench.store.artifacts import ArtifactStore

ROLLOUTS_DIR = "rollouts"
VERDICTS_DIR = "verdicts"


def store_candidates(job: Job) -> list[Path]:
    """Possible store roots of a job. A relative ``store.root`` is relative to where the sweep was
    launched (Hydra's runtime.cwd); the folders above the job are tried too, so a moved
    outputs/ tree (runs plus store) still finds its transcripts."""
    root = str((job.config.get("store") or {}).get("root") or "outputs/store")
    path = Path(root).expanduser()
    if path.is_absolute():
        return [path]
    candidates: list[Path] = []
    if job.launch_cwd is not None:
        candidates.append(job.launch_cwd / path)
    candidates.extend(parent / path for parent in job.path.resolve().parents)
    candidates.append(Path.cwd() / path)
    unique: dict[Path, None] = {}
    for candidate in candidates:
        unique.setdefault(candidate, None)
    return list(unique)


class TranscriptFinder:
    """Loads rollouts by key from the stores of the given jobs; caches store roots per job."""

    def __init__(self, jobs: list[Job]) -> None:
        self._candidates = {job.path: store_candidates(job) for job in jobs}
        self._store: dict[Path, ArtifactStore] = {}  # per job, once one of its rollouts was found there

    def _store_for(self, job_path: Path, key: str, kind: str = ROLLOUTS_DIR) -> ArtifactStore | None:
        store = self._store.get(job_path)
        if store is not None:
            return store
        for candidate in self._candidates.get(job_path, []):
            store = ArtifactStore(candidate)
            if store.path(kind, key).exists():
                self._store[job_path] = store
                return store
        return None

    def load(self, job_path: Path, key: str | None) -> tuple[Rollout | dict[str, Any] | None, str | None]:
        """The rollout (or its raw JSON when it does not match the current model) and a problem note."""
        if not key:
            return None, "no rollout key on this row"
        store = self._store_for(job_path, key)
        if store is None:
            tried = ", ".join(str(c) for c in self._candidates.get(job_path, [])[:3])
            return None, f"rollout {key} not found in the artifact store (tried {tried})"
        try:
            data = store.read(ROLLOUTS_DIR, key)
        except OSError as exc:
            return None, f"{store.location(ROLLOUTS_DIR, key)}: unreadable ({exc})"
        try:
            return Rollout.model_validate_json(data), None
        except ValidationError:
            path = store.location(ROLLOUTS_DIR, key)
            try:
                return json.loads(data), f"{path}: does not match the current Rollout format; shown raw"
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                return None, f"{path}: not JSON ({exc})"

    def load_verdict(self, job_path: Path, key: str | None) -> Verdict | None:
        """The stored verdict (every judge sample) behind a row; None when it is not in the job's store."""
        if not key:
            return None
        store = self._store_for(job_path, key, VERDICTS_DIR)
        if store is None:
            return None
        try:
            return Verdict.model_validate_json(store.read(VERDICTS_DIR, key))
        except (OSError, ValidationError):
            return None
