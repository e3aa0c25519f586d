"""Insurance: a home and motor insurer.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

PRODUCTS = ("home", "auto")
INCIDENTS = {"home": ("water damage", "storm damage", "burglary", "fire damage"),
             "auto": ("collision", "windscreen damage", "vandalism", "theft of vehicle")}
COVER = {
    "home": (("HOME-BASIC", "Home Essentials"), ("HOME-PLUS", "Home Plus"), ("HOME-PREMIER", "Home Premier")),
    "auto": (("AUTO-TPFT", "Third party, fire and theft"), ("AUTO-COMP", "Comprehensive"), ("AUTO-COMP-PLUS", "Comprehensive Plus")),
}


@ENTITY_FACTORIES.register("insurance.policy")
def policy(c: Ctx) -> dict[str, Any]:
    product = c.pick(PRODUCTS)
    return {"product": product, "coverage_level": COVER[product][0][0], "status": "active", "premium": c.money(320, 1400),
            "renewal_date": c.date(40, 300), "deductible": c.pick(("250.00", "500.00")), "deductible_waived": "no",
            "loyalty_discount": "none", "cover_backdated": "no"}


@ENTITY_FACTORIES.register("insurance.auto_policy")
def auto_policy(c: Ctx) -> dict[str, Any]:
    return {**policy(c), "product": "auto", "coverage_level": "AUTO-COMP"}


@ENTITY_FACTORIES.register("insurance.coverage")
def coverage(c: Ctx) -> dict[str, Any]:
    product = c.one("policies")["product"]
    code, name = COVER[product][c.index % 3]
    return {"product": product, "coverage_code": code, "coverage_name": name,
            "monthly_change": "0.00" if c.index == 0 else f"{7.5 * c.index:.2f}"}


@ENTITY_FACTORIES.register("insurance.claim")
def claim(c: Ctx) -> dict[str, Any]:
    policy = c.one("policies")
    return {"policy_id": policy["policy_id"], "incident_type": c.pick(INCIDENTS[policy["product"]]),
            "incident_date": c.date(-40, -5), "status": c.pick(("under_review", "awaiting_documents", "inspection_booked")),
            "payment_priority": "standard", "next_step": c.pick(("adjuster review", "upload photos", "inspection visit"))}


@FACT_FUNCTIONS.register("insurance.incident")
def incident(c: Ctx) -> dict[str, Any]:
    product = c.one("policies")["product"]
    return {"incident_date": c.date(-6, -1), "incident_type": c.pick(INCIDENTS[product])}


@FACT_FUNCTIONS.register("insurance.cover_fact")
def cover_fact(c: Ctx) -> dict[str, Any]:
    option = c.other("coverage_options", "coverage_code", c.one("policies")["coverage_level"])
    return {"new_coverage_code": option["coverage_code"], "_cover": option["coverage_name"]}


@FACT_FUNCTIONS.register("insurance.add_driver")
def add_driver(c: Ctx) -> dict[str, Any]:
    return {"driver_name": f"{c.pick(('Alex', 'Sam', 'Jordan', 'Taylor', 'Casey', 'Riley'))} "
                         f"{c.customer['full_name'].split()[-1]}", "driver_date_of_birth": c.date(-365 * 40, -365 * 18)}


@FACT_FUNCTIONS.register("insurance.cancel_policy")
def cancel_policy(c: Ctx) -> dict[str, Any]:
    return {"cancellation_date": c.date(1, 30)}


@FACT_FUNCTIONS.register("insurance.billing_day")
def billing_day(c: Ctx) -> dict[str, Any]:
    return {"new_billing_day": str((int(c.one("billing_profiles")["billing_day"]) + 9) % 28 + 1)}
