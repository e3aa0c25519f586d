"""skillbench's Hydra plugins: the fork launcher and the checked sweeper (Hydra finds plugins only in the
``hydra_plugins`` namespace package)."""
