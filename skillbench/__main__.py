"""``python -m skillbench``: run a job (or a sweep with -m) from the Hydra config."""

import sys

if __name__ == "__main__":
    if sys.stderr.isatty():  # importing the libraries takes seconds; say so at once to a person watching
        print("skillbench: starting (loading libraries, composing the config)...", file=sys.stderr, flush=True)
    from skillbench.app import main

    main()
