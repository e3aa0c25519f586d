"""Where the root conftest records the test modules a session collected (read by tests/test_collection.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

# One module owns the key: conftest.py is imported as ``conftest``, not ``tests.conftest``, so a key defined
# there would be a different object in the test that imports it.
COLLECTED_MODULES = pytest.StashKey[set[Path]]()
