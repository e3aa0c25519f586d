"""``python -m skillbench``: run a job (or a sweep with -m) from the Hydra config."""

import sys

if __name__ == "__main__":
    completing = any(arg.startswith(("-sc", "--shell-completion")) for arg in sys.argv[1:])
    if sys.stderr.isatty() and not completing:  # importing the libraries takes seconds; say so at once
        print("skillbench: starting (loading libraries, composing the config)...", file=sys.stderr, flush=True)
    from skillbench.core.collector import quick_exit

    quick_exit()
    from skillbench.app import check_command_line, run_app, shell_completion

    shell_completion()
    check_command_line()
    run_app()
