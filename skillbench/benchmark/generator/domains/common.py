"""Entity factories several industries share (invoices, offers, billing profiles)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillbench.benchmark.generator.model import Ctx, EntitySpec


def invoices(low: float, high: float, status: str = "unpaid") -> EntitySpec:
    def make(c: Ctx) -> dict[str, Any]:
        return {
            "period": "2026-10",
            "amount_due": c.money(low, high),
            "due_on": c.date(-12, -3) if status == "paid" else c.date(6, 16),
            "status": status,
            "late_fee_waived": "no",
            "collection_hold": "no",
            "extension": "none",
        }

    return EntitySpec("invoices", "invoice_id", "INV", make)


def invoice_lines(labels: Sequence[str], low: float, high: float) -> EntitySpec:
    """Charges of the caller's invoice; the first label is the regular charge, the others extras."""

    def make(c: Ctx) -> dict[str, Any]:
        label = labels[0] if c.index == 0 else c.nth(labels[1:])
        return {"invoice_id": c.one("invoices")["invoice_id"], "label": label, "amount": c.money(low, high)}

    return EntitySpec("invoice_lines", "line_item_id", "IL", make, count=3, owned=False)


def offers(catalogue: Sequence[tuple[str, str, str]], topic: str) -> EntitySpec:
    """Current promotions: (offer_code, offer_name, headline)."""

    def make(c: Ctx) -> dict[str, Any]:
        code, name, headline = c.nth(catalogue)
        return {"offer_code": code, "offer_name": name, "headline": headline, "topic": topic, "status": "live"}

    return EntitySpec("offers", "offer_ref", "OF", make, count=3, owned=False)


def billing_profiles() -> EntitySpec:
    def make(c: Ctx) -> dict[str, Any]:
        return {
            "billing_email": c.customer["email"],
            "billing_day": str(c.rng.randint(1, 28)),
            "paperless": c.pick(("yes", "no")),
        }

    return EntitySpec("billing_profiles", "billing_profile_id", "BP", make)


def offer_fact(c: Ctx) -> dict[str, str]:
    chosen = c.pick(c.all("offers"))
    return {"selected_offer_code": chosen["offer_code"], "_offer_name": chosen["offer_name"]}


def later_due_date(c: Ctx) -> dict[str, str]:
    return {"new_due_date": c.date(24, 40)}


_STREETS = ("Maple", "Cedar", "Harbor", "Willow", "Lakeview", "Juniper", "Orchard", "Granite", "Sycamore", "Birch")
_SUFFIXES = ("Street", "Avenue", "Lane", "Road", "Drive", "Court")
_CITIES = ("Springfield", "Riverton", "Fairview", "Greenville", "Lakewood", "Milton", "Ashford", "Brookside")


def street_address(c: Ctx) -> str:
    """An address different from any Faker one in the state (used for 'new address' facts)."""
    return f"{c.rng.randint(2, 980)} {c.pick(_STREETS)} {c.pick(_SUFFIXES)}, {c.pick(_CITIES)}"


def postal_code(c: Ctx) -> str:
    return f"{c.rng.randint(10000, 99999)}"
