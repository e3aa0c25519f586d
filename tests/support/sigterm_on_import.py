"""skillbench with a SIGTERM delivered in the middle of one import of the sweep's report (its pandas, numpy...): the
moment a user's ``kill`` or a scheduler's lands just as a sweep's last job ends (reliability review N12b).

    python -m tests.support.sigterm_on_import pandas._libs.tslibs.timezones <skillbench arguments>

When the report callback builds the report and imports that module, the process sends itself SIGTERM; the handler
skillbench installed raises as the import runs. Some modules then leave their package half-initialised for the rest
of the process (importing it again fails, as the review saw numpy do), others import again cleanly. Prints
``sigterm-on-import: <module>`` to stderr when it fires.
"""

from __future__ import annotations

import importlib.abc
import os
import runpy
import signal
import sys
from typing import Any


def _in_report_build() -> bool:
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "_build" and frame.f_code.co_filename.endswith(os.path.join("report", "callback.py")):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class _SigtermOnImport(importlib.abc.MetaPathFinder):
    def __init__(self, module: str) -> None:
        self.module, self.fired = module, False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if not self.fired and name == self.module and _in_report_build():
            self.fired = True
            print(f"sigterm-on-import: {name}", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGTERM)  # handled between two bytecodes of this thread: inside this import
        return None


def main() -> None:
    module, *arguments = sys.argv[1:]
    sys.meta_path.insert(0, _SigtermOnImport(module))
    sys.argv = ["skillbench", *arguments]
    runpy.run_module("skillbench", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
