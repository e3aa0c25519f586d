"""Seeded choices of SIMULATED models that must hold for a whole conversation, not just one call."""

from __future__ import annotations

import hashlib
import json
import random

from skillbench.simulated.base import SimRequest


def conversation_rng(request: SimRequest, salt: str = "", prefix: int = 2) -> random.Random:
    """A generator fixed by the model, the seed and the conversation's first ``prefix`` messages.

    A simulated agent decides once per conversation (e.g. whether it skips verification): the first
    messages (system prompt and opening) are the same at every call of one conversation, so the decision
    is too, while another seed or another scenario draws again.
    """
    blob = json.dumps([request.model, request.seed, request.messages[:prefix], salt], sort_keys=True, default=str)
    return random.Random(int(hashlib.sha256(blob.encode()).hexdigest()[:16], 16))
