"""The content-addressed artifact store and its keys."""

from skillbench.store.artifacts import ArtifactStore, write_json_atomic
from skillbench.store.keys import content_hash, mock_identity, model_identity

__all__ = ["ArtifactStore", "content_hash", "mock_identity", "model_identity", "write_json_atomic"]
