"""``python -m skillbench``: run a job (or a sweep with -m) from the Hydra config."""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before anything imports litellm

from skillbench.app import main

if __name__ == "__main__":
    main()
