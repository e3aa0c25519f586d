"""The Elmbrook Tool Library's loan desk: tools as code, where the rules and the arithmetic live.

Each function is a tool ``loans.<name>`` served over MCP like any declarative tool. A refused call
(a closed loan, an item that is not out on the loan, a second extension) is a failed call the agent
reads; nothing changes. Late fees and new due dates are computed here, not written in the scenarios.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated

from pydantic import BaseModel, Field

from skillbench.benchmark.tool_code import Environment, ToolRefused, tool

TODAY = date(2026, 12, 5)  # the library's clock in every scenario
MAX_EXTENSION_DAYS = 14


class Member(BaseModel):
    member_id: str
    full_name: str
    email: str
    postcode: str
    balance_due: float = 0.0


class Item(BaseModel):
    item_id: str
    name: str
    daily_late_fee: float
    status: str


class Loan(BaseModel):
    loan_id: str
    member_id: str
    item_ids: list[str]
    returned_item_ids: list[str] = Field(default_factory=list)
    due_date: date
    status: str
    extensions: int = 0


class Charge(BaseModel):
    charge_id: str
    member_id: str
    loan_id: str
    item_ids: list[str]
    days_late: int
    amount: float


# Typed environment: every initial_state record of these collections is validated at load.
COLLECTIONS = {"members": Member, "items": Item, "loans": Loan, "charges": Charge}


def _open_loan(env: Environment, member_id: str, loan_id: str) -> dict:
    loan = env.one("loans", loan_id=loan_id)
    if loan["member_id"] != member_id:
        raise ToolRefused(f"Loan {loan_id} is not on member {member_id}'s account.")
    if loan["status"] != "open":
        raise ToolRefused(f"Loan {loan_id} is {loan['status']}; only an open loan can be changed.")
    return loan


@tool(reads=["loans", "items", "members"], writes=["loans", "items", "members", "charges"])
def return_items(
    env: Environment,
    member_id: Annotated[str, Field(description="The verified member's id.")],
    loan_id: Annotated[str, Field(description="Loan number from the receipt, e.g. L-301.")],
    item_ids: Annotated[list[str], Field(min_length=1, description="Ids of the tools being returned (on their tags).")],
) -> dict:
    """Check returned tools in. Only items out on an open loan of this member can be returned; a late
    return is charged each item's daily late fee for every day past the due date."""
    loan = _open_loan(env, member_id, loan_id)
    out = [item for item in loan["item_ids"] if item not in loan["returned_item_ids"]]
    for item_id in item_ids:
        if item_id not in out:
            raise ToolRefused(f"Item {item_id} is not out on loan {loan_id}; items out: {', '.join(out) or 'none'}.")
    days_late = max(0, (TODAY - date.fromisoformat(loan["due_date"])).days)
    fee = round(days_late * sum(env.one("items", item_id=item_id)["daily_late_fee"] for item_id in item_ids), 2)
    for item_id in item_ids:
        env.one("items", item_id=item_id)["status"] = "available"
    loan["returned_item_ids"] = sorted({*loan["returned_item_ids"], *item_ids})
    if set(loan["returned_item_ids"]) >= set(loan["item_ids"]):
        loan["status"] = "closed"
    if fee:
        member = env.one("members", member_id=member_id)
        member["balance_due"] = round(member["balance_due"] + fee, 2)
        env.insert("charges", {
            "charge_id": env.next_id("charges", "charge_id", "CH"), "member_id": member_id, "loan_id": loan_id,
            "item_ids": sorted(item_ids), "days_late": days_late, "amount": fee,
        })
    still_out = [item for item in loan["item_ids"] if item not in loan["returned_item_ids"]]
    return {"loan_id": loan_id, "returned": sorted(item_ids), "still_out": still_out, "days_late": days_late,
            "late_fee": fee, "loan_status": loan["status"]}


@tool(reads=["loans"], writes=["loans"])
def extend_loan(
    env: Environment,
    member_id: Annotated[str, Field(description="The verified member's id.")],
    loan_id: Annotated[str, Field(description="Loan number from the receipt, e.g. L-301.")],
    extra_days: Annotated[int, Field(ge=1, le=MAX_EXTENSION_DAYS, description="Days to add to the due date (1-14).")],
) -> dict:
    """Move an open loan's due date later. A loan can be extended once, and only before it is due."""
    loan = _open_loan(env, member_id, loan_id)
    due = date.fromisoformat(loan["due_date"])
    if due < TODAY:
        raise ToolRefused(f"Loan {loan_id} was due {due.isoformat()}; only a loan that is not yet overdue can be extended.")
    if loan["extensions"] >= 1:
        raise ToolRefused(f"Loan {loan_id} has already been extended once; only one extension per loan is allowed.")
    loan["due_date"] = (due + timedelta(days=extra_days)).isoformat()
    loan["extensions"] += 1
    return {"loan_id": loan_id, "new_due_date": loan["due_date"], "extensions": loan["extensions"]}
