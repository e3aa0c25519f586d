"""Automotive: a car maker's dealer network with service, roadside assistance and finance.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

MODELS = ("Halvorsen Arc", "Halvorsen Fjord SUV", "Halvorsen Vale EV", "Halvorsen Sprint", "Halvorsen Terra Pickup")
CENTRES = ("SC-12", "SC-27", "SC-31", "SC-44")
REPAIRS = ("brake pads and discs", "timing belt replacement", "air conditioning recharge", "suspension bushings")


def _vin(c: Ctx) -> str:
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
    return "1HV" + "".join(c.pick(letters) for _ in range(14))


@ENTITY_FACTORIES.register("automotive.vehicle")
def vehicle(c: Ctx) -> dict[str, Any]:
    return {"vin": _vin(c), "model": c.pick(MODELS), "model_year": str(c.rng.randint(2017, 2025)),
            "mileage": str(c.rng.randint(4000, 98000)), "service_center_id": c.pick(CENTRES), "warranty_extended": "no"}


@ENTITY_FACTORIES.register("automotive.slot")
def slot(c: Ctx) -> dict[str, Any]:
    return {"service_center_id": c.one("vehicles")["service_center_id"], "start_time": c.when(3 + 2 * c.index, 4 + 2 * c.index),
            "bay": f"Bay {c.rng.randint(1, 9)}"}


@ENTITY_FACTORIES.register("automotive.recall")
def recall(c: Ctx) -> dict[str, Any]:
    vehicle = c.one("vehicles")
    return {"vin": vehicle["vin"], "campaign": c.pick(("26V-114 fuel pump", "26V-208 airbag inflator", "25V-871 brake hose")),
            "remedy": "replace the affected part free of charge", "remedy_status": "open"}


@ENTITY_FACTORIES.register("automotive.repair_order")
def repair_order(c: Ctx) -> dict[str, Any]:
    return {"vehicle_id": c.one("vehicles")["vehicle_id"], "work": c.pick(REPAIRS), "estimate_total": c.money(180, 2400),
            "status": "awaiting_approval", "goodwill": "none"}


@ENTITY_FACTORIES.register("automotive.loan")
def loan(c: Ctx) -> dict[str, Any]:
    return {"balance": c.money(3000, 32000), "monthly_payment": c.money(220, 760), "payment_day": str(c.rng.randint(1, 28)),
            "deferral": "none", "status": "active"}


@FACT_FUNCTIONS.register("automotive.book_service")
def book_service(c: Ctx) -> dict[str, Any]:
    return {"new_start_time": c.pick(c.all("service_slots"))["start_time"]}


@FACT_FUNCTIONS.register("automotive.roadside_tow")
def roadside_tow(c: Ctx) -> dict[str, Any]:
    return {"breakdown_location": c.pick(("Route 9 northbound near exit 14", "Elm Street car park, level 2",
                                                        "outside 48 Harbor Road", "I-90 eastbound shoulder by mile 212"))}


@FACT_FUNCTIONS.register("automotive.change_payment_day")
def change_payment_day(c: Ctx) -> dict[str, Any]:
    return {"new_payment_day": str((int(c.one("loans")["payment_day"]) + 11) % 28 + 1)}
