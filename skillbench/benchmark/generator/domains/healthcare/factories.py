"""Healthcare providers: a multi-site primary-care practice with its own pharmacy service.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

PROVIDERS = (
    ("DR-4410", "Dr. Amara Okafor", "family medicine"),
    ("DR-2207", "Dr. Luis Ferreira", "internal medicine"),
    ("DR-3315", "Dr. Hannah Brooks", "family medicine"),
    ("DR-5120", "Dr. Kenji Watanabe", "pediatrics"),
    ("NP-6031", "Morgan Ellis, NP", "primary care"),
)
VISITS = ("annual check-up", "follow-up visit", "blood pressure review", "vaccination", "medication review")
MEDICATIONS = ("atorvastatin 20 mg", "lisinopril 10 mg", "metformin 500 mg", "levothyroxine 50 mcg", "sertraline 50 mg",
               "amlodipine 5 mg")
INSURERS = ("Bluepeak Health", "Cascade Care Plans", "Summit Mutual Health", "Northgate Benefits", "Harborline Health")


@ENTITY_FACTORIES.register("healthcare.event")
def event(c: Ctx) -> dict[str, Any]:
    return {"resource_id": c.pick(PROVIDERS)[0], "start_time": c.when(1, 3), "status": "booked", "visit_type": c.pick(VISITS),
            "late_fee_waived": "no"}


@ENTITY_FACTORIES.register("healthcare.care_team")
def care_team(c: Ctx) -> dict[str, Any]:
    provider_id, name, specialty = c.pick(PROVIDERS)
    return {"resource_id": provider_id, "provider_name": name, "specialty": specialty, "role": "primary care"}


@ENTITY_FACTORIES.register("healthcare.slot")
def slot(c: Ctx, provider_from: str) -> dict[str, Any]:
    """An open slot of the provider of the caller's first ``provider_from`` record."""
    # One slot per day, all after the existing booking's day, so no slot repeats or clashes.
    return {"resource_id": c.one(provider_from)["resource_id"], "start_time": c.when(4 + 3 * c.index, 5 + 3 * c.index),
            "location": "Lakeside Main Clinic"}


@ENTITY_FACTORIES.register("healthcare.prescription")
def prescription(c: Ctx) -> dict[str, Any]:
    return {"medication": c.pick(MEDICATIONS), "refills_remaining": c.pick(("1", "2", "3")), "status": "active",
            "pharmacy_id": f"PH-{c.rng.randint(100, 999)}", "refill_override": "no"}


@ENTITY_FACTORIES.register("healthcare.coverage")
def coverage(c: Ctx) -> dict[str, Any]:
    return {"insurer_name": c.pick(INSURERS), "member_no": f"M{c.digits(9)}", "status": "active", "copay_waived": "no",
            "verification": "verified"}


@ENTITY_FACTORIES.register("healthcare.portal")
def portal(c: Ctx) -> dict[str, Any]:
    return {"status": "locked", "two_factor": "enabled", "last_sign_in": c.date(-60, -2), "failed_attempts": "5"}


@FACT_FUNCTIONS.register("healthcare.new_insurer")
def new_insurer(c: Ctx) -> dict[str, Any]:
    current = c.one("coverage_records")["insurer_name"]
    return {"new_insurer": c.pick([i for i in INSURERS if i != current]), "new_member_number": f"M{c.digits(9)}"}


@FACT_FUNCTIONS.register("healthcare.reschedule_appointment")
def reschedule_appointment(c: Ctx) -> dict[str, Any]:
    return {"new_start_time": c.pick(c.all("open_slots"))["start_time"]}


@FACT_FUNCTIONS.register("healthcare.book_appointment")
def book_appointment(c: Ctx) -> dict[str, Any]:
    return {"new_start_time": c.pick(c.all("open_slots"))["start_time"]}


@FACT_FUNCTIONS.register("healthcare.payment_plan")
def payment_plan(c: Ctx) -> dict[str, Any]:
    return {"installment_count": c.pick(("2", "3", "4", "6"))}


@FACT_FUNCTIONS.register("healthcare.records_request")
def records_request(c: Ctx) -> dict[str, Any]:
    return {"delivery_email": c.customer["email"]}
