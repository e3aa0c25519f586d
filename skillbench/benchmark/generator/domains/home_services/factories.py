"""Home services: plumbing, heating and cooling repairs, quotes and maintenance plans.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

SERVICES = ("boiler service", "leak repair", "AC tune-up", "drain unblocking", "water heater repair", "furnace inspection")
PLAN_OPTIONS = (
    ("CARE-ANNUAL", "Annual Care", "12.50", "one yearly service visit"),
    ("CARE-PLUS", "Care Plus", "21.00", "yearly service plus repairs with no call-out fee"),
    ("CARE-TOTAL", "Total Care", "34.00", "all repairs covered, priority visits"),
)


@ENTITY_FACTORIES.register("home_services.job")
def job(c: Ctx, status: str) -> dict[str, Any]:
    done = status == "completed"
    return {"service_type": c.pick(SERVICES), "status": status, "technician_id": f"TECH-{c.rng.randint(100, 999)}",
            "visit_start": c.when(-30, -15) if done else c.when(1, 3), "priority": "normal"}


@ENTITY_FACTORIES.register("home_services.window")
def window(c: Ctx) -> dict[str, Any]:
    return {"postal_code": c.customer["postal_code"], "start_time": c.when(4 + 2 * c.index, 5 + 2 * c.index),
            "team": c.pick(("North crew", "Central crew", "River crew"))}


@ENTITY_FACTORIES.register("home_services.technician")
def technician(c: Ctx) -> dict[str, Any]:
    booked = c.one("service_jobs")
    return {"technician_id": booked["technician_id"], "technician_name": c.pick(("Ray", "Dana", "Omar", "Lucia", "Pete")),
            "status": "en_route", "eta": booked["visit_start"]}


@ENTITY_FACTORIES.register("home_services.quote")
def quote(c: Ctx) -> dict[str, Any]:
    return {"service_type": c.pick(("boiler replacement", "bathroom replumb", "heat pump install", "water softener install")),
            "amount": c.money(900, 7800), "status": "sent", "expires_on": c.date(5, 25), "discount": "none"}


@ENTITY_FACTORIES.register("home_services.plan")
def plan(c: Ctx) -> dict[str, Any]:
    code, name, price, _ = c.pick(PLAN_OPTIONS)
    return {"plan_code": code, "plan_name": name, "monthly_price": price, "status": "active", "renewal_date": c.date(20, 300)}


@ENTITY_FACTORIES.register("home_services.option")
def option(c: Ctx) -> dict[str, Any]:
    code, name, price, cover = c.nth(PLAN_OPTIONS)
    return {"plan_code": code, "plan_name": name, "monthly_price": price, "covers": cover}


@FACT_FUNCTIONS.register("home_services.window_fact")
def window_fact(c: Ctx) -> dict[str, Any]:
    return {"new_start_time": c.pick(c.all("visit_windows"))["start_time"]}


@FACT_FUNCTIONS.register("home_services.plan_enrollment")
def plan_enrollment(c: Ctx) -> dict[str, Any]:
    chosen = c.pick(c.all("plan_options"))
    return {"new_plan_code": chosen["plan_code"], "_plan": chosen["plan_name"]}
