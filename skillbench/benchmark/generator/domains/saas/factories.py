"""Software / SaaS: a team collaboration and document platform sold by subscription.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.identities import ascii_name
from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

PLANS = (
    ("STARTER", "Starter", "6.00"),
    ("TEAM-PRO", "Team Pro", "12.00"),
    ("BUSINESS", "Business", "20.00"),
    ("ENTERPRISE", "Enterprise", "32.00"),
)
ERRORS = ("SYNC-409", "UPLOAD-413", "EXPORT-500", "AUTH-401", "SHARE-403")


@ENTITY_FACTORIES.register("saas.subscription")
def subscription(c: Ctx) -> dict[str, Any]:
    return {"plan_code": c.pick(PLANS)[0], "seats": str(c.rng.randint(3, 40)), "billing_interval": "monthly",
            "status": "active", "renewal_date": c.date(5, 28), "discount": "none", "trial_extended": "no"}


@ENTITY_FACTORIES.register("saas.plan")
def plan(c: Ctx) -> dict[str, Any]:
    code, name, price = c.nth(PLANS)
    return {"plan_code": code, "plan_name": name, "price_per_seat": price}


@ENTITY_FACTORIES.register("saas.workspace")
def workspace(c: Ctx) -> dict[str, Any]:
    last = c.customer["full_name"].split()[-1]
    return {"workspace_name": f"{last} {c.pick(('Studio', 'Partners', 'Consulting', 'Labs', 'Design'))}",
            "region": c.pick(("us-east", "us-west", "eu-central")), "storage_used_gb": str(c.rng.randint(2, 480))}


@ENTITY_FACTORIES.register("saas.user")
def user(c: Ctx) -> dict[str, Any]:
    return {"user_id": c.id("U"), "email": c.customer["email"], "role": "member", "status": "locked",
            "mfa_status": "enrolled"}


@FACT_FUNCTIONS.register("saas.seats")
def seats(c: Ctx) -> dict[str, Any]:
    current = int(c.one("subscriptions")["seats"])
    return {"new_seat_count": str(current + c.pick((-2, -1, 2, 5, 10)))}


@FACT_FUNCTIONS.register("saas.upgrade_plan")
def upgrade_plan(c: Ctx) -> dict[str, Any]:
    chosen = c.other("saas_plans", "plan_code", c.one("subscriptions")["plan_code"])
    return {"new_plan_code": chosen["plan_code"], "_plan": chosen["plan_name"]}


@FACT_FUNCTIONS.register("saas.report_bug")
def report_bug(c: Ctx) -> dict[str, Any]:
    return {"error_code": c.pick(ERRORS)}


@FACT_FUNCTIONS.register("saas.billing_contact")
def billing_contact(c: Ctx) -> dict[str, Any]:
    return {"new_billing_email": f"accounts@{ascii_name(c.customer['full_name'].split()[-1])}-{c.rng.randint(1, 99)}.example.com"}
