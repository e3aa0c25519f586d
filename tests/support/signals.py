"""Children that get Ctrl-C as from a terminal, however the test run itself was started."""

from __future__ import annotations

import signal


def interruptible() -> None:
    """``preexec_fn`` for a child the test will send SIGINT: a shell runs a background command (``pytest &``,
    ``nohup``) with SIGINT ignored, and a child inherits that, so Python would never raise KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
