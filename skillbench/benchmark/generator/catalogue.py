"""The tool catalogue's building blocks: shared argument schemas, a compact tool notation, shared servers.

Every argument has one JSON Schema, defined once in :data:`ARGS`, so ``customer_id`` means the same in
all 280+ tools and the offline agents can fill it by name. Free-text arguments (message, note ...)
are always optional: nothing in the environment supplies them, so a required one could never be
checked for solvability.
"""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.generator.model import ServerDef
from skillbench.benchmark.schema import ToolEffect, ToolSpec

DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
TIME = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$"}
AMOUNT = {"type": "string", "pattern": r"^\d+\.\d{2}$"}


def _s(description: str, base: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**(base or {"type": "string"}), "description": description}


# Argument name → JSON Schema. Names are shared with record fields and caller facts (see the contract).
ARGS: dict[str, dict[str, Any]] = {
    # people and contact details
    "customer_id": _s("Customer id, e.g. C-10482."),
    "date_of_birth": _s("Date of birth, YYYY-MM-DD.", DATE),
    "postal_code": _s("Postal (ZIP) code, e.g. 30301."),
    "email": _s("Email address, e.g. dana.whitfield@example.com."),
    "phone": _s("Phone number as stored, e.g. +1-555-014-2231."),
    "otp_code": _s("The six digits the caller reads back, e.g. 482913."),
    "new_email": _s("The email address to store."),
    "new_phone": _s("The phone number to store, e.g. +1-555-014-2231."),
    "new_address": _s("Street address to store, e.g. 12 Alder Lane, Springfield."),
    "new_postal_code": _s("Postal code of the new address."),
    "new_language": _s("Preferred language, e.g. Spanish."),
    "selected_offer_code": _s("Code of the offer the caller chose, e.g. FIBRE-SWITCH25."),
    "reward_code": _s("Reward code from the rewards catalogue."),
    "ticket_id": _s("Ticket id, e.g. TCK-20931."),
    # free text (always optional)
    "message": _s("Optional text added to the templated message."),
    "subject": _s("Optional subject line."),
    "details": _s("Optional free-text details for the record."),
    "reason": _s("Optional reason, in a few words."),
    "note": _s("Optional internal note."),
    "summary": _s("Optional one-line summary of the conversation."),
    "query": _s("Optional search words."),
    "article_id": _s("Help article id, e.g. KB-1042."),
    "topic": _s("Optional topic filter, e.g. billing."),
    # billing and payments
    "invoice_id": _s("Invoice id, e.g. INV-40213."),
    "disputed_amount": _s("Amount disputed, e.g. 15.00.", AMOUNT),
    "new_due_date": _s("New due date, YYYY-MM-DD.", DATE),
    "installment_count": {"type": "string", "enum": ["2", "3", "4", "6"], "description": "Number of monthly installments."},
    "billing_profile_id": _s("Billing profile id, e.g. BP-20931."),
    "new_billing_email": _s("Email address that should receive invoices."),
    "new_billing_day": _s("Day of the month for billing, 1 to 28.", {"type": "string", "pattern": r"^([1-9]|1\d|2[0-8])$"}),
    "payment_id": _s("Payment id, e.g. PAY-30918."),
    "payment_method_id": _s("Stored payment method id, e.g. PM-11802."),
    # orders and retail
    "order_id": _s("Order id, e.g. ORD-58120."),
    "sku": _s("Item code (SKU) as printed on the packing slip or product page, e.g. SKU-40917."),
    "return_sku": _s("Item code (SKU) of the item to return, as on the packing slip."),
    "new_shipping_address": _s("Full delivery address to use instead."),
    "new_delivery_date": _s("Requested delivery date, YYYY-MM-DD.", DATE),
    "store_id": _s("Store id, e.g. ST-112."),
    "pickup_point_id": _s("Parcel pickup point id, e.g. PP-2231."),
    # scheduling
    "event_id": _s("Calendar event (appointment) id, e.g. EVT-77310."),
    "resource_id": _s("Provider, technician or room id the calendar books, e.g. DR-4410."),
    "location_id": _s("Location id, e.g. LOC-210."),
    "new_start_time": _s("Start time of an open slot, YYYY-MM-DDTHH:MM.", TIME),
    # telecommunications
    "line_id": _s("Mobile or broadband line id, e.g. L-72014."),
    "new_plan_id": _s("Plan id from the plan catalogue, e.g. PLN-U60."),
    "addon_id": _s("Add-on id, e.g. ADD-EU7."),
    "new_addon_id": _s("Id of the add-on to add, from the add-on catalogue, e.g. ADD-EU7."),
    "port_number": _s("The phone number to bring over, e.g. +1-555-210-4432."),
    "donor_carrier": _s("Name of the carrier the number is leaving."),
    "delivery_address": _s("Address to deliver to."),
    "new_spending_cap": _s("Monthly spending cap, e.g. 20.00.", AMOUNT),
    # banking
    "account_id": _s("Bank account id, e.g. ACC-80214."),
    "card_id": _s("Card id (not the card number), e.g. CRD-30177."),
    "fee_id": _s("Fee id, e.g. FEE-22018."),
    "disputed_merchant": _s("Merchant name of the disputed payment, as shown on the statement."),
    "cancel_payee": _s("Payee name of the standing order to cancel, as listed."),
    "destination_country": _s("Country the caller travels to."),
    "return_date": _s("Date the caller is back, YYYY-MM-DD.", DATE),
    "new_product_code": _s("Code of the product to open, from the product list, e.g. SAV-EASY."),
    # insurance
    "policy_id": _s("Policy id, e.g. POL-48201."),
    "claim_id": _s("Claim id, e.g. CLM-30291."),
    "product": _s("Product line, e.g. home or auto."),
    "new_coverage_code": _s("Cover level code to move to, from the options list, e.g. HOME-PLUS."),
    "incident_date": _s("Date of the incident, YYYY-MM-DD.", DATE),
    "incident_type": _s("Kind of incident, e.g. water damage."),
    "driver_name": _s("Full name of the driver to add."),
    "driver_date_of_birth": _s("Driver's date of birth, YYYY-MM-DD.", DATE),
    "cancellation_date": _s("Date the cover should end, YYYY-MM-DD.", DATE),
    "driver_id": _s("Named driver id, e.g. DRV-2201."),
    # healthcare
    "prescription_id": _s("Prescription id, e.g. RX-55012."),
    "pharmacy_id": _s("Pharmacy id, e.g. PH-310."),
    "new_pharmacy_id": _s("Id of the pharmacy to use from now on."),
    "portal_account_id": _s("Patient portal account id, e.g. PA-61120."),
    "coverage_id": _s("Insurance coverage record id, e.g. COV-11290."),
    "new_insurer": _s("Name of the new health insurer."),
    "new_member_number": _s("Member number printed on the new insurance card."),
    "delivery_email": _s("Email address the records should go to."),
    "recipient_name": _s("Name of the person to receive records."),
    # travel
    "booking_id": _s("Booking id, e.g. BKG-40981."),
    "origin": _s("Origin airport code, e.g. SEA."),
    "destination": _s("Destination airport code, e.g. BOS."),
    "flight_number": _s("Flight number, e.g. SK 214."),
    "new_flight_number": _s("Flight number to move to, from the search results."),
    "new_seat": _s("Seat to assign, e.g. 14C."),
    "corrected_name": _s("Passenger name as it appears on the passport."),
    "bag_tag_number": _s("Bag tag number from the baggage receipt, e.g. SK402117."),
    "report_id": _s("Baggage report id, e.g. BAG-3301."),
    "meal_code": {"type": "string", "enum": ["VGML", "KSML", "GFML", "CHML"], "description": "Special meal code."},
    # utilities
    "premise_id": _s("Premises (service address) id, e.g. PRM-60218."),
    "meter_id": _s("Meter id, e.g. MTR-90312."),
    "reading_value": _s("Meter reading digits, e.g. 04521.", {"type": "string", "pattern": r"^\d{4,6}$"}),
    "new_tariff_code": _s("Tariff code from the tariff list, e.g. TOU-FLEX."),
    "move_out_date": _s("Last day at the address, YYYY-MM-DD.", DATE),
    "forwarding_address": _s("Address for the final bill."),
    "service_area": _s("Service area code, e.g. NORTH-3."),
    "outage_id": _s("Outage id, e.g. OUT-3310."),
    "service_order_id": _s("Service order id, e.g. SO-88120."),
    # software / SaaS
    "subscription_id": _s("Subscription id, e.g. SUB-21044."),
    "new_plan_code": _s("Plan code from the plan list, e.g. TEAM-PRO."),
    "new_seat_count": _s("Number of paid seats, e.g. 12.", {"type": "string", "pattern": r"^[1-9]\d{0,3}$"}),
    "workspace_id": _s("Workspace id, e.g. WS-33019."),
    "user_id": _s("User id inside the workspace, e.g. U-40112."),
    "error_code": _s("Error code shown in the app, e.g. SYNC-409."),
    # home services
    "job_id": _s("Service job id, e.g. JOB-60213."),
    "technician_id": _s("Technician id, e.g. TECH-214."),
    "quote_id": _s("Quote id, e.g. QTE-55120."),
    "plan_id": _s("Maintenance plan id, e.g. MPL-30211."),
    "plan_code": _s("Maintenance plan code from the options list, e.g. CARE-ANNUAL."),
    # automotive
    "vehicle_id": _s("Vehicle id in the dealer system, e.g. VEH-20411."),
    "vin": _s("Vehicle identification number (17 characters)."),
    "recall_id": _s("Recall campaign record id, e.g. RCL-2201."),
    "service_center_id": _s("Service centre id, e.g. SC-12."),
    "repair_order_id": _s("Repair order id, e.g. RO-77120."),
    "breakdown_location": _s("Where the vehicle is, as the caller describes it."),
    "new_mileage": _s("Odometer reading in miles.", {"type": "string", "pattern": r"^\d{1,6}$"}),
    "loan_id": _s("Vehicle finance agreement id, e.g. LN-40211."),
    "new_payment_day": _s("Day of the month for the payment, 1 to 28.", {"type": "string", "pattern": r"^([1-9]|1\d|2[0-8])$"}),
    "roadside_job_id": _s("Roadside job id, e.g. RSJ-5501."),
}


