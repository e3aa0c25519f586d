"""The report's figures: each family of numbers computed from a report's rows, one function per figure.

The second of the report context's three parts (rows: ``report/rows.py``; figures: here; assembling and
rendering: ``report/build.py`` and the tables). Each function takes the :class:`~skillbench.report.rows.ReportRows`
and the other figures it needs as arguments and returns report records (``report/model.py``);
:class:`~skillbench.report.build.ReportContext` caches each as a part of the same name, so a figure is computed once
and only when a table or ``report.json`` asks for it. A module here never imports a table or the context.

- ``cells``: coverage, pass rate and CI per agent × judge (``cells``), and the draws behind them;
- ``pass_rates``: Table 1 (the mean over judges, its draws, the rank, the rule-based rate) and adjacent differences;
- ``rubric``: Table 2, mean rubric scores;
- ``agreement``: Table 3, pairwise agreement and κ, Fleiss' κ and Krippendorff's α;
- ``strictness``: judge strictness and ranking stability;
- ``groups``: pass rates by path, industry and skill with the significantly-worse flag;
- ``trials``: pass^k, pass@k and consistency over repeated trials;
- ``human``: each verdict against people's labels;
- ``inputs``: counts and notes on the report's inputs.
"""
