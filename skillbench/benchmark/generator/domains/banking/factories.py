"""Banking: a retail bank with current accounts, debit cards and savings.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.domains._shared.factories import postal_code, street_address
from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

MERCHANTS = ("Corner Grocer", "Streamly Subscription", "Metro Fuel", "Bean There Cafe", "Pixel Games Store", "City Parking")
PAYEES = ("Greenleaf Property Rentals", "Riverside Gym", "Hope Children's Charity", "Oakwood Nursery", "Piano Lessons Co")
SAVINGS = (
    ("SAV-EASY", "Easy Access Saver", "3.10"),
    ("SAV-FIX1", "One-Year Fixed Saver", "4.05"),
    ("SAV-REG", "Regular Monthly Saver", "5.00"),
    ("SAV-KIDS", "Junior Saver", "3.60"),
)
COUNTRIES = ("Portugal", "Japan", "Mexico", "Canada", "Italy", "Thailand", "Iceland", "Morocco")


@ENTITY_FACTORIES.register("banking.account")
def account(c: Ctx) -> dict[str, Any]:
    return {"account_type": "current", "balance": c.money(120, 4800), "overdraft_limit": "500.00", "status": "open",
            "goodwill_refunds_last_12_months": "0"}


@ENTITY_FACTORIES.register("banking.card")
def card(c: Ctx) -> dict[str, Any]:
    return {"account_id": c.one("accounts")["account_id"], "card_type": "debit", "last_four": c.digits(4),
            "card_status": "active", "daily_atm_limit": "500.00", "expiry": "2028-09"}


@ENTITY_FACTORIES.register("banking.transaction")
def transaction(c: Ctx) -> dict[str, Any]:
    return {"account_id": c.one("accounts")["account_id"], "merchant": c.nth(MERCHANTS), "amount": c.money(4, 180),
            "posted_on": c.date(-20, -1), "status": "posted"}


@ENTITY_FACTORIES.register("banking.fee")
def fee(c: Ctx) -> dict[str, Any]:
    return {"account_id": c.one("accounts")["account_id"], "fee_type": c.pick(("unarranged overdraft fee", "returned payment fee")),
            "amount": c.pick(("15.00", "25.00")), "posted_on": c.date(-30, -3), "refunded": "no"}


@ENTITY_FACTORIES.register("banking.standing_order")
def standing_order(c: Ctx) -> dict[str, Any]:
    return {"account_id": c.one("accounts")["account_id"], "payee_name": c.nth(PAYEES), "amount": c.money(20, 900),
            "frequency": "monthly", "next_payment_date": c.date(3, 25), "status": "active"}


@ENTITY_FACTORIES.register("banking.savings")
def savings(c: Ctx) -> dict[str, Any]:
    code, name, rate = c.nth(SAVINGS)
    return {"product_code": code, "product_name": name, "interest_rate": rate}


@FACT_FUNCTIONS.register("banking.txn_fact")
def txn_fact(c: Ctx) -> dict[str, Any]:
    txn = c.pick(c.all("transactions"))
    return {"disputed_merchant": txn["merchant"], "disputed_amount": txn["amount"], "_date": txn["posted_on"]}


@FACT_FUNCTIONS.register("banking.update_address")
def update_address(c: Ctx) -> dict[str, Any]:
    return {"new_address": street_address(c), "new_postal_code": postal_code(c)}


@FACT_FUNCTIONS.register("banking.travel_notice")
def travel_notice(c: Ctx) -> dict[str, Any]:
    return {"destination_country": c.pick(COUNTRIES), "return_date": c.date(10, 40)}


@FACT_FUNCTIONS.register("banking.cancel_standing_order")
def cancel_standing_order(c: Ctx) -> dict[str, Any]:
    return {"cancel_payee": c.pick(c.all("standing_orders"))["payee_name"]}


@FACT_FUNCTIONS.register("banking.open_savings")
def open_savings(c: Ctx) -> dict[str, Any]:
    chosen = c.pick(c.all("savings_products"))
    return {"new_product_code": chosen["product_code"], "_product": chosen["product_name"]}
