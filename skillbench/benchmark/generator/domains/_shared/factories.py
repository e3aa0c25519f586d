"""Entity makers and fact functions several industries share (invoices, offers, billing profiles, addresses)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

_STREETS = ("Maple", "Cedar", "Harbor", "Willow", "Lakeview", "Juniper", "Orchard", "Granite", "Sycamore", "Birch")
_SUFFIXES = ("Street", "Avenue", "Lane", "Road", "Drive", "Court")
_CITIES = ("Springfield", "Riverton", "Fairview", "Greenville", "Lakewood", "Milton", "Ashford", "Brookside")


@ENTITY_FACTORIES.register("shared.invoices")
def invoices(c: Ctx, low: float, high: float, status: str = "unpaid") -> dict[str, Any]:
    return {
        "period": "2026-10",
        "amount_due": c.money(low, high),
        "due_on": c.date(-12, -3) if status == "paid" else c.date(6, 16),
        "status": status,
        "late_fee_waived": "no",
        "collection_hold": "no",
        "extension": "none",
    }


@ENTITY_FACTORIES.register("shared.invoice_lines")
def invoice_lines(c: Ctx, labels: Sequence[str], low: float, high: float) -> dict[str, Any]:
    """Charges of the caller's invoice; the first label is the regular charge, the others extras."""
    label = labels[0] if c.index == 0 else c.nth(labels[1:])
    return {"invoice_id": c.one("invoices")["invoice_id"], "label": label, "amount": c.money(low, high)}


@ENTITY_FACTORIES.register("shared.offers")
def offers(c: Ctx, catalogue: Sequence[Sequence[str]], topic: str) -> dict[str, Any]:
    """Current promotions: ``catalogue`` rows are (offer_code, offer_name, headline)."""
    code, name, headline = c.nth(catalogue)
    return {"offer_code": code, "offer_name": name, "headline": headline, "topic": topic, "status": "live"}


@ENTITY_FACTORIES.register("shared.billing_profiles")
def billing_profiles(c: Ctx) -> dict[str, Any]:
    return {
        "billing_email": c.customer["email"],
        "billing_day": str(c.rng.randint(1, 28)),
        "paperless": c.pick(("yes", "no")),
    }


@FACT_FUNCTIONS.register("shared.offer_fact")
def offer_fact(c: Ctx) -> dict[str, Any]:
    chosen = c.pick(c.all("offers"))
    return {"selected_offer_code": chosen["offer_code"], "_offer_name": chosen["offer_name"]}


@FACT_FUNCTIONS.register("shared.later_due_date")
def later_due_date(c: Ctx) -> dict[str, Any]:
    return {"new_due_date": c.date(24, 40)}


def street_address(c: Ctx) -> str:
    """An address different from any Faker one in the state (used for 'new address' facts)."""
    return f"{c.rng.randint(2, 980)} {c.pick(_STREETS)} {c.pick(_SUFFIXES)}, {c.pick(_CITIES)}"


def postal_code(c: Ctx) -> str:
    return f"{c.rng.randint(10000, 99999)}"
