"""``python -m skillbench``: run a job (or a sweep with -m) from the Hydra config."""

from skillbench.app import main

if __name__ == "__main__":
    main()
