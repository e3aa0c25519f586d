"""``skillbench view <run or sweep>``: a terminal viewer of a run's conversations (docs/viewer.md).

Public API::

    from skillbench.view import load_conversations, ViewFilter
"""

from __future__ import annotations

from skillbench.view.data import Conversation, JudgeReading, ViewFilter, load_conversations

__all__ = ["Conversation", "JudgeReading", "ViewFilter", "load_conversations"]
