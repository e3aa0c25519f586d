"""The price map read from litellm's bundled file (no litellm import) is the map litellm itself loads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# In a fresh interpreter: litellm's model_cost right after import (nothing registered yet), and ours read first.
_COMPARE = """
import json, sys
from skillbench.models import litellm_setup
ours = {name: dict(entry) for name, entry in litellm_setup.price_map().items()}
assert "litellm" not in sys.modules, "reading the price map imported litellm"
theirs = {name: dict(entry) for name, entry in litellm_setup.get_litellm().model_cost.items()}
diff = sorted(name for name in ours.keys() | theirs.keys() if ours.get(name) != theirs.get(name))
print(json.dumps({"models": len(theirs), "aliases": sum(type(e).__name__ == "AliasedCostEntry"
      for e in litellm_setup.get_litellm().model_cost.values()), "differ": diff[:20], "live": litellm_setup.price_map()
      is litellm_setup.get_litellm().model_cost}))
"""


def test_the_bundled_price_map_equals_litellms_model_cost() -> None:
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}  # LITELLM_LOCAL_MODEL_COST_MAP is set by get_litellm
    result = subprocess.run([sys.executable, "-c", _COMPARE], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["models"] > 1000 and found["aliases"] > 0  # the alias expansion was exercised
    assert found["differ"] == [], found["differ"]
    assert found["live"]  # once litellm is loaded, its live map (with runtime registrations) is the one read
