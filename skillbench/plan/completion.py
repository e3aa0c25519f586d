"""Tab completion for ``python -m skillbench`` and ``skillbench run``, through Hydra's completion protocol.

Hydra's own bash script only completes ``python script.py`` and ``app``: for ``python -m skillbench`` it
gives up (``-m`` is not a file), and ``skillbench -sc query=bash`` reaches the subcommand dispatcher, not
the Hydra app. So ``-sc install=bash`` prints the script below instead, and a query has its command line
rewritten to the form Hydra parses (``skillbench <overrides>``) before Hydra answers it: the candidates
(config groups, options, keys) are Hydra's own.
"""

from __future__ import annotations

import os
import re

FLAGS = ("-sc", "--shell-completion")
SUBCOMMANDS = "run report rescore diff benchmark mine import judges"

# Registered for `python`, `python3` and `skillbench`; a python line that is not `-m skillbench` gets no
# candidates, so bash falls back to its default (file names), as with Hydra's own script.
SCRIPT = r"""_skillbench_completion()
{
    COMPREPLY=()
    local words=($COMP_LINE)
    local helper
    if [[ "${words[0]##*/}" == skillbench ]]; then
        if (( COMP_CWORD <= 1 )); then
            COMPREPLY=($(compgen -W "%(subcommands)s" -- "${words[1]}"))
            return
        fi
        [[ "${words[1]}" == run ]] || return
        helper="${words[0]} run"
    elif [[ "${words[0]##*/}" == python* && "${words[1]}" == -m && "${words[2]}" == skillbench ]]; then
        helper="${words[0]} -m skillbench"
    else
        return
    fi
    local word=""
    [[ "$COMP_LINE" == *" " ]] || word="${words[-1]}"
    local choices
    choices=$(COMP_POINT=$COMP_POINT COMP_LINE=$COMP_LINE $helper -sc query=bash 2>/dev/null)
    COMPREPLY=($(compgen -o nospace -o default -W "$choices" -- "$word"))
}
COMP_WORDBREAKS=${COMP_WORDBREAKS//=}
complete -o nospace -o default -F _skillbench_completion skillbench python python3
"""
UNINSTALL = "complete -r skillbench python python3 2>/dev/null; unset -f _skillbench_completion\n"

_PREFIX = re.compile(r"^\s*(?:\S*python[\d.]*\s+-m\s+skillbench|\S*skillbench\s+run)(?=\s|$)")


def completion_request(argv: list[str]) -> str | None:
    """``install=bash`` etc. when ``argv`` asks for shell completion, else None."""
    for flag in FLAGS:
        if flag in argv[:-1]:
            return argv[argv.index(flag) + 1]
    for arg in argv:
        if arg.startswith(tuple(f"{flag}=" for flag in FLAGS)):
            return arg.split("=", 1)[1]
    return None


def handle(argv: list[str]) -> str | None:
    """For an install or uninstall request, the script to print (the caller prints it and exits 0).

    For a query, rewrites ``COMP_LINE`` so Hydra reads the overrides after ``python -m skillbench`` or
    ``skillbench run``, and returns None: Hydra then answers. Anything else: None, untouched.
    """
    request = completion_request(argv)
    if request is None:
        return None
    action, _, shell = request.partition("=")
    if shell in ("bash", "zsh") and action == "install":
        return SCRIPT % {"subcommands": SUBCOMMANDS}
    if shell in ("bash", "zsh") and action == "uninstall":
        return UNINSTALL
    if action == "query" and "COMP_LINE" in os.environ:
        os.environ["COMP_LINE"] = _PREFIX.sub("skillbench", os.environ["COMP_LINE"], count=1)
    return None
