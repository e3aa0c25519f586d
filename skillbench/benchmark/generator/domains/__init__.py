"""The ten industries of the full benchmark, each a module with its systems and eight skill templates."""

from __future__ import annotations

from skillbench.benchmark.generator.domains import (
    automotive,
    banking,
    healthcare,
    home_services,
    insurance,
    retail,
    saas,
    telecommunications,
    travel,
    utilities,
)
from skillbench.benchmark.generator.model import IndustryDef

INDUSTRIES: tuple[IndustryDef, ...] = (
    telecommunications.INDUSTRY,
    banking.INDUSTRY,
    insurance.INDUSTRY,
    healthcare.INDUSTRY,
    retail.INDUSTRY,
    travel.INDUSTRY,
    utilities.INDUSTRY,
    saas.INDUSTRY,
    home_services.INDUSTRY,
    automotive.INDUSTRY,
)
