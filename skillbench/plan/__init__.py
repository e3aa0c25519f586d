"""Before a run: compose every job of a sweep (``sweep``), check it can run (``preflight``), estimate its size
and cost (``estimate``), and read how jobs ended (``outcome``).

Import the submodules directly: the app loads ``callback`` at start-up, and ``--help`` must stay light.
"""
