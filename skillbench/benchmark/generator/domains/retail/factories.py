"""Retail and e-commerce: an online home and outdoor goods shop.

Entity makers and fact functions for this folder's templates, registered by name.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.domains._shared.factories import street_address
from skillbench.benchmark.generator.model import ENTITY_FACTORIES, FACT_FUNCTIONS, Ctx

PRODUCTS = (
    ("Cedar garden bench", "189.00"), ("Linen duvet cover, queen", "79.00"), ("Cast-iron skillet, 12 inch", "54.00"),
    ("Two-person hiking tent", "229.00"), ("Wool throw blanket", "65.00"), ("Ceramic table lamp", "48.00"),
    ("Stainless water bottle", "24.00"), ("Bamboo bath towels, set of 4", "59.00"),
)
CARRIERS = ("Swiftline Couriers", "Parcelgo", "Blue Arrow Freight")


@ENTITY_FACTORIES.register("retail.order")
def order(c: Ctx, status: str, delivered: bool) -> dict[str, Any]:
    return {
        "status": status,
        "placed_on": c.date(-14, -9) if delivered else c.date(-3, -1),
        "total": c.money(30, 400),
        "ship_to": c.customer["address"],
        "delivery_date": c.date(-7, -2) if delivered else c.date(3, 7),
        "shipping_speed": "standard",
    }


@ENTITY_FACTORIES.register("retail.item")
def item(c: Ctx) -> dict[str, Any]:
    name, price = c.nth(PRODUCTS)
    return {"order_id": c.one("orders")["order_id"], "sku": f"SKU-{40000 + (c.rotation * 7 + c.index * 131) % 9999}",
            "product_name": name, "quantity": "1", "price": price}


@ENTITY_FACTORIES.register("retail.shipment")
def shipment(c: Ctx) -> dict[str, Any]:
    return {"order_id": c.one("orders")["order_id"], "carrier": c.pick(CARRIERS), "tracking_number": f"1Z{c.digits(12)}",
            "status": "in_transit", "last_scan": c.pick(("regional hub", "out for delivery", "departed sort centre")),
            "estimated_delivery": c.date(1, 3)}


@ENTITY_FACTORIES.register("retail.product_of_item")
def product_of_item(c: Ctx) -> dict[str, Any]:
    first = c.all("order_items")[0]
    paid = float(first["price"])
    return {"sku": first["sku"], "product_name": first["product_name"], "current_price": f"{paid * 0.8:.2f}", "stock": "14"}


@ENTITY_FACTORIES.register("retail.out_of_stock")
def out_of_stock(c: Ctx) -> dict[str, Any]:
    name, price = c.pick(PRODUCTS)
    return {"sku": f"SKU-{c.rng.randint(50000, 59999)}", "product_name": name, "current_price": price, "stock": "0",
            "restock_expected": c.date(10, 30)}


@ENTITY_FACTORIES.register("retail.loyalty")
def loyalty(c: Ctx) -> dict[str, Any]:
    return {"points_balance": str(c.rng.randint(120, 4800)), "tier": c.pick(("bronze", "silver"))}


@FACT_FUNCTIONS.register("retail.change_delivery_address")
def change_delivery_address(c: Ctx) -> dict[str, Any]:
    return {"new_shipping_address": street_address(c)}


@FACT_FUNCTIONS.register("retail.return_item")
def return_item(c: Ctx) -> dict[str, Any]:
    item = c.pick(c.all("order_items"))
    return {"return_sku": item["sku"], "_product": item["product_name"].lower()}


@FACT_FUNCTIONS.register("retail.price_adjustment")
def price_adjustment(c: Ctx) -> dict[str, Any]:
    return {"sku": c.all("order_items")[0]["sku"]}


@FACT_FUNCTIONS.register("retail.back_in_stock")
def back_in_stock(c: Ctx) -> dict[str, Any]:
    return {"sku": c.one("products")["sku"]}