# -- effects -----------------------------------------------------------------------------------------


def _pairs(spec: str) -> dict[str, str]:
    """``"field=arg other"`` → ``{"field": "arg", "other": "other"}``."""
    pairs: dict[str, str] = {}
    for token in spec.split():
        field_name, _, arg = token.partition("=")
        pairs[field_name] = arg or field_name
    return pairs


def lookup_(collection: str, match: str = "") -> ToolEffect:
    return ToolEffect(operation="lookup", collection=collection, match=_pairs(match))


def get_(collection: str, match: str) -> ToolEffect:
    return ToolEffect(operation="get", collection=collection, match=_pairs(match))


def verify_(collection: str, match: str, returns: str = "customer_id full_name") -> ToolEffect:
    return ToolEffect(operation="verify", collection=collection, match=_pairs(match), returns=returns.split())


def create_(collection: str, id_field: str, prefix: str, set_: str = "", **const: Any) -> ToolEffect:
    return ToolEffect(
        operation="create", collection=collection, id_field=id_field, id_prefix=prefix, set=_pairs(set_), set_const=const
    )


def update_(collection: str, match: str, set_: str = "", **const: Any) -> ToolEffect:
    return ToolEffect(operation="update", collection=collection, match=_pairs(match), set=_pairs(set_), set_const=const)


