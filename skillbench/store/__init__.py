"""The content-addressed artifact store and its keys."""

from skillbench.core.files import write_json_atomic, write_text_atomic
from skillbench.store.artifacts import ArtifactStore
from skillbench.store.keys import content_hash, model_identity, result_settings

__all__ = ["ArtifactStore", "content_hash", "model_identity", "result_settings", "write_json_atomic", "write_text_atomic"]
