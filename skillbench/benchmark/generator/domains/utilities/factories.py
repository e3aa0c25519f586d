"""Utilities: an electricity and water supplier.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.domains._shared.factories import street_address
from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

TARIFFS = (
    ("STD-FLAT", "Standard flat rate", "0.24"),
    ("TOU-FLEX", "Time-of-use flex", "0.19 off-peak / 0.31 peak"),
    ("GREEN-100", "100% renewable", "0.27"),
    ("FIX-24", "Fixed price, 24 months", "0.25"),
)
AREAS = ("NORTH-1", "NORTH-3", "EAST-2", "SOUTH-4", "WEST-1")


@ENTITY_FACTORIES.register("utilities.premises")
def premises(c: Ctx) -> dict[str, Any]:
    return {"service_address": c.customer["address"], "meter_id": c.id("MTR"), "tariff_code": c.pick(TARIFFS)[0],
            "service_area": c.pick(AREAS), "supply_status": "connected", "meter_type": "standard"}


@ENTITY_FACTORIES.register("utilities.meter")
def meter(c: Ctx) -> dict[str, Any]:
    premises = c.one("premises")
    return {"meter_id": premises["meter_id"], "premise_id": premises["premise_id"], "last_reading": f"{c.rng.randint(1000, 60000):05d}",
            "last_read_date": c.date(-95, -60), "validation_override": "no"}


@ENTITY_FACTORIES.register("utilities.tariff")
def tariff(c: Ctx) -> dict[str, Any]:
    code, name, rate = c.nth(TARIFFS)
    return {"tariff_code": code, "tariff_name": name, "unit_rate": rate}


@ENTITY_FACTORIES.register("utilities.outage")
def outage(c: Ctx) -> dict[str, Any]:
    far = f"{(int(c.customer['postal_code'][:5]) + 53 * (c.index + 1)) % 90000 + 10000}"
    return {"postal_code": far, "status": "active", "cause": c.pick(("storm damage", "substation fault")),
            "estimated_restoration": c.when(0, 1)}


@ENTITY_FACTORIES.register("utilities.window")
def window(c: Ctx) -> dict[str, Any]:
    return {"service_area": c.one("premises")["service_area"], "start_time": c.when(5 + 2 * c.index, 6 + 2 * c.index),
            "crew": f"CREW-{c.rng.randint(10, 99)}"}


@FACT_FUNCTIONS.register("utilities.reading")
def reading(c: Ctx) -> dict[str, Any]:
    last = int(c.one("meters")["last_reading"])
    return {"reading_value": f"{last + c.rng.randint(150, 900):05d}"}


@FACT_FUNCTIONS.register("utilities.move_out")
def move_out(c: Ctx) -> dict[str, Any]:
    return {"move_out_date": c.date(5, 30), "forwarding_address": street_address(c)}


@FACT_FUNCTIONS.register("utilities.change_tariff")
def change_tariff(c: Ctx) -> dict[str, Any]:
    tariff = c.other("tariffs", "tariff_code", c.one("premises")["tariff_code"])
    return {"new_tariff_code": tariff["tariff_code"], "_tariff": tariff["tariff_name"]}


@FACT_FUNCTIONS.register("utilities.smart_meter_install")
def smart_meter_install(c: Ctx) -> dict[str, Any]:
    return {"new_start_time": c.pick(c.all("install_windows"))["start_time"]}
