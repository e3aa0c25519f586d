"""skillbench's Hydra launcher plugins (Hydra finds plugins only in the ``hydra_plugins`` namespace package)."""
