"""The Brightwater Photo Lab's order desk: tools as code, where the rules and the prices live.

An order holds a list of prints (photo, size, copies). A queued order can still be edited or cancelled; a
printed or shipped one can be reprinted free within 30 days of printing, and a shipped one can have damaged
prints claimed. A refused call (wrong status, a photo not in the customer's album, a reprint too late) is a
failed call the agent reads; nothing changes.
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from skillbench.benchmark.tool_code import Environment, ToolRefused, tool

TODAY = date(2026, 12, 5)  # the lab's clock in every scenario
FREE_REPRINT_DAYS = 30
PRICES = {"10x15": 0.30, "13x18": 0.60, "20x30": 2.50}  # per copy

Size = Literal["10x15", "13x18", "20x30"]
CancelReason = Literal["duplicate order", "wrong photos", "changed my mind"]


class PrintLine(BaseModel):
    photo_id: Annotated[str, Field(description="Id of a photo in the customer's album, e.g. PH-1001.")]
    size: Annotated[Size, Field(description="Print size in centimetres.")]
    copies: Annotated[int, Field(ge=1, le=50, description="Number of copies.")]


class Customer(BaseModel):
    customer_id: str
    full_name: str
    email: str
    postcode: str


class Photo(BaseModel):
    photo_id: str
    customer_id: str
    title: str


class Order(BaseModel):
    order_id: str
    customer_id: str
    status: Literal["queued", "printed", "shipped", "cancelled"]
    prints: list[PrintLine]
    total: float
    printed_on: date | None = None
    cancel_reason: str | None = None


class Reprint(BaseModel):
    reprint_id: str
    order_id: str
    prints: list[PrintLine]
    status: str


class Claim(BaseModel):
    claim_id: str
    order_id: str
    prints: list[PrintLine]
    status: str


# Typed environment: every initial_state record of these collections is validated at load.
COLLECTIONS = {"customers": Customer, "photos": Photo, "orders": Order, "reprints": Reprint, "claims": Claim}

# The arguments the order tools share: edit and reprint take exactly the same ones (the order's status decides).
CustomerId = Annotated[str, Field(description="The verified customer's id.")]
OrderId = Annotated[str, Field(description="Order number from the confirmation e-mail, e.g. PO-5001.")]
PrintsArgument = Annotated[list[PrintLine], Field(min_length=1, description="The prints: photo id, size and copies of each.")]


def _order(env: Environment, customer_id: str, order_id: str, *statuses: str, to: str = "") -> dict:
    """The customer's order; with ``statuses``, refused unless it has one of them (``to``: what it could not do)."""
    order = env.one("orders", order_id=order_id)
    if order["customer_id"] != customer_id:
        raise ToolRefused(f"Order {order_id} is not on customer {customer_id}'s account.")
    if statuses and order["status"] not in statuses:
        raise ToolRefused(f"Order {order_id} is {order['status']}; only a {' or '.join(statuses)} order can {to}.")
    return order


def _lines(prints: list[PrintLine]) -> list[dict]:
    return [line.model_dump() if isinstance(line, PrintLine) else dict(line) for line in prints]


def _in_album(env: Environment, customer_id: str, lines: list[dict]) -> None:
    for line in lines:
        if not env.find("photos", photo_id=line["photo_id"], customer_id=customer_id):
            raise ToolRefused(f"Photo {line['photo_id']} is not in the customer's album.")


def _on_order(order: dict, lines: list[dict]) -> None:
    ordered = {(line["photo_id"], line["size"]): line["copies"] for line in order["prints"]}
    for line in lines:
        if ordered.get((line["photo_id"], line["size"]), 0) < line["copies"]:
            raise ToolRefused(
                f"Order {order['order_id']} has no {line['copies']} {line['size']} print(s) of {line['photo_id']}."
            )


@tool(reads=["orders"])
def find_order(
    env: Environment,
    customer_id: CustomerId,
    order_id: OrderId,
) -> dict:
    """Look up one of the customer's orders: its status, prints, total and print date."""
    return copy.deepcopy(_order(env, customer_id, order_id))


@tool(reads=["orders", "photos"], writes=["orders"])
def edit_queued_order(
    env: Environment,
    customer_id: CustomerId,
    order_id: OrderId,
    prints: PrintsArgument,
) -> dict:
    """Replace the prints of an order that is still queued (not yet printed); the total is recalculated."""
    order = _order(env, customer_id, order_id, "queued", to="be edited")
    lines = _lines(prints)
    _in_album(env, customer_id, lines)
    order["prints"] = lines
    order["total"] = round(sum(PRICES[line["size"]] * line["copies"] for line in lines), 2)
    return {"order_id": order_id, "prints": lines, "total": order["total"], "status": order["status"]}


@tool(reads=["orders"], writes=["reprints"])
def reprint_order(
    env: Environment,
    customer_id: CustomerId,
    order_id: OrderId,
    prints: PrintsArgument,
) -> dict:
    """Reprint prints of a printed or shipped order free of charge, within 30 days of printing."""
    order = _order(env, customer_id, order_id, "printed", "shipped", to="be reprinted")
    days = (TODAY - date.fromisoformat(order["printed_on"])).days
    if days > FREE_REPRINT_DAYS:
        raise ToolRefused(
            f"Order {order_id} was printed {days} days ago; free reprints are only made within {FREE_REPRINT_DAYS} days."
        )
    lines = _lines(prints)
    _on_order(order, lines)
    reprint = env.insert("reprints", {"reprint_id": env.next_id("reprints", "reprint_id", "RP"), "order_id": order_id,
                                      "prints": lines, "status": "queued"})
    return copy.deepcopy(reprint)


@tool(reads=["orders"], writes=["orders"])
def cancel_order(
    env: Environment,
    customer_id: CustomerId,
    order_id: OrderId,
    reason: Annotated[CancelReason, Field(description="Why the customer cancels.")],
) -> dict:
    """Cancel an order that is still queued; the customer is not charged."""
    order = _order(env, customer_id, order_id, "queued", to="be cancelled")
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    return {"order_id": order_id, "status": "cancelled", "refund": order["total"]}


@tool(reads=["orders"], writes=["claims"])
def report_damage(
    env: Environment,
    customer_id: CustomerId,
    order_id: OrderId,
    damaged_prints: Annotated[list[PrintLine], Field(min_length=1, description="The prints that arrived damaged.")],
) -> dict:
    """Open a claim for prints of a shipped order that arrived damaged; the lab reprints them."""
    order = _order(env, customer_id, order_id, "shipped", to="have a damage claim")
    lines = _lines(damaged_prints)
    _on_order(order, lines)
    claim = env.insert("claims", {"claim_id": env.next_id("claims", "claim_id", "CL"), "order_id": order_id,
                                  "prints": lines, "status": "open"})
    return copy.deepcopy(claim)
