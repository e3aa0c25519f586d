"""Dollars as text, precise enough for small amounts: a $0.004 budget reads "$0.004", never "$0.00"."""

from __future__ import annotations

import math


def usd(value: float) -> str:
    """``$1,234.56`` from 10 cents up; below that, the first two significant digits (``$0.05``, ``$0.0042``)."""
    magnitude = abs(value)
    if magnitude == 0 or not math.isfinite(magnitude):
        return "$0.00"
    decimals = 2 if magnitude >= 0.1 else min(10, 1 - math.floor(math.log10(magnitude)))
    text = f"{magnitude:,.{decimals}f}"
    if decimals > 2:  # 0.050 -> 0.05, 0.00010 -> 0.0001: trailing zeros add no precision
        whole, fraction = text.split(".")
        text = f"{whole}.{fraction.rstrip('0').ljust(2, '0')}"
    return ("-" if value < 0 else "") + "$" + text
