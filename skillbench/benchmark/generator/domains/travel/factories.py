"""Travel and airlines: a full-service airline with a frequent-flyer programme.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

ROUTES = (("SEA", "BOS"), ("DEN", "MIA"), ("SFO", "ORD"), ("ATL", "LAX"), ("JFK", "SEA"), ("AUS", "DTW"))
FIRST_NAMES_TYPO = {"a": "e", "e": "a", "i": "y", "o": "u"}


@ENTITY_FACTORIES.register("travel.booking")
def booking(c: Ctx, flown: bool = False) -> dict[str, Any]:
    origin, destination = c.pick(ROUTES)
    return {
        "passenger_name": c.customer["full_name"], "flight_number": f"AU {c.rng.randint(100, 999)}",
        "origin": origin, "destination": destination,
        "departure_time": c.when(-20, -10) if flown else c.when(8, 30), "cabin": "economy",
        "seat": f"{c.rng.randint(8, 34)}{c.pick('ABCDEF')}", "fare_type": "flexible",
        "status": "flown" if flown else "confirmed", "change_fee_waived": "no", "assistance": "none",
    }


@ENTITY_FACTORIES.register("travel.flight")
def flight(c: Ctx) -> dict[str, Any]:
    booked = c.one("bookings")
    return {"flight_number": f"AU {c.rng.randint(100, 999)}", "origin": booked["origin"], "destination": booked["destination"],
            "departure_time": c.when(8 + 2 * c.index, 9 + 2 * c.index), "seats_left": str(c.rng.randint(2, 40))}


@ENTITY_FACTORIES.register("travel.seat")
def seat(c: Ctx) -> dict[str, Any]:
    booked = c.one("bookings")
    return {"flight_number": booked["flight_number"], "seat": f"{10 + 3 * c.index}{c.pick('ACDF')}",
            "seat_type": c.pick(("aisle", "window"))}


@ENTITY_FACTORIES.register("travel.misspelt")
def misspelt(c: Ctx) -> dict[str, Any]:
    record = booking(c)
    first, last = c.customer["full_name"].split(" ", 1)
    for old, new in FIRST_NAMES_TYPO.items():
        if old in first[1:]:
            typo = first[0] + first[1:].replace(old, new, 1)
            break
    else:
        typo = first + first[-1]
    return {**record, "passenger_name": f"{typo} {last}"}


@ENTITY_FACTORIES.register("travel.loyalty")
def loyalty(c: Ctx) -> dict[str, Any]:
    return {"miles_balance": str(c.rng.randint(1500, 90000)), "tier": c.pick(("blue", "silver"))}


@FACT_FUNCTIONS.register("travel.change_flight")
def change_flight(c: Ctx) -> dict[str, Any]:
    chosen = c.pick(c.all("flights"))
    return {"new_flight_number": chosen["flight_number"], "_departure": chosen["departure_time"]}


@FACT_FUNCTIONS.register("travel.choose_seat")
def choose_seat(c: Ctx) -> dict[str, Any]:
    chosen = c.pick(c.all("seats"))
    return {"new_seat": chosen["seat"], "_seat_type": chosen["seat_type"]}


@FACT_FUNCTIONS.register("travel.delayed_bag")
def delayed_bag(c: Ctx) -> dict[str, Any]:
    return {"bag_tag_number": f"AU{c.digits(6)}"}


@FACT_FUNCTIONS.register("travel.name_correction")
def name_correction(c: Ctx) -> dict[str, Any]:
    return {"corrected_name": c.customer["full_name"]}