def delete_(collection: str, match: str) -> ToolEffect:
    return ToolEffect(operation="delete", collection=collection, match=_pairs(match))


def action_(collection: str | None, returns: str = "", **result: Any) -> ToolEffect:
    return ToolEffect(operation="action", collection=collection, returns=returns.split(), result=result)


def tool(name: str, description: str, params: str, effect: ToolEffect) -> ToolSpec:
    """A tool from ``params`` like ``"invoice_id ?reason"`` (``?`` = optional); reads/writes follow the effect."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for token in params.split():
        arg = token.lstrip("?")
        if arg not in ARGS:
            raise KeyError(f"tool {name}: argument {arg!r} has no schema in catalogue.ARGS")
        properties[arg] = dict(ARGS[arg])
        if not token.startswith("?"):
            required.append(arg)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    collection = [effect.collection] if effect.collection else []
    reads = collection if effect.operation in {"lookup", "get", "verify", "update", "delete"} else []
    writes = collection if effect.operation in {"create", "update", "delete", "action"} else []
    return ToolSpec(name=name, description=description, input_schema=schema, effect=effect, reads=reads, writes=writes)


def server(name: str, description: str, *tools: ToolSpec) -> ServerDef:
    return ServerDef(name=name, description=description, tools=tools)


# -- shared servers (the systems every support team has) ------------------------------------------------

IDENTITY = server(
    "identity",
    "Identity verification service; every disclosure or change waits for one of its checks.",
    tool("identity.verify_customer", "Check a caller against the customer record: customer id and date of birth.",
         "customer_id date_of_birth", verify_("customers", "customer_id date_of_birth")),
    tool("identity.verify_by_postal_code", "Check a caller against the customer record: customer id and the postal code on file.",
         "customer_id postal_code", verify_("customers", "customer_id postal_code")),
    tool("identity.verify_by_email", "Check a caller against the customer record: customer id and the account email address.",
         "customer_id email", verify_("customers", "customer_id email")),
    tool("identity.verify_by_phone", "Check a caller against the customer record: customer id and the phone number on file.",
         "customer_id phone", verify_("customers", "customer_id phone")),
    tool("identity.send_one_time_code", "Text a six-digit one-time passcode to the mobile number on the customer record.",
         "customer_id", action_("otp_requests", "customer_id", status="sent", channel="sms")),
    tool("identity.check_one_time_code", "Check the one-time passcode the caller reads back.",
         "customer_id otp_code", verify_("otp_codes", "customer_id otp_code", returns="customer_id")),
    tool("identity.lock_online_access", "Lock online and app access to the account until the customer unlocks it in a branch or store.",
         "customer_id", update_("customers", "customer_id", online_access="locked")),
    tool("identity.send_access_reset_link", "Email the customer a link to set new sign-in credentials themselves.",
         "customer_id", action_("access_resets", "customer_id", status="sent")),
)

CRM = server(
    "crm",
    "Customer relationship management: contacts, consents, offers and interaction history.",
    tool("crm.search_contacts", "Find contact records by phone number; returns the customer ids that match.",
         "phone", lookup_("contacts", "phone")),
    tool("crm.find_contact_by_email", "Find contact records by email address.", "email", lookup_("contacts", "email")),
    tool("crm.get_contact", "Get a customer's contact record: addresses, phone, language and consents.",
         "customer_id", get_("contacts", "customer_id")),
    tool("crm.update_contact_email", "Replace the email address on a contact record.",
         "customer_id new_email", update_("contacts", "customer_id", "email=new_email")),
    tool("crm.update_contact_phone", "Replace the phone number on a contact record.",
         "customer_id new_phone", update_("contacts", "customer_id", "phone=new_phone")),
    tool("crm.update_mailing_address", "Replace the mailing address and its postal code on a contact record.",
         "customer_id new_address new_postal_code",
         update_("contacts", "customer_id", "mailing_address=new_address mailing_postal_code=new_postal_code")),
    tool("crm.set_preferred_language", "Set the language used for calls and letters.",
         "customer_id new_language", update_("contacts", "customer_id", "preferred_language=new_language")),
    tool("crm.opt_out_marketing", "Withdraw marketing consent on every channel (email, SMS, phone, post).",
         "customer_id ?note", update_("contacts", "customer_id", marketing_opt_in="no")),
    tool("crm.opt_in_marketing", "Record marketing consent given on this call.",
         "customer_id", update_("contacts", "customer_id", marketing_opt_in="yes")),
    tool("crm.list_offers", "List the promotions currently on offer, with their codes and eligibility.",
         "?topic", lookup_("offers", "topic")),
    tool("crm.enroll_in_offer", "Enrol the customer in a current promotion by its offer code.",
         "customer_id selected_offer_code",
         create_("offer_enrollments", "enrollment_id", "ENR", "customer_id offer_code=selected_offer_code", status="enrolled")),
    tool("crm.create_data_access_request", "Open a formal request for a copy of the personal data held about the customer.",
         "customer_id ?details", create_("privacy_requests", "request_id", "PRQ", "customer_id", request_type="access", status="received")),
    tool("crm.create_erasure_request", "Open a formal request to erase the customer's personal data (reviewed by the privacy team).",
         "customer_id ?details", create_("privacy_requests", "request_id", "PRQ", "customer_id", request_type="erasure", status="received")),
    tool("crm.delete_contact", "Delete a contact record outright (privacy team only).",
         "customer_id", delete_("contacts", "customer_id")),
    tool("crm.log_interaction", "Add a summary of this conversation to the customer's history.",
         "customer_id ?summary", action_("interactions", "customer_id", status="logged")),
    tool("crm.add_to_priority_register", "Register the customer for priority services (extra support in outages and visits).",
         "customer_id ?note", update_("contacts", "customer_id", priority_services="registered")),
)

HELPDESK = server(
    "helpdesk",
    "Ticketing system shared by the support and engineering teams.",
    tool("helpdesk.create_ticket", "Open a support ticket for the customer.",
         "customer_id ?subject ?details", create_("tickets", "ticket_id", "TCK", "customer_id", status="open", queue="support")),
    tool("helpdesk.create_bug_report", "Open an engineering ticket for a product error, with the error code the customer sees.",
         "customer_id error_code ?details",
         create_("tickets", "ticket_id", "TCK", "customer_id error_code", status="open", queue="engineering")),
    tool("helpdesk.search_tickets", "List the customer's tickets.", "customer_id", lookup_("tickets", "customer_id")),
    tool("helpdesk.get_ticket", "Get one ticket with its status and queue.", "ticket_id", get_("tickets", "ticket_id")),
    tool("helpdesk.add_ticket_note", "Add a note to a ticket.", "ticket_id ?note", action_("ticket_notes", "ticket_id", status="added")),
    tool("helpdesk.close_ticket", "Close a ticket as resolved.", "ticket_id", update_("tickets", "ticket_id", status="closed")),
    tool("helpdesk.reopen_ticket", "Reopen a closed ticket.", "ticket_id", update_("tickets", "ticket_id", status="open")),
    tool("helpdesk.escalate_ticket", "Raise a ticket's priority to high (team leads only).",
         "ticket_id ?reason", update_("tickets", "ticket_id", priority="high")),
    tool("helpdesk.create_complaint", "Log a formal complaint, which starts the regulated response clock.",
         "customer_id ?details", create_("complaints", "complaint_id", "CMP", "customer_id", status="open")),
)

BILLING = server(
    "billing",
    "Billing platform: invoices, disputes, payment arrangements, credits and billing profiles.",
    tool("billing.search_invoices", "List a customer's recent invoices with amounts, due dates and status.",
         "customer_id", lookup_("invoices", "customer_id")),
    tool("billing.get_invoice", "Get one invoice.", "invoice_id", get_("invoices", "invoice_id")),
    tool("billing.get_invoice_lines", "List the charges on an invoice.", "invoice_id", lookup_("invoice_lines", "invoice_id")),
    tool("billing.create_dispute", "Open a dispute on an amount charged on an invoice; the amount is held from collection.",
         "invoice_id disputed_amount ?reason",
         create_("billing_disputes", "dispute_id", "DSP", "invoice_id disputed_amount", status="open")),
    tool("billing.create_payment_arrangement", "Agree a later date to pay an invoice in full.",
         "invoice_id new_due_date", create_("payment_arrangements", "arrangement_id", "ARR", "invoice_id due_date=new_due_date", status="active")),
    tool("billing.create_payment_plan", "Split an invoice into monthly installments.",
         "invoice_id installment_count",
         create_("payment_plans", "payment_plan_id", "PPL", "invoice_id installment_count", status="active")),
    tool("billing.update_due_date", "Move an invoice's due date (one extension per invoice).",
         "invoice_id new_due_date", update_("invoices", "invoice_id", "due_on=new_due_date", extension="granted")),
    tool("billing.waive_late_fee", "Remove the late-payment fee from an invoice.",
         "invoice_id ?reason", update_("invoices", "invoice_id", late_fee_waived="yes")),
    tool("billing.write_off_balance", "Write off the balance of an invoice (finance approval only).",
         "invoice_id ?reason", update_("invoices", "invoice_id", status="written_off")),
    tool("billing.apply_courtesy_credit", "Apply a standard 25.00 courtesy credit to the customer's account.",
         "customer_id ?reason", create_("account_credits", "credit_id", "CR", "customer_id", amount="25.00", status="applied")),
    tool("billing.place_collection_hold", "Pause collection on an invoice while a query is investigated.",
         "invoice_id ?reason", update_("invoices", "invoice_id", collection_hold="yes")),
    tool("billing.get_billing_profile", "Get the customer's billing profile: billing email, billing day, paperless setting.",
         "customer_id", get_("billing_profiles", "customer_id")),
    tool("billing.update_billing_email", "Change the email address invoices are sent to.",
         "billing_profile_id new_billing_email", update_("billing_profiles", "billing_profile_id", "billing_email=new_billing_email")),
    tool("billing.change_billing_day", "Change the day of the month the account is billed.",
         "billing_profile_id new_billing_day", update_("billing_profiles", "billing_profile_id", "billing_day=new_billing_day")),
    tool("billing.enable_paperless", "Switch the account to paperless invoices.",
         "billing_profile_id", update_("billing_profiles", "billing_profile_id", paperless="yes")),
    tool("billing.send_invoice_copy", "Email a copy of an invoice to the billing email on file.",
         "invoice_id", action_("invoice_copies", "invoice_id", status="sent")),
)

PAYMENTS = server(
    "payments",
    "Payment gateway: payments received, refunds, stored payment methods and payment links.",
    tool("payments.search_payments", "List payments received from a customer.", "customer_id", lookup_("payments", "customer_id")),
    tool("payments.get_payment", "Get one payment.", "payment_id", get_("payments", "payment_id")),
    tool("payments.refund_payment", "Refund a payment to the method it was paid with.",
         "payment_id ?reason", create_("refunds", "refund_id", "RFD", "payment_id", status="pending")),
    tool("payments.refund_invoice", "Refund what was paid on an invoice to the original payment method.",
         "invoice_id ?reason", create_("refunds", "refund_id", "RFD", "invoice_id", status="pending")),
    tool("payments.issue_instant_refund", "Refund an order immediately, before any return is received (fraud team only).",
         "order_id ?reason", create_("refunds", "refund_id", "RFD", "order_id", status="issued")),
    tool("payments.issue_price_adjustment", "Refund the difference when an item's price dropped after purchase.",
         "order_id sku", create_("price_adjustments", "adjustment_id", "ADJ", "order_id sku", status="issued")),
    tool("payments.refund_booking", "Refund a cancelled booking's fare to the original payment method.",
         "booking_id ?reason", create_("refunds", "refund_id", "RFD", "booking_id", status="pending")),
    tool("payments.list_payment_methods", "List the customer's stored payment methods (masked).",
         "customer_id", lookup_("payment_methods", "customer_id")),
    tool("payments.send_payment_link", "Send the customer a secure link to pay an invoice themselves (no card details on the call).",
         "customer_id invoice_id", action_("payment_links", "customer_id invoice_id", status="sent")),
    tool("payments.remove_payment_method", "Delete a stored payment method.",
         "payment_method_id", delete_("payment_methods", "payment_method_id")),
    tool("payments.get_refund_status", "List refunds raised against a payment.", "payment_id", lookup_("refunds", "payment_id")),
)

ORDERS = server(
    "orders",
    "Order management system: orders, items, returns and order changes.",
    tool("orders.search_orders", "List a customer's recent orders with status and delivery details.",
         "customer_id", lookup_("orders", "customer_id")),
    tool("orders.get_order", "Get one order.", "order_id", get_("orders", "order_id")),
    tool("orders.get_order_items", "List the items of an order with their SKUs.", "order_id", lookup_("order_items", "order_id")),
    tool("orders.update_shipping_address", "Change where an order not yet shipped will be delivered.",
         "order_id new_shipping_address", update_("orders", "order_id", "ship_to=new_shipping_address")),
    tool("orders.cancel_order", "Cancel an order that has not shipped yet.", "order_id ?reason",
         update_("orders", "order_id", status="cancelled")),
    tool("orders.create_return", "Authorise the return of one item and email a prepaid label.",
         "order_id return_sku ?reason", create_("returns", "return_id", "RMA", "order_id sku=return_sku", status="label_sent")),
    tool("orders.change_delivery_date", "Move the delivery of an order not yet shipped to another date.",
         "order_id new_delivery_date", update_("orders", "order_id", "delivery_date=new_delivery_date")),
    tool("orders.apply_staff_discount", "Grant the employee discount on the customer's next orders (staff accounts only).",
         "customer_id", create_("discount_grants", "grant_id", "DSC", "customer_id", discount="30_percent")),
    tool("orders.place_order", "Place a new order for one item, paid with the default stored method.",
         "customer_id sku", create_("orders", "order_id", "ORD", "customer_id sku", status="processing")),
    tool("orders.add_gift_message", "Add a gift message to an order's packing slip.",
         "order_id ?message", action_("gift_messages", "order_id", status="added")),
)

SCHEDULING = server(
    "scheduling",
    "Calendar and booking platform: appointments (events), open slots, providers and locations.",
    tool("scheduling.search_events", "List a customer's upcoming appointments.", "customer_id", lookup_("events", "customer_id")),
    tool("scheduling.get_event", "Get one appointment.", "event_id", get_("events", "event_id")),
    tool("scheduling.find_open_slots", "List the open slots of a provider or resource.",
         "resource_id", lookup_("open_slots", "resource_id")),
    tool("scheduling.find_open_slots_by_location", "List the open slots at a location.",
         "location_id", lookup_("open_slots", "location_id")),
    tool("scheduling.create_event", "Book a new appointment with a provider in one of their open slots.",
         "customer_id resource_id new_start_time",
         create_("events", "event_id", "EVT", "customer_id resource_id start_time=new_start_time", status="booked")),
    tool("scheduling.update_event", "Move an appointment to another open slot.",
         "event_id new_start_time", update_("events", "event_id", "start_time=new_start_time", status="rescheduled")),
    tool("scheduling.cancel_event", "Cancel an appointment and release its slot.", "event_id ?reason",
         update_("events", "event_id", status="cancelled")),
    tool("scheduling.waive_late_cancellation_fee", "Remove the late-cancellation or missed-visit fee from an appointment.",
         "event_id ?reason", update_("events", "event_id", late_fee_waived="yes")),
    tool("scheduling.add_to_waitlist", "Put the customer on a provider's waitlist for earlier slots.",
         "customer_id resource_id", create_("waitlist", "waitlist_id", "WL", "customer_id resource_id", status="waiting")),
    tool("scheduling.list_resources", "List providers or resources at a location.", "location_id", lookup_("resources", "location_id")),
    tool("scheduling.list_locations", "List locations with their addresses and hours.", "", lookup_("locations")),
    tool("scheduling.send_event_reminder", "Send a reminder of an appointment to the customer.",
         "event_id", action_("reminders", "event_id", status="sent")),
)

MESSAGING = server(
    "messaging",
    "Outbound customer messaging: SMS, email, push and the secure inbox.",
    tool("messaging.send_sms", "Text the customer at the number on file (templated, plus optional text).",
         "customer_id ?message", action_("sent_messages", "customer_id", status="sent", channel="sms")),
    tool("messaging.send_email", "Email the customer at the address on file (templated, plus optional text).",
         "customer_id ?subject ?message", action_("sent_messages", "customer_id", status="sent", channel="email")),
    tool("messaging.send_secure_message", "Post to the customer's secure online inbox.",
         "customer_id ?message", action_("sent_messages", "customer_id", status="delivered", channel="secure_inbox")),
    tool("messaging.send_push_notification", "Send a push notification to the customer's app.",
         "customer_id ?message", action_("sent_messages", "customer_id", status="sent", channel="push")),
    tool("messaging.get_message_history", "List messages sent to the customer.", "customer_id", lookup_("sent_messages", "customer_id")),
    tool("messaging.send_survey", "Send the post-contact satisfaction survey.", "customer_id", action_("surveys", "customer_id", status="sent")),
)

KNOWLEDGE_BASE = server(
    "knowledge_base",
    "Internal knowledge base: articles, known issues, policies and troubleshooting guides.",
    tool("knowledge_base.search_articles", "Search help articles.", "?query", lookup_("articles")),
    tool("knowledge_base.get_article", "Get one help article.", "article_id", get_("articles", "article_id")),
    tool("knowledge_base.list_known_issues", "List open known issues and their workarounds.", "?topic", lookup_("known_issues", "topic")),
    tool("knowledge_base.list_faqs", "List frequently asked questions, optionally for one topic.", "?topic", lookup_("faqs", "topic")),
    tool("knowledge_base.get_troubleshooting_guide", "Get the troubleshooting guide for a device model.",
         "?query", lookup_("guides")),
    tool("knowledge_base.get_service_terms", "Get the current terms of service and fee schedule.", "?topic", lookup_("service_terms", "topic")),
)

LOYALTY = server(
    "loyalty",
    "Loyalty programme: members, points or miles, tiers and rewards.",
    tool("loyalty.get_loyalty_account", "Get the customer's loyalty account: balance and tier.",
         "customer_id", get_("loyalty_accounts", "customer_id")),
    tool("loyalty.credit_missing_points", "Credit the points an eligible order should have earned.",
         "order_id", create_("points_adjustments", "adjustment_id", "PTS", "order_id", status="credited")),
    tool("loyalty.credit_missing_miles", "Credit the miles a flown booking should have earned.",
         "booking_id", create_("miles_adjustments", "adjustment_id", "MLS", "booking_id", status="credited")),
    tool("loyalty.add_bonus_points", "Add 500 goodwill bonus points (loyalty team only).",
         "customer_id ?reason", create_("points_adjustments", "adjustment_id", "PTS", "customer_id", points="500", status="credited")),
    tool("loyalty.add_bonus_miles", "Add 5,000 goodwill bonus miles (loyalty team only).",
         "customer_id ?reason", create_("miles_adjustments", "adjustment_id", "MLS", "customer_id", miles="5000", status="credited")),
    tool("loyalty.upgrade_tier", "Move the member up to the gold tier outside the qualifying rules (loyalty team only).",
         "customer_id", update_("loyalty_accounts", "customer_id", tier="gold")),
    tool("loyalty.list_rewards", "List rewards the programme offers.", "", lookup_("rewards")),
    tool("loyalty.redeem_reward", "Redeem a reward for the member.", "customer_id reward_code",
         create_("redemptions", "redemption_id", "RDM", "customer_id reward_code", status="redeemed")),
)

SHARED_SERVERS: tuple[ServerDef, ...] = (
    IDENTITY, CRM, HELPDESK, BILLING, PAYMENTS, ORDERS, SCHEDULING, MESSAGING, KNOWLEDGE_BASE, LOYALTY,
)
