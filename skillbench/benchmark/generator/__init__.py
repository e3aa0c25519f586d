"""The generator of the full benchmark: skill templates, seeded instantiation, balanced selection, stable files.

``skillbench benchmark build`` runs :func:`~skillbench.benchmark.generator.build.build_benchmark` and
:func:`~skillbench.benchmark.generator.build.write_benchmark`; see docs/benchmark-generation.md. Nothing is
imported here, so ``lint`` can use :mod:`~skillbench.benchmark.generator.reference` without loading the
templates (or Faker).
"""
