"""Telecommunications: a mobile and home-broadband operator.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

PLANS = (
    ("PLN-ESS10", "Essential 10GB", "25.00", "10GB"),
    ("PLN-PLUS30", "Plus 30GB", "35.00", "30GB"),
    ("PLN-U60", "Unlimited 60", "45.00", "unlimited, 60GB at full speed"),
    ("PLN-FAM100", "Family Share 100GB", "70.00", "100GB shared by up to 4 lines"),
    ("PLN-SIMO5", "SIM Only 5GB", "15.00", "5GB"),
)
DEVICES = ("Pixel 8", "iPhone 14", "Galaxy S23", "Moto G84", "iPhone 15 Pro", "Galaxy A54")
CARRIERS = ("Northstar Wireless", "Pinecone Mobile", "Atlas Cellular", "Bluejay Telecom")


@ENTITY_FACTORIES.register("telecommunications.plan")
def plan(c: Ctx) -> dict[str, Any]:
    code, name, price, allowance = c.nth(PLANS)
    return {"plan_id": code, "plan_name": name, "monthly_price": price, "data_allowance": allowance}


@ENTITY_FACTORIES.register("telecommunications.line")
def line(c: Ctx) -> dict[str, Any]:
    return {
        "phone_number": c.phone(),
        "plan_id": c.pick(c.all("plans"))["plan_id"] if c.all("plans") else "PLN-PLUS30",
        "device_model": c.pick(DEVICES),
        "sim_status": "active",
        "sim_type": "physical",
        "network_status": "normal",
        "retention_discount": "none",
        "contract_end": c.date(60, 500),
    }


@ENTITY_FACTORIES.register("telecommunications.outage")
def outage(c: Ctx) -> dict[str, Any]:
    far = f"{(int(c.customer['postal_code'][:5]) + 37 * (c.index + 1)) % 90000 + 10000}"
    return {"postal_code": far, "status": "active", "cause": c.pick(("fibre cut", "power failure at mast", "planned works")),
            "estimated_fix": c.when(0, 2)}


@FACT_FUNCTIONS.register("telecommunications.new_plan")
def new_plan(c: Ctx) -> dict[str, Any]:
    chosen = c.other("plans", "plan_id", c.one("lines")["plan_id"])
    return {"new_plan_id": chosen["plan_id"], "_plan_name": chosen["plan_name"]}


@FACT_FUNCTIONS.register("telecommunications.disputed")
def disputed(c: Ctx) -> dict[str, Any]:
    line = c.all("invoice_lines")[1 + c.rng.randrange(2)]
    return {"disputed_amount": line["amount"], "_charge": line["label"].lower()}


@FACT_FUNCTIONS.register("telecommunications.replace_sim")
def replace_sim(c: Ctx) -> dict[str, Any]:
    return {"delivery_address": c.customer["address"]}


@FACT_FUNCTIONS.register("telecommunications.port_in_number")
def port_in_number(c: Ctx) -> dict[str, Any]:
    return {"port_number": c.phone(), "donor_carrier": c.pick(CARRIERS)}
