"""The generator of the full benchmark: skill templates, seeded instantiation, balanced selection, stable files.

``skillbench benchmark build`` runs :func:`~skillbench.benchmark.generator.generate.build_benchmark` and
:func:`~skillbench.benchmark.generator.generate.write_benchmark`; see docs/benchmark-generation.md. The
reference conversation it uses lives in :mod:`skillbench.benchmark.reference`, so ``lint`` checks data
without importing the generator (its templates, or Faker).
"""
